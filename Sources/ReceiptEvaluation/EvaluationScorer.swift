import Foundation
import ReceiptModel

/// The fields `receipts eval` scores.
public enum EvaluatedField: String, Sendable, CaseIterable, Hashable {
    case vendor, date, total, tax, currency, category
    /// The line items: right when their amounts are exactly the labelled ones (`ItemScore` has
    /// the items' precision, recall and F1).
    case items
}

/// One wrong (or missing) field.
public struct EvaluationMiss: Sendable, Equatable {
    public var file: String
    public var field: EvaluatedField
    public var expected: String
    /// What the analyzer gave (`null` when nothing, or the error when the receipt failed).
    public var got: String

    public init(file: String, field: EvaluatedField, expected: String, got: String) {
        self.file = file
        self.field = field
        self.expected = expected
        self.got = got
    }
}

/// How often one field was right in one folder.
public struct FieldScore: Sendable, Equatable {
    /// Receipts whose truth for the field is not null.
    public var scored: Int = 0
    public var correct: Int = 0
    /// correct / scored, nil when nothing was scored.
    public var accuracy: Double? { scored == 0 ? nil : Double(correct) / Double(scored) }

    public init(scored: Int = 0, correct: Int = 0) {
        self.scored = scored
        self.correct = correct
    }
}

/// How far `needsReview` can be trusted in one folder: of the receipts with a known total or date,
/// how many were not flagged, and how many of those had every known total and date right (`right`),
/// every known total, date and tax (`rightWithTax`), and a known vendor right (`vendorRight` of
/// `vendorKnown`).
public struct ReviewScore: Sendable, Equatable {
    public var receipts = 0
    public var unflagged = 0
    public var right = 0
    public var rightWithTax = 0
    public var vendorKnown = 0
    public var vendorRight = 0

    public init(receipts: Int = 0, unflagged: Int = 0, right: Int = 0, rightWithTax: Int = 0, vendorKnown: Int = 0, vendorRight: Int = 0) {
        self.receipts = receipts
        self.unflagged = unflagged
        self.right = right
        self.rightWithTax = rightWithTax
        self.vendorKnown = vendorKnown
        self.vendorRight = vendorRight
    }
}

/// Scores analyses against ground truth, as ../shared/receipts/README.md describes: vendor
/// ignoring case, whitespace and punctuation (or matching any accepted alternative), amounts as
/// decimals, dates exactly, currency codes and categories ignoring case; only fields whose
/// truth is not null.
public struct EvaluationScorer: Sendable {
    public var folder: String
    public private(set) var receipts = 0
    public private(set) var failed = 0
    public private(set) var scores: [EvaluatedField: FieldScore] = [:]
    public private(set) var misses: [EvaluationMiss] = []
    public private(set) var review = ReviewScore()
    public private(set) var items = ItemScore()

    public init(folder: String) {
        self.folder = folder
    }

    /// Adds one receipt: its analysis, or nil with the error when the receipt failed.
    public mutating func add(file: String, truth: GroundTruth, analysis: ReceiptAnalysis?, error: String? = nil) {
        receipts += 1
        if analysis == nil { failed += 1 }
        if truth.total != nil || truth.date != nil {
            review.receipts += 1
            if let analysis, !analysis.confidence.needsReview {
                review.unflagged += 1
                func right(_ field: EvaluatedField) -> Bool {
                    EvaluationScorer.expectedText(field, truth) == nil || EvaluationScorer.matches(field, truth: truth, analysis: analysis)
                }
                if right(.total) && right(.date) {
                    review.right += 1
                    if right(.tax) { review.rightWithTax += 1 }
                }
                if EvaluationScorer.expectedText(.vendor, truth) != nil {
                    review.vendorKnown += 1
                    if right(.vendor) { review.vendorRight += 1 }
                }
            }
        }
        if let labelled = truth.items {
            items.add(truth: labelled, read: analysis?.lineItems ?? [])
        }
        for field in EvaluatedField.allCases {
            guard let expected = EvaluationScorer.expectedText(field, truth) else { continue }
            let right = analysis.map { EvaluationScorer.matches(field, truth: truth, analysis: $0) } ?? false
            scores[field, default: FieldScore()].scored += 1
            if right {
                scores[field, default: FieldScore()].correct += 1
            } else {
                let got = analysis.map { EvaluationScorer.gotText(field, $0) } ?? "failed: \(error ?? "no analysis")"
                misses.append(EvaluationMiss(file: file, field: field, expected: expected, got: got))
            }
        }
    }

    public var report: FolderReport {
        FolderReport(folder: folder, receipts: receipts, failed: failed, scores: scores, misses: misses, review: review, items: items)
    }

    /// True when the analysis has the field right (only meaningful when the truth is not null).
    public static func matches(_ field: EvaluatedField, truth: GroundTruth, analysis: ReceiptAnalysis) -> Bool {
        switch field {
        case .vendor:
            guard let got = analysis.vendor.map(normalizedName), !got.isEmpty else { return false }
            return ([truth.vendor].compactMap { $0 } + truth.vendorAlternatives).contains { normalizedName($0) == got }
        case .date: return truth.date != nil && analysis.date == truth.date
        case .total: return truth.total != nil && analysis.total == truth.total
        case .tax: return truth.tax != nil && analysis.tax == truth.tax
        case .currency:
            return truth.currency != nil && analysis.currency?.uppercased() == truth.currency?.uppercased()
        case .category:
            guard let a = analysis.category, let t = truth.category else { return false }
            return a.caseInsensitiveCompare(t) == .orderedSame
        case .items:
            guard let labelled = truth.items else { return false }
            return ItemScore.exact(truth: labelled, read: analysis.lineItems)
        }
    }

    /// Letters and digits only, lower-cased: `"Sainsbury's  Ltd."` → `"sainsburysltd"`.
    public static func normalizedName(_ text: String) -> String { NameMatching.normalized(text) }

    package static func expectedText(_ field: EvaluatedField, _ truth: GroundTruth) -> String? {
        switch field {
        case .vendor: return truth.vendor
        case .date: return truth.date?.description
        case .total: return truth.total?.moneyString
        case .tax: return truth.tax?.moneyString
        case .currency: return truth.currency
        case .category: return truth.category
        case .items: return truth.items.map { $0.map(\.amount.plainString).joined(separator: " ") }
        }
    }

    package static func gotText(_ field: EvaluatedField, _ analysis: ReceiptAnalysis) -> String {
        let text: String?
        switch field {
        case .vendor: text = analysis.vendor
        case .date: text = analysis.date?.description
        case .total: text = analysis.total?.plainString
        case .tax: text = analysis.tax?.plainString
        case .currency: text = analysis.currency
        case .category: text = analysis.category
        case .items: text = analysis.lineItems.map { $0.amount?.plainString ?? "?" }.joined(separator: " ")
        }
        return text ?? "null"
    }
}

/// Per-field accuracy of one folder, with its misses.
public struct FolderReport: Sendable, Equatable {
    public var folder: String
    public var receipts: Int
    public var failed: Int
    public var scores: [EvaluatedField: FieldScore]
    public var misses: [EvaluationMiss]
    public var review = ReviewScore()
    public var items = ItemScore()

    public func score(_ field: EvaluatedField) -> FieldScore { scores[field] ?? FieldScore() }

    /// `{"folder", "receipts", "failed", "fields": {"total": {"scored", "correct", "accuracy"}, …},
    /// "review": {"receipts", "unflagged", "right", "rightWithTax", "vendorKnown", "vendorRight"},
    /// "misses": [...]}`; fields nothing was scored on
    /// are left out.
    public func json(includeMisses: Bool = true) -> JSONValue {
        var fields: [(String, JSONValue)] = []
        for field in EvaluatedField.allCases {
            let s = score(field)
            guard s.scored > 0 else { continue }
            fields.append((field.rawValue, .object([
                ("scored", .int(s.scored)), ("correct", .int(s.correct)),
                ("accuracy", .decimal((Decimal(s.correct) / Decimal(s.scored)).rounded(scale: 4))),
            ])))
        }
        var pairs: [(String, JSONValue)] = [
            ("folder", .string(folder)), ("receipts", .int(receipts)), ("failed", .int(failed)), ("fields", .object(fields)),
            ("review", .object([("receipts", .int(review.receipts)), ("unflagged", .int(review.unflagged)),
                                ("right", .int(review.right)), ("rightWithTax", .int(review.rightWithTax)),
                                ("vendorKnown", .int(review.vendorKnown)), ("vendorRight", .int(review.vendorRight))])),
        ]
        if items.receipts > 0 { pairs.append(("items", items.json)) }
        if includeMisses {
            pairs.append(("misses", .array(misses.map { m in
                .object([("file", .string(m.file)), ("field", .string(m.field.rawValue)),
                         ("expected", .string(m.expected)), ("got", .string(m.got))])
            })))
        }
        return .object(pairs)
    }

    /// `folder  receipts  vendor 87.0% (87/100)  date …` on one line per folder, for people.
    public var summaryLine: String {
        var parts = ["\(folder): \(receipts) receipts" + (failed > 0 ? " (\(failed) failed)" : "")]
        for field in EvaluatedField.allCases {
            let s = score(field)
            guard let accuracy = s.accuracy else { continue }
            guard field != .items else { continue }
            parts.append("\(field.rawValue) " + String(format: "%.1f%%", accuracy * 100) + " (\(s.correct)/\(s.scored))")
        }
        if let items = items.summary { parts.append(items) }
        return parts.joined(separator: "  ")
    }
}

/// The report of a whole `receipts eval` run: one entry per folder.
public struct EvaluationReport: Sendable, Equatable {
    public var folders: [FolderReport]

    public init(folders: [FolderReport]) {
        self.folders = folders
    }

    public func json(includeMisses: Bool = true) -> JSONValue {
        .object([("folders", .array(folders.map { $0.json(includeMisses: includeMisses) }))])
    }
}
