import ArgumentParser
import Foundation
import ReceiptKit

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one receipt: its state, analysis, OCR text, drafted expense and corrections.",
        discussion: "ID may be the first characters of the id (at least 4), as `receipts list` prints it.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var userOptions: ReadingUserOptions

    @Argument(help: "The receipt id (or its first 4+ characters).")
    var id: String

    @Flag(help: "One line of JSON instead of indented JSON.")
    var compact = false

    func run() async throws {
        let store = try await storeOptions.openStore()
        let mine = try await exitingOnReceiptError { try await userOptions.scoped(store) }
        let receipt = try await mine.receipt(idPrefix: id)
        var pairs = receipt.json(includeDetails: true).objectValue ?? []
        pairs.append(("imagePath", .optionalString(try await mine.imagePath(ofReceipt: receipt.id))))
        let expense = try await mine.expense(receiptId: receipt.id)
        pairs.append(("expense", expense?.json ?? .null))
        // What the analyzer had drafted for each field a person corrected.
        var corrections = JSONValue.null
        if let expense { corrections = try await mine.corrections(ofExpense: expense.id) }
        pairs.append(("corrections", corrections))
        let record = JSONValue.object(pairs)
        print(compact ? record.serialized() : record.prettySerialized())
    }
}
