import Foundation
import GRDB
import Testing
import ReceiptModel
import ReceiptStorage
@testable import TestHelpers

/// The webhook event is written in the transaction that completes the receipt: when the event
/// cannot be written, the receipt is not completed either (no completion without its event).
@Suite struct WebhookOutboxTransactionTests {
    @Test func noCompletionWithoutItsEvent() async throws {
        let dir = try TemporaryDirectory()
        let store = try SQLiteReceiptStore(path: dir.storePath)
        let receipt = Receipt(filePath: "a.jpg", contentHash: "h")
        _ = try await store.insert(receipt, imagePath: nil, deduplicate: true)
        _ = try #require(try await store.claimNext(Lease(holder: "w", duration: 60)))
        // Webhooks on, and an outbox that refuses every event (another connection, as another program).
        let raw = try DatabaseQueue(path: dir.storePath)
        try await raw.write { db in
            try db.execute(sql: "INSERT INTO store_setting (name, value) VALUES ('webhooks', 'on')")
            try db.execute(sql: """
                CREATE TRIGGER refuse BEFORE INSERT ON webhook_event BEGIN SELECT RAISE(ABORT, 'outbox refused'); END
                """)
        }
        let analysis = ReceiptAnalysis(vendor: "Shell", total: Decimal(string: "9.99"), analyzer: "t")
        let work = CompletedWork(analysis: analysis, ocrText: "T", expense: Expense.draft(from: analysis, receiptId: receipt.id, taxonomy: .default))
        await #expect(throws: (any Error).self) { try await store.complete(id: receipt.id, holder: "w", work: work, now: Date()) }
        #expect(try await store.receipt(id: receipt.id, in: .everyone)?.ocrStatus == .processing, "the completion was rolled back with its event")
        #expect(try await store.expense(receiptId: receipt.id, in: .everyone) == nil)

        // With the outbox working again, the completion and its event land together.
        try await raw.write { db in try db.execute(sql: "DROP TRIGGER refuse") }
        _ = try #require(try await store.complete(id: receipt.id, holder: "w", work: work, now: Date()))
        let (events, body) = try await raw.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM webhook_event WHERE receiptId = ? AND type = 'receipt.completed'",
                              arguments: [receipt.id.uuidString.lowercased()]) ?? 0,
             try String.fetchOne(db, sql: "SELECT body FROM webhook_event") ?? "")
        }
        #expect(events == 1)
        #expect(try JSONValue.parse(body)["ocrStatus"]?.stringValue == "completed")
    }
}
