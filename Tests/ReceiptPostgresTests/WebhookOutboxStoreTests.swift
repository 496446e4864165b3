import Foundation
import Testing
@testable import ReceiptKit
import ReceiptPostgres
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// The webhook outbox in both stores (SQLite always, PostgreSQL when installed): the event is
/// written with the receipt's result, senders on several connections never hold one event at the
/// same time, a failed event waits for its time or becomes dead, and `retry` brings it back.
@Suite struct WebhookOutboxStoreTests {
    private func finishable(_ store: any ReceiptStore, _ name: String = "r.jpg", owner: String = "w") async throws -> Receipt {
        let receipt = try await store.insert(Receipt(filePath: name, contentHash: UUID().uuidString), imagePath: nil, deduplicate: true).receipt
        _ = try #require(try await store.claim(id: receipt.id, Lease(holder: owner, duration: 60)).claimedJob)
        return receipt
    }

    private func work(_ receipt: Receipt) -> CompletedWork {
        let analysis = ReceiptAnalysis(vendor: "Shell", date: CalendarDate(iso: "2024-03-01"), total: Decimal(string: "23.45"),
                                       category: "Fuel", analyzer: "t")
        return CompletedWork(analysis: analysis, ocrText: "Shell 23.45",
                             expense: Expense.draft(from: analysis, receiptId: receipt.id, taxonomy: .default))
    }

    @Test(arguments: StoreKind.available)
    func eachFinishedReceiptHasItsEventOnlyWhileWebhooksAreOn(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        #expect(try await store.webhooksEnabled() == false)
        let before = try await finishable(store, "before.jpg")
        _ = try #require(try await store.complete(id: before.id, holder: "w", work: work(before), now: Date()))
        #expect(try await store.webhookEvents(state: nil, limit: nil).isEmpty, "webhooks are off: no event")

        try await store.setWebhooksEnabled(true)
        #expect(try await store.webhooksEnabled())
        let completed = try await finishable(store, "done.jpg")
        // A worker that lost its lease writes nothing: neither the result nor an event.
        #expect(try await store.complete(id: completed.id, holder: "other", work: work(completed), now: Date()) == nil)
        #expect(try await store.webhookEvents(state: nil, limit: nil).isEmpty)
        let (done, expense) = try #require(try await store.complete(id: completed.id, holder: "w", work: work(completed), now: Date()))
        let retried = try await finishable(store, "later.jpg")
        _ = try #require(try await store.fail(id: retried.id, holder: "w", error: "later.jpg: timed out",
                                              retryAt: Date().addingTimeInterval(60), now: Date()))
        let failed = try await finishable(store, "bad.jpg")
        _ = try #require(try await store.fail(id: failed.id, holder: "w", error: "bad.jpg: not an image", retryAt: nil, now: Date()))

        let events = try await store.webhookEvents(state: .pending, limit: nil)
        #expect(events.map(\.receiptId) == [failed.id, completed.id], "newest first; none for the receipt waiting for its retry")
        let completion = try #require(events.last)
        #expect(completion.type == "receipt.completed" && completion.attempts == 0 && completion.state == .pending)
        // The body is the record `serve` answers with: the receipt as stored, its expense.
        #expect(completion.body == ReceiptRecord(receipt: done, expense: expense).json.serialized())
        let failure = try JSONValue.parse(try #require(events.first).body)
        #expect(events.first?.type == "receipt.failed")
        #expect(failure["ocrStatus"]?.stringValue == "failed" && failure["error"]?.stringValue == "bad.jpg: not an image")

        // Off again: no more events; those written stay.
        try await store.setWebhooksEnabled(false)
        let after = try await finishable(store, "after.jpg")
        _ = try #require(try await store.complete(id: after.id, holder: "w", work: work(after), now: Date()))
        #expect(try await store.webhookEventCounts() == [.pending: 2, .delivered: 0, .dead: 0])
    }

    @Test(arguments: StoreKind.available)
    func aReceiptReclaimedTooOftenIsFailedWithItsEvent(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        try await store.setWebhooksEnabled(true)
        let receipt = try await finishable(store, "crashy.jpg", owner: "dead-worker")
        let changed = try await store.reclaim(now: Date().addingTimeInterval(120), maxAttempts: 1, isAbandoned: { _ in true })
        #expect(changed.map(\.ocrStatus) == [.failed])
        let event = try #require(try await store.webhookEvents(state: nil, limit: nil).first)
        #expect(event.receiptId == receipt.id && event.type == "receipt.failed")
    }

    @Test(arguments: StoreKind.available)
    func sendersOnSeveralConnectionsNeverHoldTheSameEventAtOnce(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        try await test.store.setWebhooksEnabled(true)
        var stores: [any ServerStore] = [test.store]
        for _ in 0..<2 { stores.append(try await test.reopen()) }
        let count = 60
        for i in 0..<count {
            let receipt = try await finishable(test.store, "r\(i).jpg")
            _ = try #require(try await test.store.complete(id: receipt.id, holder: "w", work: work(receipt), now: Date()))
        }
        let claimed = try await withThrowingTaskGroup(of: [UUID].self) { group in
            for sender in 0..<6 {
                let store = stores[sender % stores.count]
                group.addTask {
                    var mine: [UUID] = []
                    while true {
                        let events = try await store.claimWebhookEvents(Lease(holder: "host\(sender)", duration: 60), limit: 3, serverWide: true)
                        if events.isEmpty { return mine }
                        mine += events.map(\.id)
                    }
                }
            }
            var all: [UUID] = []
            for try await ids in group { all += ids }
            return all
        }
        #expect(claimed.count == count, "every event claimed once while its lease lasts")
        #expect(Set(claimed).count == count)
        // A lease that ran out (its sender died) lets another sender take the event, once.
        let later = Date().addingTimeInterval(61)
        let again = try await test.store.claimWebhookEvents(Lease(holder: "new", now: later, duration: 60), limit: count + 1, serverWide: true)
        #expect(again.count == count && again.allSatisfy { $0.attempts == 2 })
        #expect(try await stores[1].claimWebhookEvents(Lease(holder: "other", now: later, duration: 60), limit: count, serverWide: true).isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func aFailedEventWaitsForItsTimeBecomesDeadAndIsRetried(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        try await store.setWebhooksEnabled(true)
        let receipt = try await finishable(store)
        _ = try #require(try await store.complete(id: receipt.id, holder: "w", work: work(receipt), now: Date()))
        let now = Date()
        let event = try #require(try await store.claimWebhookEvents(Lease(holder: "s1", now: now, duration: 30), limit: 8, serverWide: true).first)
        #expect(event.attempts == 1)
        #expect(try await store.markWebhookFailed(id: event.id, holder: "s2", error: "HTTP 500", retryAt: now, now: now) == false,
                "only the holder records a failure")
        #expect(try await store.markWebhookFailed(id: event.id, holder: "s1", error: "HTTP 500",
                                                  retryAt: now.addingTimeInterval(10), now: now))
        let due = try #require(try await store.nextWebhookAttempt(serverWide: true))
        #expect(abs(due.timeIntervalSince(now.addingTimeInterval(10))) < 0.01)
        #expect(try await store.claimWebhookEvents(Lease(holder: "s1", now: now.addingTimeInterval(5), duration: 30), limit: 8,
                                                   serverWide: true).isEmpty)
        let second = try #require(try await store.claimWebhookEvents(Lease(holder: "s1", now: now.addingTimeInterval(11), duration: 30),
                                                                      limit: 8, serverWide: true).first)
        #expect(second.id == event.id && second.attempts == 2 && second.lastError == "HTTP 500")
        // Given up: dead, no longer due.
        #expect(try await store.markWebhookFailed(id: event.id, holder: "s1", error: "connection refused", retryAt: nil,
                                                  now: now.addingTimeInterval(11)))
        #expect(try await store.nextWebhookAttempt(serverWide: true) == nil)
        let dead = try #require(try await store.webhookEvents(state: .dead, limit: nil).first)
        #expect(dead.id == event.id && dead.lastError == "connection refused" && dead.deadAt != nil)

        let retried = try await store.retryDeadWebhookEvents(now: Date())
        #expect(retried.map(\.id) == [event.id] && retried[0].state == .pending && retried[0].attempts == 0)
        let third = try #require(try await store.claimWebhookEvents(Lease(holder: "s3", duration: 30), limit: 8, serverWide: true).first)
        #expect(try await store.markWebhookDelivered(id: third.id, now: Date()))
        #expect(try await store.markWebhookDelivered(id: third.id, now: Date()) == false, "delivered once")
        #expect(try await store.webhookEventCounts() == [.pending: 0, .delivered: 1, .dead: 0])
        await #expect(throws: ReceiptError.self) { try await store.retryWebhookEvent(id: event.id, now: Date()) }
        await #expect(throws: ReceiptError.self) { try await store.retryWebhookEvent(id: UUID(), now: Date()) }
    }

    /// Delivered events are deleted once older than what the sender keeps; pending and dead ones
    /// (still owed, or waiting for a person) are never deleted, however old.
    @Test(arguments: StoreKind.available)
    func onlyDeliveredEventsOlderThanTheCutOffArePruned(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        try await store.setWebhooksEnabled(true)
        for name in ["old.jpg", "new.jpg", "dead.jpg", "pending.jpg"] {
            let receipt = try await finishable(store, name)
            _ = try #require(try await store.complete(id: receipt.id, holder: "w", work: work(receipt), now: Date()))
        }
        let now = Date()
        let events = try await store.claimWebhookEvents(Lease(holder: "s", now: now, duration: 30), limit: 8, serverWide: true)
        #expect(events.count == 4)
        let (old, new, dead) = (events[0], events[1], events[2])
        #expect(try await store.markWebhookDelivered(id: old.id, now: now.addingTimeInterval(-40 * 86400)))
        #expect(try await store.markWebhookDelivered(id: new.id, now: now.addingTimeInterval(-86400)))
        #expect(try await store.markWebhookFailed(id: dead.id, holder: "s", error: "HTTP 500", retryAt: nil, now: now.addingTimeInterval(-40 * 86400)))
        #expect(try await store.markWebhookFailed(id: events[3].id, holder: "s", error: "HTTP 500", retryAt: now, now: now))

        #expect(try await store.pruneWebhookEvents(deliveredBefore: now.addingTimeInterval(-30 * 86400)) == 1)
        #expect(try await store.webhookEvent(id: old.id) == nil)
        #expect(try await store.webhookEventCounts() == [.pending: 1, .delivered: 1, .dead: 1])
        #expect(try await store.pruneWebhookEvents(deliveredBefore: now.addingTimeInterval(-30 * 86400)) == 0)
    }
}

private extension ClaimAttempt {
    var claimedJob: ClaimedJob? { if case let .claimed(job) = self { job } else { nil } }
}
