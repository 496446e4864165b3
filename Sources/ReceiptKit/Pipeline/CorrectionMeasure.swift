import Foundation

/// Accuracy measured on a person's own receipts: of the expenses they confirmed, how often each
/// drafted field was kept as the analyzer read it (a field a person changed is in the expense's
/// `corrections`). `receipts eval --corrections` prints it; the review page's inbox shows it.
public struct CorrectionMeasure: Sendable, Equatable {
    /// The fields measured: the expense's name and the name a person knows it by.
    public static let fields: [(expense: String, label: String)] = [
        ("description", "vendor"), ("date", "date"), ("amount", "total"), ("taxAmount", "tax"), ("currency", "currency"),
        ("category", "category"), ("taxDeductiblePercentage", "deductible share"),
    ]

    /// Confirmed expenses.
    public var confirmed: Int
    /// Per field (`fields`' order): how many confirmed expenses kept the drafted value.
    public var kept: [(label: String, count: Int)]

    public static func == (a: CorrectionMeasure, b: CorrectionMeasure) -> Bool {
        a.confirmed == b.confirmed && a.kept.map(\.count) == b.kept.map(\.count)
    }

    /// Counts, in the store, the confirmed expenses its principal may see and per field those a
    /// person corrected.
    public static func measure(_ store: ScopedStore) async throws -> CorrectionMeasure {
        let (confirmed, changed) = try await store.correctionCounts()
        return CorrectionMeasure(confirmed: confirmed, kept: fields.map { ($0.label, confirmed - (changed[$0.expense] ?? 0)) })
    }

    /// `kept / confirmed` of a field, nil before anything is confirmed.
    public func share(_ count: Int) -> Double? {
        confirmed == 0 ? nil : Double(count) / Double(confirmed)
    }

    /// One line per field: `total      18/20  90.0%`, after a line saying how many were confirmed.
    public var text: String {
        guard confirmed > 0 else { return "No confirmed receipts yet: confirm some on the review page (or with receipts expense confirm).\n" }
        var out = "\(confirmed) confirmed receipt\(confirmed == 1 ? "" : "s"): how often the drafted value was kept\n"
        for (label, count) in kept {
            out += label.padding(toLength: 18, withPad: " ", startingAt: 0)
                + "\(count)/\(confirmed)".padding(toLength: 9, withPad: " ", startingAt: 0)
                + String(format: "%5.1f%%", 100 * (share(count) ?? 0)) + "\n"
        }
        return out
    }

    public var json: JSONValue {
        .object([("confirmed", .int(confirmed)),
                 ("kept", .object(kept.map { ($0.label, .object([("count", .int($0.count)), ("share", .double(share($0.count)))])) }))])
    }
}
