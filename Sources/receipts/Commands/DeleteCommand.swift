import ArgumentParser
import Foundation
import ReceiptKit

struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a receipt, its image copy and its expense.",
        discussion: """
            ID may be the first characters of the id (at least 4), as `receipts list` prints it. A receipt \
            whose expense is confirmed (a person's record) is kept unless --force. Exit status: 0, 1 when \
            the receipt is unknown, kept, or the store cannot be used.
            """)

    @Argument(help: "The receipt id (or its first 4+ characters).")
    var id: String

    @Flag(help: "Delete even a receipt whose expense is confirmed.")
    var force = false

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var userOptions: ReadingUserOptions

    func run() async throws {
        do {
            let store = try await storeOptions.openStore()
            let mine = try await userOptions.scoped(store)
            let receipt = try await mine.receipt(idPrefix: id)
            for image in try await mine.deleteReceiptAndPictures(id: receipt.id, force: force) {
                try? FileManager.default.removeItem(atPath: image)
            }
            FileHandle.standardError.write(Data("deleted receipt \(receipt.id.uuidString.lowercased()) (\(receipt.filePath))\n".utf8))
        } catch let error as ReceiptError where error.code == .invalidState {
            printError("\(error.message.replacingOccurrences(of: "delete it with force", with: "pass --force")) ")
            throw ExitCode(1)
        } catch let error as ReceiptError {
            printError(error)
            throw ExitCode(1)
        }
    }
}
