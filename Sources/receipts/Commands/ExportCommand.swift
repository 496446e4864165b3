import ArgumentParser
import Foundation
import ReceiptKit

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export expenses with their receipt files, for an accountant.",
        discussion: """
            One row per expense: date, vendor, category, amount, currency, tax, the deductible share and \
            amount (from the category's rule), review flags, and the receipt file it came from. \
            Example: receipts export --format csv --from 2024-04-06 --to 2025-04-05 > tax-year.csv
            """)

    enum Format: String, CaseIterable, ExpressibleByArgument {
        case csv, json
    }

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "csv or json.")
    var format: Format = .csv

    @Option(help: "First receipt date, YYYY-MM-DD (inclusive).")
    var from: String?

    @Option(help: "Last receipt date, YYYY-MM-DD (inclusive).")
    var to: String?

    @Option(help: "Only this category (case-insensitive).")
    var category: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of stdout.", valueName: "file"))
    var output: String?

    static let columns = ["date", "vendor", "category", "amount", "currency", "taxAmount", "taxDeductiblePercentage",
                          "deductibleAmount", "status", "needsReview", "possibleDuplicateOf", "receiptFile",
                          "receiptId", "expenseId"]

    func validate() throws {
        _ = try StoreOptions.date(from, option: "--from")
        _ = try StoreOptions.date(to, option: "--to")
    }

    func run() async throws {
        let store = try await storeOptions.openStore()
        let query = ExpenseQuery(from: try StoreOptions.date(from, option: "--from"),
                                 to: try StoreOptions.date(to, option: "--to"), category: category)
        var records: [JSONValue] = []
        for expense in try await store.expenses(query) {
            let receipt = try await store.receipt(id: expense.receiptId)
            let deductible = expense.amount.map { ($0 * expense.taxDeductiblePercentage / 100).rounded(scale: 2) }
            records.append(.object([
                ("date", .optionalString(expense.date?.description)),
                ("vendor", .string(expense.description)),
                ("category", .string(expense.category)),
                ("amount", .decimal(expense.amount)),
                ("currency", .optionalString(expense.currency)),
                ("taxAmount", .decimal(expense.taxAmount)),
                ("taxDeductiblePercentage", .decimal(expense.taxDeductiblePercentage)),
                ("deductibleAmount", .decimal(deductible)),
                ("status", .string(expense.status.rawValue)),
                ("needsReview", .bool(expense.needsReview)),
                ("possibleDuplicateOf", .optionalString(expense.possibleDuplicateOf?.uuidString.lowercased())),
                ("receiptFile", .optionalString(receipt?.filePath)),
                ("receiptId", .string(expense.receiptId.uuidString.lowercased())),
                ("expenseId", .string(expense.id.uuidString.lowercased())),
            ]))
        }
        let formatter = RecordFormatter(format: format == .csv ? .csv : .json, columns: Self.columns)
        let text = formatter.render(records)
        if let output {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw ValidationError("\(output): cannot write the export (\(error.localizedDescription))")
            }
            FileHandle.standardError.write(Data("exported \(records.count) expenses to \(output)\n".utf8))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}
