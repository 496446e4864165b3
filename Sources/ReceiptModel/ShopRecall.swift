import Foundation

/// What a book's memory recalls for a receipt's keys: each remembered shop some key points at,
/// with the keys that point at it and those of them that also point at another shop (ambiguous: a
/// payment processor's number, a mall's address). The analyzer weighs it (`memory.*` features).
public struct ShopRecall: Sendable, Equatable {
    public struct Match: Sendable, Equatable {
        public var shop: RememberedShop
        /// The kinds of the receipt's keys that point at this shop.
        public var keys: [ShopKeyKind]
        /// Those of them that point at another shop too: they no longer decide alone.
        public var ambiguous: [ShopKeyKind]
        /// The receipt's `name` keys (printed names) that point at this shop.
        public var names: [String]

        public init(shop: RememberedShop, keys: [ShopKeyKind], ambiguous: [ShopKeyKind], names: [String] = []) {
            self.shop = shop
            self.names = names.sorted()
            self.keys = keys.sorted()
            self.ambiguous = ambiguous.sorted()
        }

        /// The keys that point at this shop alone.
        public var deciding: [ShopKeyKind] { keys.filter { !ambiguous.contains($0) } }

        /// Ranks matches: shops recognised by more unambiguous strong keys, then more unambiguous
        /// keys, then more keys, then more confirmations.
        var rank: [Int] {
            [deciding.filter(\.isStrong).count, deciding.count, keys.count, shop.confirmations]
        }
    }

    /// Best first.
    public var matches: [Match]

    public init(matches: [Match] = []) {
        self.matches = matches.sorted { a, b in a.rank.lexicographicallyPrecedes(b.rank, by: >) || (a.rank == b.rank && a.shop.name < b.shop.name) }
    }

    public var best: Match? { matches.first }

    /// Gathers a recall from what a store read: for each (key, shop) pair found, the key's kind; and
    /// each shop's profile. A key found pointing at two shops or more is ambiguous.
    public init(pairs: [(key: ShopKey, shop: UUID)], shops: [UUID: RememberedShop]) {
        var shopsOfKey: [ShopKey: Set<UUID>] = [:]
        for pair in pairs { shopsOfKey[pair.key, default: []].insert(pair.shop) }
        // Per shop and kind: whether some key of that kind points at it alone.
        var byShop: [UUID: [ShopKeyKind: Bool]] = [:]
        for (key, ids) in shopsOfKey {
            for id in ids { byShop[id, default: [:]][key.kind] = (byShop[id]?[key.kind] ?? false) || ids.count == 1 }
        }
        self.init(matches: byShop.compactMap { id, kinds in
            let names = shopsOfKey.filter { $0.key.kind == .name && $0.value.contains(id) }.map(\.key.value)
            return shops[id].map { Match(shop: $0, keys: Array(kinds.keys), ambiguous: kinds.filter { !$0.value }.map(\.key), names: names) }
        })
    }
}

/// A book's memory of shops as the analyzer consults it (`AnalysisInput.memory`): the store's, or
/// `InMemoryShopMemory`. Recalls what the keys a receipt prints point at.
public protocol ShopMemory: Sendable {
    func recall(_ keys: [ShopKey]) async throws -> ShopRecall
}

/// What the memory did for one analysis: which shop it recognised and by which keys, how many
/// confirmations stand behind it, and which fields it settled. Records carry it as
/// `sources.vendor.memory` (`{"keys": ["phone", "name"], "confirmations": 4, …}`); a confirmation
/// of the receipt under this name teaches this shop.
public struct MemoryUse: Sendable, Equatable {
    public var vendorId: UUID
    /// The person's name for the shop.
    public var name: String
    public var keys: [ShopKeyKind]
    public var ambiguous: [ShopKeyKind]
    public var confirmations: Int
    /// The fields the memory gave or checked: `vendor`, `category`, `tax`, `currency`.
    public var settles: [String]
    /// The deduction the shop's confirmations agree on for the category it gave (drafted onto the expense).
    public var taxDeductiblePercentage: Decimal?

    public init(vendorId: UUID, name: String, keys: [ShopKeyKind], ambiguous: [ShopKeyKind] = [], confirmations: Int, settles: [String] = [],
                taxDeductiblePercentage: Decimal? = nil) {
        self.taxDeductiblePercentage = taxDeductiblePercentage
        self.vendorId = vendorId
        self.name = name
        self.keys = keys
        self.ambiguous = ambiguous
        self.confirmations = confirmations
        self.settles = settles
    }

    public var json: JSONValue {
        .object([
            ("vendorId", .string(vendorId.uuidString.lowercased())),
            ("name", .string(name)),
            ("keys", .array(keys.map { .string($0.rawValue) })),
            ("ambiguous", .array(ambiguous.map { .string($0.rawValue) })),
            ("confirmations", .int(confirmations)),
            ("settles", .array(settles.map(JSONValue.string))),
        ] + (taxDeductiblePercentage.map { [("taxDeductiblePercentage", JSONValue.decimal($0))] } ?? []))
    }

    public init?(json: JSONValue?) {
        guard let json, let id = json["vendorId"]?.stringValue.flatMap(UUID.init(uuidString:)), let name = json["name"]?.stringValue else { return nil }
        func kinds(_ key: String) -> [ShopKeyKind] { json[key]?.arrayValue?.compactMap { $0.stringValue.flatMap(ShopKeyKind.init(rawValue:)) } ?? [] }
        self.init(vendorId: id, name: name, keys: kinds("keys"), ambiguous: kinds("ambiguous"),
                  confirmations: Int(json["confirmations"]?.doubleValue ?? 0),
                  settles: json["settles"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                  taxDeductiblePercentage: json["taxDeductiblePercentage"]?.decimalValue)
    }
}
