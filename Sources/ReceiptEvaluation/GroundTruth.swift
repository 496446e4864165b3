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
    /// The purchased items as labelled, in reading order; nil when not labelled (SROIE labels none).
    /// WildReceipt's `raw.Prod_price_value` (with `Prod_item_value` for the descriptions where
    /// both lists have one entry an item), TestReceipts' `lineItems`.
    public var items: [LabelledItem]?
    /// The shop's phone numbers as labelled (WildReceipt's `raw.Tel_value`, TestReceipts'
    /// `vendorPhone`); empty when not labelled.
    public var phones: [String] = []
    /// The time as labelled (WildReceipt's `raw.Time_value`, `14:03Num.`; TestReceipts' `time`).
    public var time: String?
    /// The shop's address as labelled (SROIE's `raw.address`, WildReceipt's `raw.Store_addr_value`
    /// boxes joined, TestReceipts' `vendorAddress`).
    public var address: String?

    public init(vendor: String? = nil, vendorAlternatives: [String] = [], date: CalendarDate? = nil,
                total: Decimal? = nil, tax: Decimal? = nil, currency: String? = nil, category: String? = nil,
                items: [LabelledItem]? = nil) {
        self.vendor = vendor
        self.vendorAlternatives = vendorAlternatives
        self.date = date
        self.total = total
        self.tax = tax
        self.currency = currency
        self.category = category
        self.items = items
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
        items = GroundTruth.items(json)
        let raw = json["raw"]
        phones = (raw?["Tel_value"]?.arrayValue ?? []).compactMap(\.stringValue) + [json["vendorPhone"]?.stringValue].compactMap { $0 }
        time = raw?["Time_value"]?.arrayValue?.first?.stringValue ?? json["time"]?.stringValue
        address = raw?["address"]?.stringValue
            ?? raw?["Store_addr_value"]?.arrayValue.map { $0.compactMap(\.stringValue).joined(separator: " ") }
            ?? json["vendorAddress"]?.stringValue
        if address?.isEmpty == true { address = nil }
    }

    /// The labelled items: TestReceipts' `lineItems` (an empty list is known: the receipt prints
    /// none), else WildReceipt's `raw.Prod_price_value` (nil when it labels none). A labelled price
    /// is read as it was transcribed, marks and tax codes around it dropped (`AED25.00`, `6,50TI`,
    /// `.99B`); a box with no digits is not an amount and is left out.
    static func items(_ json: JSONValue) -> [LabelledItem]? {
        if let lines = json["lineItems"]?.arrayValue {
            return lines.compactMap { line in
                line["amount"]?.decimalValue.map { LabelledItem(amount: $0, description: line["description"]?.stringValue) }
            }
        }
        guard let prices = json["raw"]?["Prod_price_value"]?.arrayValue?.compactMap(\.stringValue), !prices.isEmpty else {
            return nil
        }
        let names = json["raw"]?["Prod_item_value"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let paired = names.count == prices.count
        return prices.enumerated().compactMap { i, price in
            labelledAmount(price).map { LabelledItem(amount: $0, description: paired ? names[i] : nil) }
        }
    }

    /// A transcribed price's amount: the first run of digits and separators, read as `Money.parse`
    /// reads it (`3,10` is 3.10, `1,234.50` 1234.50).
    static func labelledAmount(_ text: String) -> Decimal? {
        guard let range = text.range(of: #"-?\d[\d.,]*\d|-?\.\d+|\d"#, options: .regularExpression) else { return nil }
        var digits = String(text[range])
        if digits.hasPrefix(".") { digits = "0" + digits }
        return Money.parse(digits)
    }

    private static func amount(_ value: JSONValue?, name: String, file: String) throws -> Decimal? {
        guard let value, !value.isNull else { return nil }
        guard let amount = value.decimalValue else {
            throw ReceiptError(.labels, file: file, "\(name) is not an amount (expected \"12.34\" or 12.34)")
        }
        return amount
    }
}

/// One labelled item: its amount and, where the labels pair them, its description.
public struct LabelledItem: Sendable, Equatable {
    public var amount: Decimal
    public var description: String?

    public init(amount: Decimal, description: String? = nil) {
        self.amount = amount
        self.description = description
    }
}

extension ReceiptError.Code {
    /// A labelled folder or one of its ground-truth files cannot be read or makes no sense.
    public static let labels = Self("labels")
}
