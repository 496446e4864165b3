import Foundation
import ReceiptAnalyzers
import ReceiptModel

/// The candidates of labelled receipts as NDJSON for `make train`: a header line naming every
/// field's features, then one line per receipt: the set, the receipt, which fields the truth knows,
/// and each candidate with its features and whether the scorer counts it right.
public enum CandidateDump {
    /// Which item candidates are right: an amount the labels have, each labelled item taken once,
    /// rows in reading order and, within a row, the candidate listed first (at most one a row).
    static func itemVerdicts(_ candidates: [Candidate], truth: [LabelledItem]?) -> [Int: Bool] {
        guard let truth else { return [:] }
        var left: [Decimal: Int] = [:]
        for item in truth { left[item.amount, default: 0] += 1 }
        var verdicts: [Int: Bool] = [:]
        var rowsTaken = Set<Int>()
        for (k, c) in candidates.enumerated() where c.field == .item {
            guard let amount = Decimal(string: c.value), !rowsTaken.contains(c.row ?? -k - 1), let n = left[amount], n > 0 else {
                verdicts[k] = false
                continue
            }
            left[amount] = n - 1
            rowsTaken.insert(c.row ?? -k - 1)
            verdicts[k] = true
        }
        return verdicts
    }

    /// The first line: the readers whose candidates the dump holds, and every field's feature names
    /// for them, in the order candidates carry their values.
    public static func header(readers: ReaderChoice) -> String {
        JSONValue.object([
            ("readers", .string(readers.rawValue)),
            ("featureNames", .object(LearnedField.allCases.map { field in
                (field.rawValue, .array(CandidateProposer.features(for: field, readers: readers).map { .string($0) }))
            })),
        ]).serialized()
    }

    public static func line(set: String, receipt: LabelledReceipt, analysis: ReceiptAnalysis) -> String {
        let truth = receipt.truth
        let itemsRight = itemVerdicts(analysis.candidates, truth: truth.items)
        let labelled: [JSONValue] = analysis.candidates.enumerated().map { k, candidate in
            var probe = ReceiptAnalysis(analyzer: "probe")
            let scored: EvaluatedField
            switch candidate.field {
            case .total: probe.total = Decimal(string: candidate.value); scored = .total
            case .date: probe.date = CalendarDate(iso: candidate.value); scored = .date
            case .tax: probe.tax = Decimal(string: candidate.value); scored = .tax
            case .vendor: probe.vendor = candidate.value; scored = .vendor
            case .item: scored = .items
            }
            let right = candidate.field == .item ? itemsRight[k] ?? false : EvaluationScorer.matches(scored, truth: truth, analysis: probe)
            var pairs: [(String, JSONValue)] = [("field", .string(candidate.field.rawValue)), ("value", .string(candidate.value)),
                                                ("right", .bool(right))]
            if let row = candidate.row { pairs.append(("row", .int(row))) }
            pairs.append(("features", candidate.json["features"] ?? .array([])))
            return .object(pairs)
        }
        return JSONValue.object([
            ("set", .string(set)), ("receipt", .string(receipt.name)),
            ("vendorTruth", .optionalString(truth.vendor.map(NameMatching.normalized))),
            ("known", .object([("total", .bool(truth.total != nil)), ("date", .bool(truth.date != nil)),
                               ("vendor", .bool(truth.vendor != nil)), ("tax", .bool(truth.tax != nil)),
                               ("item", .bool(truth.items != nil))])),
            // The labelled items' amounts (the items' F1 and exact receipts are computed on them).
            ("items", .array((truth.items ?? []).map { .string($0.amount.moneyString) })),
            ("candidates", .array(labelled)),
            // OCR passes read for it, the first included (close-ups count).
            ("passes", .int(max(1, analysis.ocrPasses ?? 1))),
        ]).serialized()
    }
}
