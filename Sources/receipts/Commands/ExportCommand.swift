import ArgumentParser
import Foundation
import ReceiptKit

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export expenses with their receipt files, for an accountant.",
        discussion: """
            One row per expense, the columns of GET /v1/expenses/export.csv: date, vendor, category, \
            amount, currency, taxAmount, taxDeductiblePercentage, deductibleAmount (amount × percentage, \
            rounded to the currency's minor units; 0 when isTaxDeductible is false), status, needsReview, \
            possibleDuplicateOf, receiptFile, receiptId, expenseId, isTaxDeductible and corrections (what \
            the analyzer had drafted for each field a person corrected, as JSON). Money is printed with \
            the currency's minor units (12.50 GBP, 1200 JPY). Exit status: 0, 1 when the store or the \
            output file cannot be used, 2 for usage errors. \
            Example: receipts export --format csv --from 2024-04-06 --to 2025-04-05 > tax-year.csv
            """)

    enum Format: String, CaseIterable, ExpressibleByArgument {
        case csv, json
    }

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var userOptions: ReadingUserOptions

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

    func validate() throws {
        _ = try StoreOptions.date(from, option: "--from")
        _ = try StoreOptions.date(to, option: "--to")
    }

    func run() async throws {
        let store = try await storeOptions.openStore()
        let query = ExpenseQuery(from: try StoreOptions.date(from, option: "--from"),
                                 to: try StoreOptions.date(to, option: "--to"), category: category)
        let mine = try await exitingOnReceiptError { try await userOptions.scoped(store) }
        let records = try await ExpenseExport.records(query, from: mine)
        let text = format == .csv ? ExpenseExport.csv(records) : JSONValue.array(records).prettySerialized() + "\n"
        if let output {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                // Not a usage error: the file system refused (exit 1, one line naming the file).
                printError("\(output): cannot write the export (\(error.localizedDescription))")
                throw ExitCode(1)
            }
            FileHandle.standardError.write(Data("exported \(records.count) expenses to \(output)\n".utf8))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}
