import Crypto
import Foundation
import ReceiptModel

/// An API token as listed: its name and dates, never its secret.
public struct APIToken: Sendable, Equatable {
    public var name: String
    public var createdAt: Date
    public var revokedAt: Date?

    public init(name: String, createdAt: Date, revokedAt: Date?) {
        self.name = name
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    /// A new secret: `rcp_` and 32 random bytes, base64url.
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return "rcp_" + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// What a store keeps of a secret: its SHA-256, lowercase hex.
    public static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// What `receipts serve` keeps beside the receipts: API tokens (only the SHA-256 of each secret)
/// and idempotency keys. A store that serves HTTP conforms.
public protocol ServerStore: ReceiptStore {
    /// Creates a token named `name`; returns its secret, which is not kept (only its hash).
    /// Throws `.invalidState` when the name is taken.
    func createToken(name: String, now: Date) async throws -> String
    func tokens() async throws -> [APIToken]
    /// Revokes the token; throws `.notFound` for an unknown name.
    func revokeToken(name: String, now: Date) async throws -> APIToken
    /// The name of the active (not revoked) token whose secret this is, or nil.
    func activeToken(secret: String) async throws -> String?
    /// Whether any token is active: then every `/v1` route needs one.
    func hasActiveTokens() async throws -> Bool
    /// The receipt an idempotency key was first used for, or nil.
    func receiptId(idempotencyKey: String) async throws -> UUID?
    /// Remembers `key` for `receiptId`; when the key is already taken, returns the receipt it names.
    func remember(idempotencyKey: String, receiptId: UUID, now: Date) async throws -> UUID
    /// Deletes the receipt, its drafted expense and its idempotency keys; returns the path of its
    /// image copy when no other receipt uses it (the caller removes the file). `.notFound` when unknown.
    func deleteReceipt(id: UUID) async throws -> String?
    /// Saves a person's changes to an expense: `expense` as corrected, and per changed field what
    /// the analyzer had drafted (kept from the first correction on). Returns the corrections.
    func correct(_ expense: Expense, changed: [(field: String, drafted: JSONValue)], now: Date) async throws -> JSONValue
    /// The corrections of an expense (an empty object when none).
    func corrections(ofExpense id: UUID) async throws -> JSONValue
}
