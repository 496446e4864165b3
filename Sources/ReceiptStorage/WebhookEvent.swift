import Foundation
import ReceiptModel

/// One event of the webhook outbox: a receipt reached `completed` or failed for good, and its record
/// is to be POSTed to the webhook receiver.
///
/// While webhooks are on in a store (`receipts serve --webhook` turns them on, `receipts webhooks
/// disable` off), the store writes an event in the same transaction that completes or finally fails
/// a receipt, whichever process or host does it, so no finished receipt is without its event. The
/// sender of `receipts serve --webhook` delivers them at least once; `id` is sent as the
/// `Receipts-Delivery-Id` header, the same on every attempt, so a receiver drops duplicates by it.
public struct WebhookEvent: Sendable, Equatable {
    public enum State: String, Sendable, CaseIterable {
        /// Not delivered yet: due at `nextAttemptAt`.
        case pending
        /// A 2xx answer was received.
        case delivered
        /// Given up after the sender's `--webhook-dead-after` (a dead letter; `receipts webhooks retry`).
        case dead
    }

    public static let completedType = "receipt.completed"
    public static let failedType = "receipt.failed"

    public var id: UUID
    public var receiptId: UUID
    /// The user's webhook it is for; nil: the server-wide one (`receipts serve --webhook`).
    public var subscriptionId: UUID?
    /// `receipt.completed` or `receipt.failed`.
    public var type: String
    /// What is POSTed: the receipt's NDJSON record (`ReceiptRecord`) as it was when it finished.
    public var body: String
    public var createdAt: Date
    /// Since when it has waited to be delivered: its creation, or the last `retry` (the dead-letter
    /// time counts from here).
    public var pendingSince: Date
    /// Attempts made (each claim counts one).
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    public var deliveredAt: Date?
    public var deadAt: Date?

    public init(id: UUID = UUID(), receiptId: UUID, subscriptionId: UUID? = nil, type: String, body: String, createdAt: Date,
                pendingSince: Date? = nil, attempts: Int = 0, nextAttemptAt: Date? = nil, lastError: String? = nil,
                deliveredAt: Date? = nil, deadAt: Date? = nil) {
        self.id = id
        self.subscriptionId = subscriptionId
        self.receiptId = receiptId
        self.type = type
        self.body = body
        self.createdAt = createdAt
        self.pendingSince = pendingSince ?? createdAt
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt ?? createdAt
        self.lastError = lastError
        self.deliveredAt = deliveredAt
        self.deadAt = deadAt
    }

    /// The event of a receipt that just finished (completed, with its expense, or failed for good).
    public init(finished receipt: Receipt, expense: Expense?, subscriptionId: UUID? = nil, now: Date) {
        self.init(receiptId: receipt.id, subscriptionId: subscriptionId, type: receipt.ocrStatus == .completed ? Self.completedType : Self.failedType,
                  body: ReceiptRecord(receipt: receipt, expense: expense).json.serialized(), createdAt: now)
    }

    public var state: State { deliveredAt != nil ? .delivered : deadAt != nil ? .dead : .pending }

    /// `{"id", "receiptId", "type", "state", "attempts", "createdAt", "nextAttemptAt", "lastError",
    /// "deliveredAt", "deadAt"}` (times ISO 8601, UTC), as `receipts webhooks list --format json` prints it.
    public var json: JSONValue {
        return .object([
            ("id", .string(id.uuidString.lowercased())),
            ("receiptId", .string(receiptId.uuidString.lowercased())),
            ("webhook", .optionalString(subscriptionId?.uuidString.lowercased())),
            ("type", .string(type)),
            ("state", .string(state.rawValue)),
            ("attempts", .int(attempts)),
            ("createdAt", .string(createdAt.iso8601)),
            ("nextAttemptAt", state == .pending ? .string(nextAttemptAt.iso8601) : .null),
            ("lastError", .optionalString(lastError)),
            ("deliveredAt", .optionalString(deliveredAt.map(\.iso8601))),
            ("deadAt", .optionalString(deadAt.map(\.iso8601))),
        ])
    }
}
