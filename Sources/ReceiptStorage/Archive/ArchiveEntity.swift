import Foundation
import ReceiptModel

/// What an archive (`receipts store export --archive`) and a backup hold, entity by entity: the ONE
/// list of what is exported. Each entity is a JSON-lines file (`data/<name>.jsonl`, one object per
/// row, its fields by their names below) read and written the same way by every store; a store
/// maps an entity to its table in one line of its own (`SQLiteArchiveTables`,
/// `PostgresArchiveTables`). docs/backup.md says how to add one.
///
/// Field names are the SQLite store's column names (PostgreSQL's are the same in snake_case unless
/// its table says otherwise). Values are JSON: text, numbers (integers), booleans, timestamps as
/// UTC `YYYY-MM-DDTHH:MM:SS.ffffffZ`, receipt dates `YYYY-MM-DD`, money and percentages as exact
/// decimal text, ids as lowercase UUIDs, an image as the SHA-256 of its bytes (its file is
/// `images/<first two>/<sha256>` beside the rows).
public struct ArchiveEntity: Sendable {
    /// `receipts`: the file `data/receipts.jsonl`.
    public var name: String
    public var fields: [ArchiveField]
    /// The fields that name a row (a primary key): a restore into an empty store replaces the
    /// store's own row of that name (the `admin` every store is made with); `--merge` skips a row
    /// whose key is there already. Empty: rows have no name (they come with their parent).
    public var key: [String]
    /// Other ways a row can be there already (unique in the store): `--merge` skips a row that
    /// matches one of them too (a receipt of the same bytes for the same owner and end user).
    /// A null in such a key counts as the empty text; a key with a null in its last field is no match.
    public var alsoThere: [[String]] = []
    /// A row belongs to the row of another entity its field names (by that entity's one-field key):
    /// when `--merge` skips the parent, the row is skipped with it.
    public var parents: [(field: String, entity: String)] = []
    /// Rows this store makes itself when it is new (the `admin` user): they do not make a store
    /// non-empty.
    public var madeByEveryStore: [[String: JSONValue]] = []
    /// Changes a row as a restore reads it (a receipt a worker held comes back pending).
    public var adjust: (@Sendable (inout [String: JSONValue]) -> Void)?

    public var file: String { "data/\(name).jsonl" }

    public func field(_ name: String) -> ArchiveField? { fields.first { $0.name == name } }
}

/// One field of an entity.
public struct ArchiveField: Sendable {
    public enum Kind: Sendable, Equatable {
        case text
        case integer
        case boolean
        /// A moment: UTC `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
        case timestamp
        /// A calendar date `YYYY-MM-DD`.
        case date
        /// Exact decimal text.
        case decimal
        /// A lowercase UUID.
        case uuid
        /// A JSON array of strings.
        case textList
        /// Bytes kept in the row itself (a passkey's public key): base64 text.
        case bytes
        /// The SHA-256 of bytes kept in the store's image repository (where the store keeps a
        /// reference, the archive keeps the hash and the bytes).
        case image
    }

    public var name: String
    public var kind: Kind
    /// Written once every row is in (it names another row of the same entity, which may come later).
    public var deferred = false
    /// The value when an older archive has no such field.
    public var missing: JSONValue = .null

    public init(_ name: String, _ kind: Kind, deferred: Bool = false, missing: JSONValue = .null) {
        self.name = name
        self.kind = kind
        self.deferred = deferred
        self.missing = missing
    }
}

/// The entities in the order they are written and restored: whatever a row names comes before it.
public enum ArchiveEntities {
    /// The archive format this build writes; it reads this one and every older one.
    public static let version = 1

    public static let all: [ArchiveEntity] = [
        ArchiveEntity(name: "groups", fields: [.init("name", .text), .init("createdAt", .timestamp)], key: ["name"]),
        ArchiveEntity(name: "users", fields: [
            .init("name", .text), .init("isAdmin", .boolean, missing: .bool(false)), .init("defaultGroup", .text),
            .init("createdAt", .timestamp),
        ], key: ["name"], madeByEveryStore: [["name": .string(Ownership.defaultAdmin)]]),
        // How people sign in: a password's Argon2id hash (never the password), passkeys (their public
        // keys) and invitations not yet used. Sessions and WebAuthn challenges do not come along:
        // people sign in again on the restored store.
        ArchiveEntity(name: "passwords", fields: [.init("userName", .text), .init("hash", .text), .init("updatedAt", .timestamp)],
                      key: ["userName"]),
        ArchiveEntity(name: "passkeys", fields: [
            .init("id", .text), .init("userName", .text), .init("userHandle", .text), .init("name", .text), .init("publicKey", .bytes),
            .init("algorithm", .integer), .init("signCount", .integer), .init("createdAt", .timestamp), .init("lastUsedAt", .timestamp),
        ], key: ["id"]),
        ArchiveEntity(name: "invitations", fields: [
            .init("id", .text), .init("secretHash", .text), .init("userName", .text), .init("createdBy", .text),
            .init("createdAt", .timestamp), .init("expiresAt", .timestamp), .init("usedAt", .timestamp), .init("revokedAt", .timestamp),
        ], key: ["id"], alsoThere: [["secretHash"]]),
        ArchiveEntity(name: "group_members", fields: [.init("groupName", .text), .init("userName", .text), .init("role", .text)],
                      key: ["groupName", "userName"]),
        // A token's secret is never kept, only its SHA-256: a restored token signs in with the secret its holder has.
        ArchiveEntity(name: "tokens", fields: [
            .init("name", .text), .init("userName", .text, missing: .string(Ownership.defaultAdmin)), .init("secretHash", .text),
            .init("createdAt", .timestamp), .init("revokedAt", .timestamp), .init("scopes", .text, missing: .string("admin")),
            .init("expiresAt", .timestamp), .init("lastUsedAt", .timestamp), .init("rateLimitRequests", .integer),
            .init("rateLimitSeconds", .integer),
        ], key: ["name"], alsoThere: [["secretHash"]]),
        ArchiveEntity(name: "webhook_subscriptions", fields: [
            .init("id", .uuid), .init("userName", .text), .init("externalUser", .text), .init("url", .text), .init("secret", .text),
            .init("createdAt", .timestamp),
        ], key: ["id"]),
        ArchiveEntity(name: "receipts", fields: [
            .init("id", .uuid), .init("filePath", .text), .init("contentHash", .text), .init("uploadTimestamp", .timestamp),
            .init("ocrStatus", .text), .init("ocrResultJson", .text), .init("ocrText", .text), .init("analyzer", .text),
            .init("attempts", .integer, missing: .number("0")), .init("lastError", .text), .init("createdAt", .timestamp),
            .init("updatedAt", .timestamp), .init("isUploaded", .boolean, missing: .bool(false)), .init("expenseId", .uuid),
            .init("image", .image), .init("notBefore", .timestamp), .init("owner", .text, missing: .string(Ownership.defaultAdmin)),
            .init("groupName", .text), .init("externalUser", .text), .init("metadata", .text), .init("source", .text),
        ], key: ["id"], alsoThere: [["owner", "externalUser", "contentHash"]], adjust: { row in
            // A worker's hold does not come along: the receipt waits for a worker again.
            if row["ocrStatus"] == .string(OCRStatus.processing.rawValue) { row["ocrStatus"] = .string(OCRStatus.pending.rawValue) }
        }),
        // A receipt photographed in several pictures (schema `pictures`): a row per picture, in order;
        // the first is also the receipt's `image`. A receipt of one picture has none.
        ArchiveEntity(name: "receipt_pictures", fields: [
            .init("receiptId", .uuid), .init("position", .integer), .init("name", .text), .init("contentHash", .text),
            .init("image", .image),
        ], key: ["receiptId", "position"], parents: [("receiptId", "receipts")]),
        ArchiveEntity(name: "expenses", fields: [
            .init("id", .uuid), .init("receiptId", .uuid), .init("date", .date), .init("amount", .decimal), .init("currency", .text),
            .init("taxAmount", .decimal), .init("category", .text), .init("description", .text), .init("isTaxDeductible", .boolean),
            .init("taxDeductiblePercentage", .decimal), .init("creationMethod", .text, missing: .string("ocr")),
            .init("status", .text, missing: .string("draft")), .init("needsReview", .boolean),
            .init("possibleDuplicateOf", .uuid, deferred: true), .init("isUploaded", .boolean, missing: .bool(false)),
            .init("lastModified", .timestamp), .init("corrections", .text), .init("confirmedBy", .text),
        ], key: ["id"], parents: [("receiptId", "receipts")]),
        // Who changed an expense, when, and which fields (oldest first).
        ArchiveEntity(name: "expense_changes", fields: [
            .init("expenseId", .uuid), .init("at", .timestamp), .init("userName", .text), .init("tokenName", .text),
            .init("fields", .textList), .init("confirmed", .boolean),
        ], key: [], parents: [("expenseId", "expenses")]),
        // The memory of shops (schema `shop-memory`): each book's shops, what each confirmed receipt
        // taught (with its receipt), and the keys lessons and imports taught.
        ArchiveEntity(name: "shop_vendors", fields: [
            .init("id", .uuid), .init("book", .text), .init("name", .text), .init("nameKey", .text), .init("category", .text),
            .init("taxDeductiblePercentage", .decimal), .init("imported", .boolean, missing: .bool(false)), .init("createdAt", .timestamp),
            .init("updatedAt", .timestamp),
        ], key: ["id"], alsoThere: [["book", "nameKey"]]),
        ArchiveEntity(name: "shop_lessons", fields: [
            .init("receiptId", .uuid), .init("vendorId", .uuid), .init("taughtName", .text), .init("category", .text),
            .init("taxDeductiblePercentage", .decimal), .init("currency", .text), .init("taxRate", .decimal),
            .init("totalLabels", .textList, missing: .array([])), .init("dateRows", .textList, missing: .array([])),
            .init("confirmedAt", .timestamp),
        ], key: ["receiptId"], parents: [("receiptId", "receipts"), ("vendorId", "shop_vendors")]),
        ArchiveEntity(name: "shop_keys", fields: [
            .init("book", .text), .init("kind", .text), .init("value", .text), .init("vendorId", .uuid), .init("receiptId", .uuid),
        ], key: [], parents: [("vendorId", "shop_vendors"), ("receiptId", "shop_lessons")]),
        ArchiveEntity(name: "idempotency_keys", fields: [
            .init("owner", .text), .init("externalUser", .text, missing: .string("")), .init("key", .text), .init("fingerprint", .text),
            .init("receiptId", .uuid), .init("createdAt", .timestamp),
        ], key: ["owner", "externalUser", "key"], parents: [("receiptId", "receipts")]),
        // The webhook outbox: what was delivered, what waits, what is dead (a lease does not come along).
        ArchiveEntity(name: "webhook_events", fields: [
            .init("id", .uuid), .init("receiptId", .uuid), .init("type", .text), .init("body", .text), .init("createdAt", .timestamp),
            .init("pendingSince", .timestamp), .init("attempts", .integer, missing: .number("0")), .init("nextAttemptAt", .timestamp),
            .init("lastError", .text), .init("deliveredAt", .timestamp), .init("deadAt", .timestamp), .init("subscriptionId", .uuid),
        ], key: ["id"]),
        ArchiveEntity(name: "settings", fields: [.init("name", .text), .init("value", .text)], key: ["name"]),
        ArchiveEntity(name: "mail_messages", fields: [
            .init("id", .uuid), .init("mailbox", .text), .init("uidValidity", .integer), .init("uid", .integer), .init("messageId", .text),
            .init("sha256", .text), .init("owner", .text, missing: .string(Ownership.defaultAdmin)),
            .init("externalUser", .text, missing: .string("")), .init("sender", .text), .init("subject", .text), .init("sentDate", .text),
            .init("eml", .image), .init("state", .text), .init("receiptIds", .text, missing: .string("")), .init("note", .text),
            .init("receivedAt", .timestamp), .init("filedAt", .timestamp), .init("doneAt", .timestamp),
        ], key: ["id"], alsoThere: [["owner", "externalUser", "sha256"], ["mailbox", "uidValidity", "uid"]]),
        // Each IMAP mailbox's UIDVALIDITY and the last UID read (its watermark).
        ArchiveEntity(name: "mailboxes", fields: [
            .init("mailbox", .text), .init("uidValidity", .integer), .init("lastUid", .integer), .init("updatedAt", .timestamp),
        ], key: ["mailbox"]),
    ]

    public static func named(_ name: String) -> ArchiveEntity? { all.first { $0.name == name } }
}

/// Conversions between the archive's values and what stores keep.
public enum ArchiveValue {
    /// `2024-05-01 10:00:00.123` (GRDB's UTC text) or any ISO 8601 UTC form → `2024-05-01T10:00:00.123000Z`.
    public static func timestamp(fromStored text: String) -> String {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix("Z") { t.removeLast() }
        if t.hasSuffix("+00:00") { t.removeLast(6) }
        t = t.replacingOccurrences(of: " ", with: "T")
        var fraction = ""
        if let dot = t.firstIndex(of: ".") {
            fraction = String(t[t.index(after: dot)...])
            t = String(t[..<dot])
        }
        if t.count == 16 { t += ":00" }   // no seconds
        if t.count == 10 { t += "T00:00:00" }
        fraction = String((fraction + "000000").prefix(6))
        return t + "." + fraction + "Z"
    }

    /// `2024-05-01T10:00:00.123456Z` → `2024-05-01 10:00:00.123` (GRDB's UTC text, milliseconds).
    public static func sqliteTimestamp(_ text: String) -> String {
        let canonical = timestamp(fromStored: text)
        let dot = canonical.firstIndex(of: ".")!
        let seconds = canonical[..<dot].replacingOccurrences(of: "T", with: " ")
        return seconds + "." + canonical[canonical.index(after: dot)...].prefix(3)
    }

    /// The SHA-256 a store's image reference names (`…/ab/<hash>`, `postgres-image:<hash>`), or nil.
    public static func imageHash(ofReference reference: String) -> String? {
        let last = reference.split(whereSeparator: { $0 == "/" || $0 == ":" }).last.map(String.init) ?? reference
        return isHash(last) ? last : nil
    }

    public static func isHash(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Where an image lives in an archive or a backup's image folder.
    public static func imagePath(_ hash: String) -> String { "images/\(hash.prefix(2))/\(hash)" }
}
