import Foundation

/// One receipt of a batch, given to `ReceiptPipeline.process(_:)`.
public enum BatchItem: Sendable {
    /// An image file; the path is kept as given (in `Receipt.filePath` and errors).
    case file(String)
    /// Image bytes held in memory, named for messages.
    case data(Data, filename: String)
    /// A receipt already in the store (e.g. after `retry`).
    case receipt(UUID)
    /// Image files that are one receipt's pictures, top to bottom (a long receipt photographed in
    /// several); named by the first.
    case pictures([String])

    /// How the item is named in results and errors.
    public var displayName: String {
        switch self {
        case let .file(path): return path
        case let .data(_, filename): return filename
        case let .receipt(id): return id.uuidString.lowercased()
        case let .pictures(paths): return paths.first ?? ""
        }
    }
}

/// A receipt that reached `completed` or `failed`.
public struct ReceiptOutcome: Sendable {
    /// The file (or name) as given in the batch.
    public var source: String
    public var receipt: Receipt
    /// The drafted expense of a completed receipt.
    public var expense: Expense?
    /// The same bytes were already in the store: this is the earlier receipt, not processed again.
    public var isDuplicate: Bool

    public init(source: String, receipt: Receipt, expense: Expense?, isDuplicate: Bool) {
        self.source = source
        self.receipt = receipt
        self.expense = expense
        self.isDuplicate = isDuplicate
    }

    public var analysis: ReceiptAnalysis? { receipt.analysis }

    /// The one-line error of a failed receipt.
    public var error: String? { receipt.ocrStatus == .failed ? (receipt.lastError ?? "\(source): failed") : nil }

    /// The NDJSON record of the `receipts process` contract (`record.json.serialized()` is the line).
    public var record: ReceiptRecord {
        ReceiptRecord(receipt: receipt, expense: expense, file: source)
    }
}
