import Foundation
import ReceiptKit

/// One NDJSON line per labelled receipt for `make train`: the set, the receipt, which fields the
/// truth knows, and each candidate with its features and whether the scorer counts it right.
enum CandidateDump {
    static func line(set: String, receipt: LabelledReceipt, analysis: ReceiptAnalysis) -> String {
        let truth = receipt.truth
        let candidates = analysis.details.first { $0.0 == "candidates" }?.1.arrayValue ?? []
        let labelled: [JSONValue] = candidates.map { candidate in
            let field = candidate["field"]?.stringValue ?? ""
            let value = candidate["value"]?.stringValue ?? ""
            var probe = ReceiptAnalysis(analyzer: "probe")
            let scored: EvaluatedField
            switch field {
            case "total": probe.total = Decimal(string: value); scored = .total
            case "date": probe.date = CalendarDate(iso: value); scored = .date
            case "tax": probe.tax = Decimal(string: value); scored = .tax
            default: probe.vendor = value; scored = .vendor
            }
            let right = EvaluationScorer.matches(scored, truth: truth, analysis: probe)
            return .object([("field", .string(field)), ("value", .string(value)), ("right", .bool(right)),
                            ("features", candidate["features"] ?? .array([]))])
        }
        return JSONValue.object([
            ("set", .string(set)), ("receipt", .string(receipt.name)),
            ("vendorTruth", .optionalString(truth.vendor.map(NameMatching.normalized))),
            ("known", .object([("total", .bool(truth.total != nil)), ("date", .bool(truth.date != nil)),
                               ("vendor", .bool(truth.vendor != nil)), ("tax", .bool(truth.tax != nil))])),
            ("candidates", .array(labelled)),
            // OCR passes read for it, the first included (close-ups count).
            ("passes", .int(Int(analysis.details.first { $0.0 == "ocrPasses" }?.1.doubleValue ?? 1))),
        ]).serialized()
    }
}
