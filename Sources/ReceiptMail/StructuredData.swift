import Foundation
import ReceiptKit

/// schema.org `Order` and `Invoice` data in an e-receipt, read as the sender wrote it: the seller
/// (`seller`, `merchant`, `provider`, `broker`: its `name`), the date (`orderDate`, or the
/// `referencesOrder`'s, or `dateCreated`; a calendar date as written, never moved through a time
/// zone), the total (`price`, `totalPrice`, `totalPaymentDue`, `priceSpecification`: `price` or
/// `value`), the currency (`priceCurrency`) and the tax (`totalTax`, `tax`, `taxAmount`).
enum StructuredData {
    static let kinds = ["Order", "Invoice"]

    /// The first `Order` or `Invoice` of a JSON-LD block (at its top, in an array or in `@graph`).
    static func fields(jsonLD text: String) -> EReceipt.StructuredFields? {
        guard let json = try? JSONValue.parse(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        return candidates(json).lazy.compactMap { fields($0, from: "json-ld") }.first
    }

    static func fields(microdata item: JSONValue) -> EReceipt.StructuredFields? {
        fields(item, from: "microdata")
    }

    private static func candidates(_ json: JSONValue) -> [JSONValue] {
        if let array = json.arrayValue { return array.flatMap(candidates) }
        guard json.objectValue != nil else { return [] }
        var found = [json]
        if let graph = json["@graph"] { found += candidates(graph) }
        return found
    }

    /// `Order`, `schema:Order`, `https://schema.org/Order`, or an array holding one of them.
    static func kind(_ json: JSONValue) -> String? {
        let types = json["@type"].map { $0.arrayValue ?? [$0] } ?? []
        for type in types.compactMap(\.stringValue) {
            let last = type.split(whereSeparator: { $0 == "/" || $0 == ":" || $0 == "#" }).last.map(String.init) ?? type
            if kinds.contains(last) { return last }
        }
        return nil
    }

    private static func fields(_ json: JSONValue, from origin: String) -> EReceipt.StructuredFields? {
        guard let kind = kind(json) else { return nil }
        var fields = EReceipt.StructuredFields(kind: "\(kind) (\(origin))")
        fields.vendor = ["seller", "merchant", "provider", "broker"].lazy.compactMap { name(json[$0]) }.first
        fields.date = ["orderDate", "dateCreated"].lazy.compactMap { date(json[$0]) }.first
            ?? json["referencesOrder"].flatMap { date($0["orderDate"]) }
        let totals = ["price", "totalPrice", "totalPaymentDue", "priceSpecification"].compactMap { json[$0] }
        fields.total = totals.lazy.compactMap(amount).first
        fields.currency = ([json["priceCurrency"]] + totals.map { $0["priceCurrency"] }).lazy
            .compactMap { $0?.stringValue?.trimmingCharacters(in: .whitespaces).uppercased() }
            .first { $0.count == 3 && $0.allSatisfy(\.isLetter) }
        fields.tax = ["totalTax", "tax", "taxAmount"].lazy.compactMap { json[$0] }.compactMap(amount).first
        return fields.isEmpty ? nil : fields
    }

    private static func name(_ value: JSONValue?) -> String? {
        guard let value else { return nil }
        let text = value.stringValue ?? value["name"]?.stringValue ?? value["legalName"]?.stringValue
        let clean = text.map(RowBuilder.clean)
        return clean?.isEmpty == false ? clean : nil
    }

    /// `2025-06-03`, `2025-06-03T08:41:00+01:00`: the calendar date as written.
    private static func date(_ value: JSONValue?) -> CalendarDate? {
        guard let text = value?.stringValue?.trimmingCharacters(in: .whitespaces), text.count >= 10 else { return nil }
        return CalendarDate(iso: String(text.prefix(10)))
    }

    /// A number, a plain decimal string (`"12.50"`), or an object with `price` or `value`.
    private static func amount(_ value: JSONValue) -> Decimal? {
        switch value {
        case let .number(text):
            return try? Money.amount(jsonNumber: text)
        case let .string(text):
            return try? Money.amount(text.trimmingCharacters(in: .whitespaces))
        case .object:
            return (value["price"] ?? value["value"]).flatMap(amount)
        case let .array(items):
            return items.lazy.compactMap(amount).first
        default:
            return nil
        }
    }
}

/// schema.org microdata as JSON: an `itemscope` element's `itemprop`s (their `content`,
/// `datetime` or `value` attribute, else their text), a nested `itemscope` as an object.
enum Microdata {
    static func item(_ node: HTMLReceiptReader.Node) -> JSONValue {
        var pairs: [(String, JSONValue)] = []
        if let type = HTMLReceiptReader.attribute(node, "itemtype") { pairs.append(("@type", .string(type))) }
        for child in HTMLReceiptReader.children(node) { properties(child, into: &pairs) }
        return .object(pairs)
    }

    private static func properties(_ node: HTMLReceiptReader.Node, into pairs: inout [(String, JSONValue)]) {
        guard HTMLReceiptReader.name(node) != nil else { return }
        let isItem = HTMLReceiptReader.hasAttribute(node, "itemscope")
        if let names = HTMLReceiptReader.attribute(node, "itemprop") {
            let value: JSONValue = isItem ? item(node) : .string(RowBuilder.clean(
                HTMLReceiptReader.attribute(node, "content") ?? HTMLReceiptReader.attribute(node, "datetime")
                    ?? HTMLReceiptReader.attribute(node, "value") ?? HTMLReceiptReader.textContent(node)))
            for name in names.split(separator: " ") where !pairs.contains(where: { $0.0 == String(name) }) {
                pairs.append((String(name), value))
            }
        }
        // A nested item's properties are its own.
        guard !isItem else { return }
        for child in HTMLReceiptReader.children(node) { properties(child, into: &pairs) }
    }
}
