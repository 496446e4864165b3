import Crypto
import Foundation
import ReceiptModel
import ReceiptStorage

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
/// and idempotency keys. A store that serves HTTP conforms: `SQLiteReceiptStore` here, and
/// `PostgresReceiptStore` in ReceiptPostgres (beside its other queries). Their tables are part of
/// each store's schema (one schema per database); the queries and this protocol are the server's.
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

    // MARK: Webhook outbox (see `WebhookEvent`)

    /// Turns webhooks on or off for every process using the store: while on, the store writes an
    /// event with each receipt that finishes. Turning them off writes no more; events not delivered
    /// stay (a sender still delivers them).
    func setWebhooksEnabled(_ enabled: Bool) async throws
    func webhooksEnabled() async throws -> Bool
    /// Atomically takes up to `limit` due pending events (oldest first) that no other sender holds:
    /// `attempts + 1`, leased to `lease.owner` until `lease.expiresAt`. Of concurrent claims on any
    /// number of hosts, no two return the same event while its lease lasts.
    func claimWebhookEvents(_ lease: Lease, limit: Int) async throws -> [WebhookEvent]
    /// Records a 2xx answer. False when the event was already delivered (by another sender whose
    /// lease it took over) or is unknown.
    func markWebhookDelivered(id: UUID, now: Date) async throws -> Bool
    /// Records a failed attempt of an event this owner holds: pending again until `retryAt`, or
    /// dead (a dead letter) when `retryAt` is nil. False when the lease was lost.
    func markWebhookFailed(id: UUID, owner: String, error: String, retryAt: Date?, now: Date) async throws -> Bool
    /// The earliest time a pending event becomes due (its next attempt, or the end of a lease
    /// another sender holds on it); nil when none is pending.
    func nextWebhookAttempt() async throws -> Date?
    /// Events in `state` (every state when nil), newest first.
    func webhookEvents(state: WebhookEvent.State?, limit: Int?) async throws -> [WebhookEvent]
    func webhookEvent(id: UUID) async throws -> WebhookEvent?
    /// Number of events in each state.
    func webhookEventCounts() async throws -> [WebhookEvent.State: Int]
    /// Makes a dead or pending event due now, its attempts and its dead-letter time starting over.
    /// `.notFound` for an unknown id, `.invalidState` for a delivered event.
    func retryWebhookEvent(id: UUID, now: Date) async throws -> WebhookEvent
    /// Makes every dead event due now; returns them.
    func retryDeadWebhookEvents(now: Date) async throws -> [WebhookEvent]
}
