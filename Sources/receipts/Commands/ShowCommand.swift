import ArgumentParser
import Foundation
import ReceiptKit

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one receipt: its state, analysis, OCR text and drafted expense.",
        discussion: "ID may be the first characters of the id (at least 4), as `receipts list` prints it.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The receipt id (or its first 4+ characters).")
    var id: String

    @Flag(help: "One line of JSON instead of indented JSON.")
    var compact = false

    func run() async throws {
        let store = try await storeOptions.openStore()
        let receipt = try await store.receipt(idPrefix: id)
        var pairs = receipt.json(includeDetails: true).objectValue ?? []
        pairs.append(("imagePath", .optionalString(try await store.imagePath(ofReceipt: receipt.id))))
        pairs.append(("expense", try await store.expense(receiptId: receipt.id)?.json ?? .null))
        let record = JSONValue.object(pairs)
        print(compact ? record.serialized() : record.prettySerialized())
    }
}
