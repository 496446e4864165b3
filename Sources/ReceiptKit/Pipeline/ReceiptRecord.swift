import Foundation

/// One receipt's result as printed by `receipts process` (one NDJSON line), kept beside a watched
/// file as its sidecar, and returned to library users.
///
/// The JSON shape is a contract: `{"file", "receiptId", "ocrStatus", "analysis", "expense", "error"}`;
/// later work adds keys, never renames or retypes them.
public struct ReceiptRecord: Sendable, Equatable {
    /// The path as the user gave it.
    public var file: String
    public var receiptId: UUID
    public var ocrStatus: OCRStatus
    public var analysis: ReceiptAnalysis?
    public var expense: Expense?
    /// One line naming the file and the cause.
    public var error: String?

    public init(file: String, receiptId: UUID, ocrStatus: OCRStatus, analysis: ReceiptAnalysis? = nil,
                expense: Expense? = nil, error: String? = nil) {
        self.file = file
        self.receiptId = receiptId
        self.ocrStatus = ocrStatus
        self.analysis = analysis
        self.expense = expense
        self.error = error
    }

    public var json: JSONValue {
        .object([
            ("file", .string(file)),
            ("receiptId", .string(receiptId.uuidString.lowercased())),
            ("ocrStatus", .string(ocrStatus.rawValue)),
            ("analysis", analysis?.json ?? .null),
            ("expense", expense?.json ?? .null),
            ("error", .optionalString(error)),
        ])
    }
}
