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

/// What an idempotency key stands for when a request comes with it.
public enum IdempotencyClaim: Sendable, Equatable {
    /// The key was free: it now stands for this request's fingerprint. Bind it to the receipt made
    /// (`bindIdempotencyKey`), or release it when none was made.
    case claimed
    /// The key was used before, by a request with `fingerprint`, for `receiptId` (nil while that
    /// request is still storing its receipt).
    case taken(fingerprint: String, receiptId: UUID?)
}

/// What `receipts serve` keeps beside the receipts: API tokens (only the SHA-256 of each secret)
/// and idempotency keys. A store that serves HTTP conforms.
public protocol ServerStore: ReceiptStore {
    /// Creates a token named `name`; returns its secret, which is not kept (only its hash).
    /// Throws `.invalidState` when an active token has the name; a revoked token's name may be
    /// used again (the revoked token is forgotten).
    func createToken(name: String, now: Date) async throws -> String
    func tokens() async throws -> [APIToken]
    /// Revokes the token; throws `.notFound` for an unknown name.
    func revokeToken(name: String, now: Date) async throws -> APIToken
    /// The name of the active (not revoked) token whose secret this is, or nil.
    func activeToken(secret: String) async throws -> String?
    /// Whether any token is active: then every `/v1` route needs one.
    func hasActiveTokens() async throws -> Bool
    /// Takes `key` for a request whose content has `fingerprint` (the SHA-256 of the image bytes),
    /// or says what the key already stands for. One statement: of concurrent requests with one
    /// key, exactly one gets `.claimed`.
    func claimIdempotencyKey(_ key: String, fingerprint: String, now: Date) async throws -> IdempotencyClaim
    /// Records the receipt a claimed key's request made.
    func bindIdempotencyKey(_ key: String, receiptId: UUID) async throws
    /// Frees a key claimed for `fingerprint` whose request made no receipt (it was refused).
    func releaseIdempotencyKey(_ key: String, fingerprint: String) async throws
    /// Deletes the receipt, its drafted expense and its idempotency keys; returns the path of its
    /// image copy when no other receipt uses it (the caller removes the file). `.notFound` when
    /// unknown; `.invalidState` when its expense is confirmed (a person's record) and not `force`.
    func deleteReceipt(id: UUID, force: Bool) async throws -> String?
    /// Saves a person's changes to an expense: `expense` as corrected, and per changed field what
    /// the analyzer had drafted (kept from the first correction on). Returns the corrections.
    /// With `expectedVersion`, only when the stored expense's `etag` is still that one (checked in
    /// the same transaction), else `.preconditionFailed`.
    func correct(_ expense: Expense, changed: [(field: String, drafted: JSONValue)], now: Date,
                 expectedVersion: String?) async throws -> JSONValue
    /// The corrections of an expense (an empty object when none).
    func corrections(ofExpense id: UUID) async throws -> JSONValue
}

extension Expense {
    /// A strong HTTP entity tag of the expense as the API shows it (`"…"`, 16 hex digits of the
    /// SHA-256 of its JSON): it changes whenever any field does. `If-Match` compares with it.
    public var etag: String {
        let digest = SHA256.hash(data: Data(json.serialized().utf8))
        return "\"" + digest.prefix(8).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// Whether an `If-Match` value (`*`, or a comma-separated list of entity tags) names this
    /// version. A weak tag (`W/"…"`) never matches (RFC 9110's strong comparison).
    public func matches(ifMatch: String) -> Bool {
        let value = ifMatch.trimmingCharacters(in: .whitespaces)
        if value == "*" { return true }
        let tag = etag
        return value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == tag }
    }
}
