import ArgumentParser
import Foundation
import ReceiptKit

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List receipts in the store, newest first.",
        discussion: """
            Each record carries id, filePath, contentHash, ocrStatus, lastError, attempts, analyzer, \
            timestamps and expenseId. Example: receipts list --status failed --format csv
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var userOptions: ReadingUserOptions

    @Option(help: "Only receipts in this state: pending, processing, completed or failed.")
    var status: OCRStatus?

    @Option(help: "Output format: ndjson, json, csv or table (default: table on a terminal, else ndjson).")
    var format: OutputFormatOption?

    @Option(help: "Show at most this many receipts.")
    var limit: Int?

    static let tableColumns = ["id", "ocrStatus", "filePath", "owner", "attempts", "analyzer", "lastError"]
    static let csvColumns = ["id", "filePath", "contentHash", "ocrStatus", "lastError", "attempts", "analyzer",
                             "uploadTimestamp", "createdAt", "updatedAt", "isUploaded", "expenseId", "owner", "group", "externalUser"]

    func run() async throws {
        let store = try await storeOptions.openStore()
        let receipts = try await exitingOnReceiptError {
            try await userOptions.scoped(store).receipts(ReceiptQuery(status: status, limit: limit))
        }
        let format = self.format?.value ?? .automatic
        let formatter = RecordFormatter(format: format, columns: format == .table ? Self.tableColumns : Self.csvColumns)
        FileHandle.standardOutput.write(Data(formatter.render(receipts.map { $0.json() }).utf8))
    }
}

extension OCRStatus: ExpressibleByArgument {}
