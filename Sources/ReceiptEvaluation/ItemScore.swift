import Foundation
import ReceiptAnalyzers
import ReceiptModel

/// How well the line items were read, over the receipts whose items are labelled: the items'
/// amounts as multisets (an amount read is right while the labels have one of that value left),
/// their precision, recall and F1 over all items, the receipts whose amounts are exactly the
/// labelled ones, and how alike the descriptions of matched items are.
public struct ItemScore: Sendable, Equatable {
    /// Receipts with labelled items.
    public var receipts = 0
    /// Of those, the receipts whose items' amounts are exactly the labelled amounts.
    public var exact = 0
    /// Items read, items labelled, and read items whose amount matched a labelled one.
    public var read = 0, labelled = 0, matched = 0
    /// Matched items whose labelled description is known, and the sum of their similarities (0–1).
    public var describedPairs = 0
    public var descriptionSimilarity = 0.0

    public init() {}

    public var precision: Double? { read == 0 ? nil : Double(matched) / Double(read) }
    public var recall: Double? { labelled == 0 ? nil : Double(matched) / Double(labelled) }
    public var f1: Double? {
        guard read + labelled > 0 else { return nil }
        return 2 * Double(matched) / Double(read + labelled)
    }
    /// The mean similarity of matched items' descriptions, nil when none was labelled.
    public var meanDescriptionSimilarity: Double? { describedPairs == 0 ? nil : descriptionSimilarity / Double(describedPairs) }

    /// Adds one receipt's items against its labels.
    public mutating func add(truth: [LabelledItem], read items: [LineItem]) {
        let match = Self.match(truth: truth, read: items)
        receipts += 1
        read += items.count
        labelled += truth.count
        matched += match.pairs.count
        if match.pairs.count == truth.count && items.count == truth.count { exact += 1 }
        for (t, r) in match.pairs {
            guard let expected = truth[t].description else { continue }
            describedPairs += 1
            descriptionSimilarity += Self.similarity(expected, items[r].description)
        }
    }

    /// Labelled and read items paired by amount, each at most once, in reading order: the i-th read
    /// item of an amount with the i-th labelled item of that amount.
    public static func match(truth: [LabelledItem], read items: [LineItem]) -> (pairs: [(truth: Int, read: Int)], unmatched: [Int]) {
        var free: [Decimal: [Int]] = [:]
        for (i, t) in truth.enumerated() { free[t.amount, default: []].append(i) }
        var pairs: [(truth: Int, read: Int)] = [], unmatched: [Int] = []
        for (r, item) in items.enumerated() {
            if let amount = item.amount, var left = free[amount], !left.isEmpty {
                pairs.append((left.removeFirst(), r))
                free[amount] = left
            } else {
                unmatched.append(r)
            }
        }
        return (pairs, unmatched)
    }

    /// Whether the items read have exactly the labelled amounts.
    public static func exact(truth: [LabelledItem], read items: [LineItem]) -> Bool {
        items.count == truth.count && match(truth: truth, read: items).pairs.count == truth.count
    }

    /// Two descriptions' likeness, 0–1: one less their edit distance over the longer, letters and
    /// digits only, case ignored (WildReceipt's transcriptions drop spaces).
    public static func similarity(_ a: String, _ b: String) -> Double {
        let x = NameMatching.normalized(a), y = NameMatching.normalized(b)
        guard !x.isEmpty || !y.isEmpty else { return 1 }
        let distance = LabelText.editDistance(Array(x.unicodeScalars.map(\.value)), Array(y.unicodeScalars.map(\.value)))
        return 1 - Double(distance) / Double(max(x.unicodeScalars.count, y.unicodeScalars.count))
    }

    /// `{"receipts", "exact", "read", "labelled", "matched", "precision", "recall", "f1", "descriptionSimilarity"}`.
    public var json: JSONValue {
        func ratio(_ x: Double?) -> JSONValue { .decimal(x.map { Decimal($0).rounded(scale: 4) }) }
        return .object([
            ("receipts", .int(receipts)), ("exact", .int(exact)), ("read", .int(read)), ("labelled", .int(labelled)),
            ("matched", .int(matched)), ("precision", ratio(precision)), ("recall", ratio(recall)), ("f1", ratio(f1)),
            ("descriptionSimilarity", ratio(meanDescriptionSimilarity)),
        ])
    }

    /// `items F1 0.70 (P 0.83, R 0.61), exact 30/102, descriptions 0.81`.
    public var summary: String? {
        guard receipts > 0, let f1 else { return nil }
        return String(format: "items F1 %.2f (P %.2f, R %.2f), exact %d/%d", f1, precision ?? 0, recall ?? 0, exact, receipts)
            + (meanDescriptionSimilarity.map { String(format: ", descriptions %.2f", $0) } ?? "")
    }
}
