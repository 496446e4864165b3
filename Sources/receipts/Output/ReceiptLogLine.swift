import Foundation
import Logging
import ReceiptKit

/// The line `worker` and `serve` log for each receipt their workers finish (through
/// `ReceiptPipeline.Configuration.onFinished`): at info when it completed (shown with -v), at error
/// when it failed for good (shown unless -q shows only errors… and then too). Ids lowercase, as the
/// API and the records print them.
enum ReceiptLogLine {
    static func log(_ outcome: ReceiptOutcome, to logger: Logger) {
        let receipt = outcome.receipt
        var metadata: Logger.Metadata = ["receipt.id": "\(receipt.id.uuidString.lowercased())", "receipt.file": "\(receipt.filePath)",
                                         "receipt.status": "\(receipt.ocrStatus.rawValue)", "receipt.attempts": "\(receipt.attempts)"]
        if let analysis = outcome.analysis {
            metadata["receipt.vendor"] = "\(analysis.vendor ?? "")"
            metadata["receipt.total"] = "\(analysis.total.map { Money.format($0, currency: analysis.currency) } ?? "")"
            metadata["receipt.currency"] = "\(analysis.currency ?? "")"
        }
        if let expense = outcome.expense { metadata["expense.id"] = "\(expense.id.uuidString.lowercased())" }
        if let error = outcome.error {
            metadata["error.message"] = "\(error)"
            logger.error("Receipt failed", metadata: metadata)
        } else {
            logger.info("Receipt completed", metadata: metadata)
        }
    }
}
