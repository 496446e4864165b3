import Foundation
import ReceiptAnalyzers
import ReceiptModel

/// The candidates of labelled receipts as NDJSON for `make train`: a header line naming every
/// field's features, then one line per receipt: the set, the receipt, which fields the truth knows,
/// and each candidate with its features and whether the scorer counts it right.
public enum CandidateDump {
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
        let labelled: [JSONValue] = analysis.candidates.map { candidate in
            var probe = ReceiptAnalysis(analyzer: "probe")
            let scored: EvaluatedField
            switch candidate.field {
            case .total: probe.total = Decimal(string: candidate.value); scored = .total
            case .date: probe.date = CalendarDate(iso: candidate.value); scored = .date
            case .tax: probe.tax = Decimal(string: candidate.value); scored = .tax
            case .vendor: probe.vendor = candidate.value; scored = .vendor
            }
            let right = EvaluationScorer.matches(scored, truth: truth, analysis: probe)
            return .object([("field", .string(candidate.field.rawValue)), ("value", .string(candidate.value)), ("right", .bool(right)),
                            ("features", candidate.json["features"] ?? .array([]))])
        }
        return JSONValue.object([
            ("set", .string(set)), ("receipt", .string(receipt.name)),
            ("vendorTruth", .optionalString(truth.vendor.map(NameMatching.normalized))),
            ("known", .object([("total", .bool(truth.total != nil)), ("date", .bool(truth.date != nil)),
                               ("vendor", .bool(truth.vendor != nil)), ("tax", .bool(truth.tax != nil))])),
            ("candidates", .array(labelled)),
            // OCR passes read for it, the first included (close-ups count).
            ("passes", .int(max(1, analysis.ocrPasses ?? 1))),
        ]).serialized()
    }
}
