import ArgumentParser
import Foundation
import ReceiptKit

struct RetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Put failed receipts back in the queue.",
        discussion: """
            The receipts become pending with their attempts reset; the next `receipts process` or \
            `receipts watch` on this store reads them again. Only failed receipts can be retried.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var userOptions: ReadingUserOptions

    @Argument(help: "The receipt id (or its first 4+ characters).")
    var id: String?

    @Flag(help: "Retry every failed receipt.")
    var failed = false

    func validate() throws {
        if (id == nil) == !failed { throw ValidationError("give a receipt ID or --failed (not both)") }
    }

    func run() async throws {
        let store = try await storeOptions.openStore()
        let requeued: [Receipt]
        let mine = try await userOptions.scoped(store)
        if failed {
            requeued = try await mine.requeueFailed(now: Date())
        } else {
            let receipt = try await mine.receipt(idPrefix: id!)
            requeued = [try await mine.requeue(id: receipt.id, now: Date())]
        }
        for receipt in requeued { print(receipt.id.uuidString.lowercased()) }
        let noun = requeued.count == 1 ? "receipt" : "receipts"
        FileHandle.standardError.write(Data("queued \(requeued.count) \(noun) again in \(store.location)\n".utf8))
    }
}
