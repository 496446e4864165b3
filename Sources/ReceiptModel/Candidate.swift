/// A field the learned model chooses or scores.
public enum LearnedField: String, Sendable, CaseIterable {
    case total, date, vendor, tax
    /// A line item's amount on one printed row: the model keeps, of each row, its likeliest amount
    /// when that is likely enough to be an item (not one winner a receipt, as for the others).
    case item
}

/// One value proposed for a field, with the features the learned model weighs (in the order of
/// the field's feature names, which the model's parameters carry).
public struct Candidate: Sendable, Equatable {
    public var field: LearnedField
    /// `12.30` for an amount, `2024-03-12` for a date, the name for a vendor.
    public var value: String
    public var features: [Double]
    /// The printed row a line item's candidate is read from (candidates of one row share it): the
    /// model keeps at most one amount a row. Nil for the other fields.
    public var row: Int?

    public init(field: LearnedField, value: String, features: [Double], row: Int? = nil) {
        self.field = field
        self.value = value
        self.features = features
        self.row = row
    }
}

extension Candidate {
    /// `{"field", "value", "features"}`, as `receipts eval --dump-candidates` writes it.
    public var json: JSONValue {
        var pairs: [(String, JSONValue)] = [("field", .string(field.rawValue)), ("value", .string(value))]
        if let row { pairs.append(("row", .int(row))) }
        pairs.append(("features", .array(features.map { .number(String($0)) })))
        return .object(pairs)
    }

}

/// How long one receipt took, in milliseconds: OCR (including the wait for a free OCR thread),
/// analysis (further passes included) and the whole.
public struct ReceiptTimings: Sendable, Equatable {
    public var ocrMs: Int
    public var analysisMs: Int
    public var totalMs: Int

    public init(ocrMs: Int, analysisMs: Int, totalMs: Int) {
        self.ocrMs = ocrMs
        self.analysisMs = analysisMs
        self.totalMs = totalMs
    }

    public var json: JSONValue {
        .object([("ocrMs", .int(ocrMs)), ("analysisMs", .int(analysisMs)), ("totalMs", .int(totalMs))])
    }

    public init?(json: JSONValue) {
        guard let ocr = json["ocrMs"]?.doubleValue, let analysis = json["analysisMs"]?.doubleValue,
              let total = json["totalMs"]?.doubleValue else { return nil }
        self.init(ocrMs: Int(ocr), analysisMs: Int(analysis), totalMs: Int(total))
    }
}
