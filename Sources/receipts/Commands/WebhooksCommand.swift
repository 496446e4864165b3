import ArgumentParser
import Foundation
import ReceiptKit
import ReceiptServerStore

/// `receipts webhooks list|retry|disable`: the webhook outbox `receipts serve --webhook` delivers.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "List the webhook deliveries kept in the store, retry dead ones, stop recording them.",
        discussion: """
            `receipts serve --webhook URL` turns webhooks on in the store: from then on, every process \
            that finishes a receipt in it (serve, worker, process, watch) writes a delivery (an event) in \
            the same transaction, and the server with --webhook sends it, at least once, with the header \
            Receipts-Delivery-Id: <event id>. A delivery not made within --webhook-dead-after is dead (a \
            dead letter) until retried here.

            Examples:
              receipts webhooks list --state dead
              receipts webhooks retry 5f0c2a4e-1b7d-4c1e-9a53-2f8e6d0b7c11
              receipts webhooks retry --dead
            """,
        subcommands: [List.self, Retry.self, Disable.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List deliveries, newest first.")
        @Option(help: "Only deliveries in this state: pending, delivered or dead.")
        var state: WebhookEvent.State?
        @Option(help: "Output format: table, json, ndjson or csv (default: table on a terminal, else ndjson).")
        var format: OutputFormatOption?
        @Option(help: "Show at most this many deliveries.")
        var limit: Int?
        @OptionGroup var storeOptions: StoreOptions

        static let columns = ["id", "state", "type", "receiptId", "attempts", "createdAt", "nextAttemptAt", "lastError"]

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more.") }
        }

        func run() async throws {
            let store = try await storeOptions.openStore()
            let events = try await exitingOnReceiptError { try await store.webhookEvents(state: state, limit: limit) }
            let format = self.format?.value ?? .automatic
            let formatter = RecordFormatter(format: format, columns: Self.columns)
            FileHandle.standardOutput.write(Data(formatter.render(events.map(\.json)).utf8))
            if try await !store.webhooksEnabled() {
                FileHandle.standardError.write(Data("webhooks are off in this store: finished receipts record no deliveries (`receipts serve --webhook URL` turns them on)\n".utf8))
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a dead (or pending) delivery due now, its attempts and dead-letter time starting over.")
        @Argument(help: "The delivery's id (its Receipts-Delivery-Id).")
        var id: String?
        @Flag(help: "Retry every dead delivery.")
        var dead = false
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            switch (id, dead) {
            case (nil, false): throw ValidationError("give a delivery id or --dead.")
            case (.some, true): throw ValidationError("give a delivery id or --dead, not both.")
            case let (id?, false):
                guard UUID(uuidString: id) != nil else {
                    throw ValidationError("'\(id)' is not a delivery id (a UUID, see `receipts webhooks list`).")
                }
            case (nil, true): break
            }
        }

        func run() async throws {
            let store = try await storeOptions.openStore()
            if let id, let uuid = UUID(uuidString: id) {
                let event = try await exitingOnReceiptError { try await store.retryWebhookEvent(id: uuid, now: Date()) }
                FileHandle.standardError.write(Data("delivery \(event.id.uuidString.lowercased()) is due now; a server with --webhook sends it\n".utf8))
            } else {
                let events = try await exitingOnReceiptError { try await store.retryDeadWebhookEvents(now: Date()) }
                FileHandle.standardError.write(Data("\(events.count) dead \(events.count == 1 ? "delivery is" : "deliveries are") due now\n".utf8))
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop recording deliveries (until the next `receipts serve --webhook`); those pending are still sent.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await storeOptions.openStore()
            try await exitingOnReceiptError { try await store.setWebhooksEnabled(false) }
            let pending = try await store.webhookEventCounts()[.pending] ?? 0
            FileHandle.standardError.write(Data("webhooks off: finished receipts record no deliveries; \(pending) pending\n".utf8))
        }
    }
}

extension WebhookEvent.State: ExpressibleByArgument {}
