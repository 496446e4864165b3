import Foundation
import ReceiptModel

/// The labelled fields of one receipt (`<name>.json` in ../shared/receipts, `<name>.expected.json`
/// in TestReceipts). A nil field is not known and is not scored.
public struct GroundTruth: Sendable, Equatable {
    public var vendor: String?
    /// Other accepted spellings of the vendor (WildReceipt's `raw.Store_name_value` boxes).
    public var vendorAlternatives: [String]
    public var date: CalendarDate?
    public var total: Decimal?
    public var tax: Decimal?
    public var currency: String?
    public var category: String?

    public init(vendor: String? = nil, vendorAlternatives: [String] = [], date: CalendarDate? = nil,
                total: Decimal? = nil, tax: Decimal? = nil, currency: String? = nil, category: String? = nil) {
        self.vendor = vendor
        self.vendorAlternatives = vendorAlternatives
        self.date = date
        self.total = total
        self.tax = tax
        self.currency = currency
        self.category = category
    }

    /// Reads a ground-truth document. Amounts may be JSON numbers or strings; a date that is
    /// present but not `YYYY-MM-DD` is an error, since it could never be scored.
    public init(json: JSONValue, file: String) throws {
        guard json.objectValue != nil else {
            throw ReceiptError(.labels, file: file, "ground truth must be a JSON object with vendor/date/total/tax/currency")
        }
        vendor = json["vendor"]?.stringValue
        vendorAlternatives = (json["raw"]?["Store_name_value"]?.arrayValue ?? []).compactMap(\.stringValue)
            .filter { !$0.isEmpty }
        if let text = json["date"]?.stringValue {
            guard let date = CalendarDate(iso: text) else {
                throw ReceiptError(.labels, file: file, "date \"\(text)\" is not a YYYY-MM-DD calendar date")
            }
            self.date = date
        }
        total = try GroundTruth.amount(json["total"], name: "total", file: file)
        tax = try GroundTruth.amount(json["tax"], name: "tax", file: file)
        currency = json["currency"]?.stringValue?.uppercased()
        category = json["category"]?.stringValue
    }

    private static func amount(_ value: JSONValue?, name: String, file: String) throws -> Decimal? {
        guard let value, !value.isNull else { return nil }
        guard let amount = value.decimalValue else {
            throw ReceiptError(.labels, file: file, "\(name) is not an amount (expected \"12.34\" or 12.34)")
        }
        return amount
    }
}

extension ReceiptError.Code {
    /// A labelled folder or one of its ground-truth files cannot be read or makes no sense.
    public static let labels = Self("labels")
}
