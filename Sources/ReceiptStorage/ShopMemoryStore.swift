import Foundation
import ReceiptModel

/// A remembered shop as people see and change it (`GET /v1/vendors`, `receipts vendors list`):
/// the person's name for it, its book, the keys it is known by, its category and how many
/// confirmed receipts taught it.
public struct RememberedVendor: Sendable, Equatable, Identifiable {
    public var id: UUID
    public var book: MemoryBook
    public var name: String
    /// The category a person set for it (`PATCH`, an import), else the one its confirmations agree on.
    public var category: String?
    /// Whether a person set the category (else it follows the confirmations).
    public var categorySet: Bool
    public var taxDeductiblePercentage: Decimal?
    public var currency: String?
    public var usualTaxRate: Decimal?
    /// Confirmed receipts that taught it.
    public var receipts: Int
    /// Its keys, each once.
    public var keys: [ShopKey]
    /// Made by an import of known merchants.
    public var imported: Bool
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: UUID, book: MemoryBook, name: String, category: String?, categorySet: Bool, taxDeductiblePercentage: Decimal?,
                currency: String?, usualTaxRate: Decimal?, receipts: Int, keys: [ShopKey], imported: Bool, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.book = book
        self.name = name
        self.category = category
        self.categorySet = categorySet
        self.taxDeductiblePercentage = taxDeductiblePercentage
        self.currency = currency
        self.usualTaxRate = usualTaxRate
        self.receipts = receipts
        self.keys = keys
        self.imported = imported
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// `{"id", "name", "book", "category", "keys": {"phone": ["…"]}, "receipts", …}`.
    public var json: JSONValue {
        var byKind: [(String, JSONValue)] = []
        for kind in ShopKeyKind.allCases {
            let values = keys.filter { $0.kind == kind }.map(\.value)
            if !values.isEmpty { byKind.append((kind.rawValue, .array(values.map(JSONValue.string)))) }
        }
        return .object([
            ("id", .string(id.uuidString.lowercased())),
            ("name", .string(name)),
            ("book", book.json),
            ("category", .optionalString(category)),
            ("categorySet", .bool(categorySet)),
            ("taxDeductiblePercentage", taxDeductiblePercentage.map(JSONValue.decimal) ?? .null),
            ("currency", .optionalString(currency)),
            ("usualTaxRate", usualTaxRate.map(JSONValue.decimal) ?? .null),
            ("receipts", .int(receipts)),
            ("keys", .object(byKind)),
            ("imported", .bool(imported)),
            ("createdAt", .string(createdAt.iso8601)),
            ("updatedAt", .string(updatedAt.iso8601)),
        ])
    }
}

/// A known merchant to import (`receipts vendors import FILE`: a fleet's fuel cards): its name and
/// what identifies it, and the category its receipts get.
public struct KnownMerchant: Sendable, Equatable {
    public var name: String
    public var taxId: String?
    public var phone: String?
    public var web: String?
    public var category: String?

    public init(name: String, taxId: String? = nil, phone: String? = nil, web: String? = nil, category: String? = nil) {
        self.name = name
        self.taxId = taxId
        self.phone = phone
        self.web = web
        self.category = category
    }

    /// The keys it is recognised by, normalized as a receipt's are (`ShopKeys`).
    public var keys: [ShopKey] {
        var identity = ShopIdentity()
        identity.taxId = taxId.map { IdentityField(value: $0, confidence: 1) }
        identity.phone = phone.map { IdentityField(value: $0, confidence: 1) }
        identity.web = web.map { IdentityField(value: Self.domain($0), confidence: 1) }
        return ShopKeys(identity: identity, printedName: name, header: nil).keys
    }

    /// `https://www.Shell.co.uk/stations` → `shell.co.uk`.
    public static func domain(_ text: String) -> String {
        var t = text.trimmingCharacters(in: .whitespaces).lowercased()
        for prefix in ["https://", "http://"] where t.hasPrefix(prefix) { t.removeFirst(prefix.count) }
        if t.hasPrefix("www.") { t.removeFirst(4) }
        return String(t.split(separator: "/").first ?? "")
    }
}

/// Changes to a remembered shop (`PATCH /v1/vendors/{id}`, `receipts vendors rename`).
public struct VendorChange: Sendable, Equatable {
    /// Its new name (non-blank, at most `ExpenseCorrection.maximumDescriptionLength` characters).
    public var name: String?
    /// Its category from now on (a taxonomy's name); `.some(nil)` lets its confirmations decide again.
    public var category: String??

    public init(name: String? = nil, category: String?? = nil) {
        self.name = name
        self.category = category
    }
}

/// The memory of shops in a store (issue 57): each book's remembered shops, their keys and what
/// each confirmed receipt taught. A store teaches it as people confirm expenses (`correct`) and
/// takes back what a receipt taught when it is deleted or its expense is put back to draft; these
/// are what people read and change of it. Every method names the books it may touch (nil: every
/// book, for an administrator); a shop outside them is answered as if it did not exist.
public protocol ShopMemoryStore: Sendable {
    /// The shops `book` remembers that `keys` point at (the analyzer's `ShopMemory`).
    func recall(_ keys: [ShopKey], in book: MemoryBook) async throws -> ShopRecall
    /// A page of the shops of `books`, by name (then id), after the shop `after`.
    func vendors(in books: [MemoryBook]?, after: UUID?, limit: Int) async throws -> [RememberedVendor]
    func vendor(id: UUID, in books: [MemoryBook]?) async throws -> RememberedVendor?
    /// Renames or re-categorizes a shop; `.invalidInput` when another shop of its book has the new
    /// name (merge them instead). Returns the shop as it is now.
    func changeVendor(id: UUID, _ change: VendorChange, in books: [MemoryBook]?, now: Date) async throws -> RememberedVendor
    /// Moves what `id` was taught (receipts, keys) to `target` of the same book and forgets `id`.
    func mergeVendor(id: UUID, into target: UUID, in books: [MemoryBook]?, now: Date) async throws -> RememberedVendor
    /// Forgets a shop and what it was taught (the receipts and expenses stay).
    func forgetVendor(id: UUID, in books: [MemoryBook]?) async throws
    /// Adds known merchants to `book`, all or none: a merchant whose name the book knows gets the
    /// keys and category given. Returns the shops made or changed.
    func importMerchants(_ merchants: [KnownMerchant], into book: MemoryBook, now: Date) async throws -> [RememberedVendor]
    /// The receipts whose confirmed expenses taught `id` (for `applyToPast`).
    func taughtReceipts(ofVendor id: UUID, in books: [MemoryBook]?) async throws -> [UUID]
}

extension ShopMemoryStore {
    /// One book's memory as the analyzer consults it.
    public func memory(of book: MemoryBook) -> any ShopMemory { StoredShopMemory(store: self, book: book) }
}

/// A store's memory of one book.
struct StoredShopMemory: ShopMemory {
    let store: any ShopMemoryStore
    let book: MemoryBook

    func recall(_ keys: [ShopKey]) async throws -> ShopRecall { try await store.recall(keys, in: book) }
}
