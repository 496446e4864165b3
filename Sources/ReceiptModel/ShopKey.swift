import Foundation

/// What a remembered shop is recognised by (issue 57).
public enum ShopKeyKind: String, Sendable, CaseIterable, Comparable {
    case taxId, phone, web, address, postcode, storeNumber, name, header

    /// Keys one shop alone prints: its tax number, phone and web domain. The others (an address a
    /// mall shares, a chain's printed name, a store number) say less alone.
    public var isStrong: Bool { self == .taxId || self == .phone || self == .web }

    public static func < (a: ShopKeyKind, b: ShopKeyKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// One key of a shop, normalized so that two readings of the same print meet: `phone` /
/// `+60378051234`, `name` / `gardeniabakerieskl` (`NameMatching.normalized`).
public struct ShopKey: Sendable, Hashable, Comparable {
    public var kind: ShopKeyKind
    public var value: String

    public init(_ kind: ShopKeyKind, _ value: String) {
        self.kind = kind
        self.value = value
    }

    public static func < (a: ShopKey, b: ShopKey) -> Bool { (a.kind, a.value) < (b.kind, b.value) }
}

/// A receipt's shop keys and how it prints its fields (`ShopLayout`): the analysis's `shop` object,
/// `{"keys": {"phone": "+60…", "name": "…"}, "layout": {…}}`. What a confirmation teaches the memory
/// and what a new receipt is looked up by; the same purchase twice is found by them too.
public struct ShopKeys: Sendable, Equatable {
    public var keys: [ShopKey]

    public init(_ keys: [ShopKey] = []) {
        var seen = Set<ShopKey>()
        self.keys = keys.filter { !$0.value.isEmpty && seen.insert($0).inserted }
    }

    /// The keys of what a receipt prints: its identity fields, the name as printed (`printedName`)
    /// and the fingerprint of its header rows.
    public init(identity: ShopIdentity, printedName: String?, header: String?) {
        var keys: [ShopKey] = []
        if let id = identity.taxId?.value { keys.append(ShopKey(.taxId, Self.alphanumeric(id).uppercased())) }
        // A phone by its last nine digits: the same number whether or not the receipt said its
        // country (`+34918539389`, `918539389`).
        if let phone = identity.phone?.value {
            let digits = phone.filter { $0.isASCII && $0.isNumber }
            if digits.count >= 7 { keys.append(ShopKey(.phone, String(digits.suffix(9)))) }
        }
        if let web = identity.web?.value { keys.append(ShopKey(.web, web.lowercased())) }
        if let address = identity.address?.value {
            let key = Self.alphanumeric(address).uppercased()
            if key.count >= 8 { keys.append(ShopKey(.address, String(key.prefix(80)))) }
        }
        if let postcode = identity.postcode { keys.append(ShopKey(.postcode, Self.alphanumeric(postcode).uppercased())) }
        let name = printedName.map(NameMatching.normalized) ?? ""
        if name.count >= 3 {
            keys.append(ShopKey(.name, String(name.prefix(80))))
            // A branch's number says which branch of this name (store 12 of one chain is not another's).
            if let store = identity.storeNumber?.value { keys.append(ShopKey(.storeNumber, "\(name.prefix(40))#\(store)")) }
        }
        if let header, !header.isEmpty { keys.append(ShopKey(.header, header)) }
        self.init(keys)
    }

    public subscript(kind: ShopKeyKind) -> String? { keys.first { $0.kind == kind }?.value }

    public var isEmpty: Bool { keys.isEmpty }

    /// Letters and digits of `text`.
    static func alphanumeric(_ text: String) -> String {
        String(text.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    /// `{"taxId": "…", "phone": "…"}`, in `ShopKeyKind`'s order.
    public var json: JSONValue {
        .object(keys.sorted().map { ($0.kind.rawValue, .string($0.value)) })
    }

    public init(json: JSONValue?) {
        self.init((json?.objectValue ?? []).compactMap { name, value in
            guard let kind = ShopKeyKind(rawValue: name), let text = value.stringValue else { return nil }
            return ShopKey(kind, text)
        })
    }
}

/// How a shop prints its fields, as read on one receipt: for each of the likeliest totals the
/// label of the row printing it (`TOTAL ROUNDED`), and for each of the likeliest dates the shape
/// of its row (`DATE 99/99/9999 99:99`). Once a person confirms the receipt, the confirmed total's
/// label and date's row are what the shop is remembered to print (`ShopLesson.layout`), and a
/// later receipt's candidates on such rows are weighed with that (`memory.totalRow`, `memory.dateRow`).
public struct ShopLayout: Sendable, Equatable {
    /// Amount (`30.90`) → the labels of the rows printing it.
    public var totals: [(value: String, labels: [String])]
    /// Date (`2018-11-18`) → the shapes of the rows printing it.
    public var dates: [(value: String, rows: [String])]

    public init(totals: [(value: String, labels: [String])] = [], dates: [(value: String, rows: [String])] = []) {
        self.totals = totals
        self.dates = dates
    }

    public static func == (a: ShopLayout, b: ShopLayout) -> Bool { a.json == b.json }

    public var isEmpty: Bool { totals.isEmpty && dates.isEmpty }

    /// The labels of the rows printing `amount`, if it was among the receipt's likeliest totals.
    public func totalLabels(_ amount: Decimal) -> [String] {
        totals.first { Decimal(string: $0.value) == amount }?.labels ?? []
    }

    public func dateRows(_ date: CalendarDate) -> [String] {
        dates.first { $0.value == date.description }?.rows ?? []
    }

    public var json: JSONValue {
        .object([
            ("totals", .object(totals.map { ($0.value, .array($0.labels.map(JSONValue.string))) })),
            ("dates", .object(dates.map { ($0.value, .array($0.rows.map(JSONValue.string))) })),
        ])
    }

    public init(json: JSONValue?) {
        func pairs(_ key: String) -> [(String, [String])] {
            (json?[key]?.objectValue ?? []).map { ($0.0, $0.1.arrayValue?.compactMap(\.stringValue) ?? []) }
        }
        self.init(totals: pairs("totals").map { (value: $0.0, labels: $0.1) }, dates: pairs("dates").map { (value: $0.0, rows: $0.1) })
    }
}
