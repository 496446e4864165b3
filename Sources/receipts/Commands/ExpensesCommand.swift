import ArgumentParser
import Foundation
import ReceiptKit

struct ExpensesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expenses",
        abstract: "List the expenses drafted from receipts, by date.",
        discussion: """
            Each record carries its receiptId and receiptFile. Amounts are exact decimals. The table \
            shows each one's status (draft or confirmed) and whether it needs review. \
            Example: receipts expenses --from 2024-04-01 --to 2024-06-30 --category Fuel --format csv
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var userOptions: ReadingUserOptions

    @Option(help: "First receipt date, YYYY-MM-DD (inclusive).")
    var from: String?

    @Option(help: "Last receipt date, YYYY-MM-DD (inclusive).")
    var to: String?

    @Option(help: "Only this category (case-insensitive), e.g. Fuel.")
    var category: String?

    @Option(help: ArgumentHelp("Only expenses in this status: draft or confirmed.", valueName: "status"))
    var status: ExpenseStatus?

    @Flag(inversion: .prefixedNo, help: "Only the expenses that need review (--no-needs-review: only those that do not).")
    var needsReview: Bool?

    @Option(help: "Output format: ndjson, json, csv or table (default: table on a terminal, else ndjson).")
    var format: OutputFormatOption?

    static let tableColumns = ["date", "description", "amount", "currency", "taxAmount", "category", "status", "needsReview",
                               "possibleDuplicateOf", "receiptId"]
    static let csvColumns = ["id", "receiptId", "receiptFile", "date", "description", "amount", "currency", "taxAmount",
                             "category", "isTaxDeductible", "taxDeductiblePercentage", "creationMethod", "status",
                             "needsReview", "possibleDuplicateOf", "isUploaded", "lastModified"]

    func validate() throws {
        let start = try StoreOptions.date(from, option: "--from")
        let end = try StoreOptions.date(to, option: "--to")
        if let start, let end, end < start { throw ValidationError("--to \(end) is before --from \(start)") }
    }

    func run() async throws {
        let store = try await storeOptions.openStore()
        let query = ExpenseQuery(from: try StoreOptions.date(from, option: "--from"),
                                 to: try StoreOptions.date(to, option: "--to"), category: category, status: status, needsReview: needsReview)
        var records: [JSONValue] = []
        let mine = try await exitingOnReceiptError { try await userOptions.scoped(store) }
        for expense in try await mine.expenses(query) {
            var pairs = expense.json.objectValue ?? []
            let file = try await mine.receipt(id: expense.receiptId)?.filePath
            pairs.insert(("receiptFile", .optionalString(file)), at: 2)
            records.append(.object(pairs))
        }
        let format = self.format?.value ?? .automatic
        let formatter = RecordFormatter(format: format, columns: format == .table ? Self.tableColumns : Self.csvColumns)
        FileHandle.standardOutput.write(Data(formatter.render(records).utf8))
    }
}

extension ExpenseStatus: ExpressibleByArgument {}
