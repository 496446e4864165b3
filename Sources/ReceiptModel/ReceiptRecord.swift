import Foundation

/// One receipt's result as printed by `receipts process` (one NDJSON line), kept beside a watched
/// file as its sidecar, and returned to library users.
///
/// The JSON shape is a contract: `{"file", "receiptId", "ocrStatus", "analysis", "expense", "error",
/// "attempts", "lastError", "createdAt", "updatedAt"}`; later work adds keys, never renames or
/// retypes them.
public struct ReceiptRecord: Sendable, Equatable {
    /// The path as the user gave it.
    public var file: String
    public var receiptId: UUID
    public var ocrStatus: OCRStatus
    public var analysis: ReceiptAnalysis?
    public var expense: Expense?
    /// One line naming the file and the cause.
    public var error: String?
    /// Times the receipt was taken by a worker (reset when it is retried).
    public var attempts: Int
    /// The last failure, also while a transient one waits for its retry (`error` is only set once
    /// the receipt has failed for good).
    public var lastError: String?
    public var createdAt: Date?
    public var updatedAt: Date?
    /// Whose the receipt is (`owner`, `group`, `externalUser`, `metadata` in the JSON); nil in
    /// records made before it was stored.
    public var ownership: Ownership?
    /// Where the receipt came from when not from a file or an upload (an e-mail message); the key
    /// `source` is in the JSON only then.
    public var source: ReceiptSource?

    public init(file: String, receiptId: UUID, ocrStatus: OCRStatus, analysis: ReceiptAnalysis? = nil,
                expense: Expense? = nil, error: String? = nil, attempts: Int = 0, lastError: String? = nil,
                createdAt: Date? = nil, updatedAt: Date? = nil, ownership: Ownership? = nil) {
        self.ownership = ownership
        self.file = file
        self.receiptId = receiptId
        self.ocrStatus = ocrStatus
        self.analysis = analysis
        self.expense = expense
        self.error = error
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The record of a finished (completed or failed) receipt named `file` (default: its
    /// `filePath`): what `receipts serve` prints and what its webhooks deliver.
    public init(receipt: Receipt, expense: Expense?, file: String? = nil) {
        let file = file ?? receipt.filePath
        self.init(file: file, receiptId: receipt.id, ocrStatus: receipt.ocrStatus, analysis: receipt.analysis,
                  expense: expense, error: receipt.ocrStatus == .failed ? (receipt.lastError ?? "\(file): failed") : nil,
                  attempts: receipt.attempts, lastError: receipt.lastError,
                  createdAt: receipt.createdAt, updatedAt: receipt.updatedAt, ownership: receipt.ownership)
        source = receipt.source
    }

    /// `{"file", "receiptId", "ocrStatus", "analysis", "expense", "error", "attempts", "lastError",
    /// "createdAt", "updatedAt", "owner", "group", "externalUser", "metadata"}`; times are ISO 8601 (UTC).
    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("file", .string(file)),
            ("receiptId", .string(receiptId.uuidString.lowercased())),
            ("ocrStatus", .string(ocrStatus.rawValue)),
            ("analysis", analysis?.json ?? .null),
            ("expense", expense?.json ?? .null),
            ("error", .optionalString(error)),
            ("attempts", .int(attempts)),
            ("lastError", .optionalString(lastError)),
            ("createdAt", .optionalString(createdAt.map(\.iso8601))),
            ("updatedAt", .optionalString(updatedAt.map(\.iso8601))),
        ]
        if let ownership {
            fields += [("owner", .string(ownership.owner)), ("group", .optionalString(ownership.group)),
                       ("externalUser", .optionalString(ownership.externalUser)), ("metadata", ownership.metadata ?? .null)]
        }
        if let source { fields.append(("source", source.json)) }
        return .object(fields)
    }
}
