import Synchronization
import Foundation
import GRDB
import Testing
@testable import ReceiptKit

@Suite struct QueueTests {
    private func pendingReceipt(_ store: SQLiteReceiptStore, _ name: String = "r.jpg") async throws -> Receipt {
        try await store.insert(Receipt(filePath: name, contentHash: UUID().uuidString), imagePath: nil, deduplicate: true).receipt
    }

    @Test func receiptMovesPendingProcessingCompletedWithOneExpense() async throws {
        let dir = try TemporaryDirectory()
        let store = try SQLiteReceiptStore(path: dir.storePath)
        let receipt = try await pendingReceipt(store)
        #expect(receipt.ocrStatus == .pending)

        let lease = Lease(owner: "worker-1", duration: 60)
        let job = try #require(try await store.claimNext(lease))
        #expect(job.receipt.id == receipt.id)
        #expect(job.receipt.ocrStatus == .processing)
        #expect(job.receipt.attempts == 1)
        #expect(try await store.claimNext(Lease(owner: "worker-2", duration: 60)) == nil)

        let analysis = ReceiptAnalysis(vendor: "Shell", date: CalendarDate(iso: "2024-03-01"), total: Decimal(string: "23.45"),
                                       category: "Fuel", analyzer: "t")
        let expense = Expense.draft(from: analysis, receiptId: receipt.id, taxonomy: .default)
        // Another worker cannot complete it.
        #expect(try await store.complete(id: receipt.id, owner: "worker-2",
                                         work: CompletedWork(analysis: analysis, ocrText: "x", expense: expense), now: Date()) == nil)
        let (done, stored) = try #require(try await store.complete(
            id: receipt.id, owner: "worker-1", work: CompletedWork(analysis: analysis, ocrText: "SHELL 23.45", expense: expense), now: Date()))
        #expect(done.ocrStatus == .completed)
        #expect(done.expenseId == stored.id)
        #expect(done.ocrText == "SHELL 23.45")
        #expect(done.analysis?.total == Decimal(string: "23.45"))
        #expect(stored.isTaxDeductible)
        #expect(stored.taxDeductiblePercentage == 100)
        #expect(try await store.expenses(ExpenseQuery()).count == 1)
        // A completed receipt is not claimed again nor retried.
        #expect(try await store.claimNext(Lease(owner: "worker-1", duration: 60)) == nil)
        await #expect(throws: ReceiptError.self) { try await store.requeue(id: receipt.id, now: Date()) }
    }

    @Test func transientFailuresWaitThenRetryPermanentOnesFailAtOnce() async throws {
        let dir = try TemporaryDirectory()
        let store = try SQLiteReceiptStore(path: dir.storePath)
        let receipt = try await pendingReceipt(store)
        let now = Date()
        _ = try #require(try await store.claimNext(Lease(owner: "w", now: now, duration: 60)))
        let retried = try #require(try await store.fail(id: receipt.id, owner: "w", error: "r.jpg: timed out",
                                                       retryAt: now.addingTimeInterval(30), now: now))
        #expect(retried.ocrStatus == .pending)
        #expect(retried.lastError == "r.jpg: timed out")
        // Not due yet.
        #expect(try await store.claimNext(Lease(owner: "w", now: now.addingTimeInterval(10), duration: 60)) == nil)
        let again = try #require(try await store.claimNext(Lease(owner: "w", now: now.addingTimeInterval(31), duration: 60)))
        #expect(again.receipt.attempts == 2)
        let failed = try #require(try await store.fail(id: receipt.id, owner: "w", error: "r.jpg: truncated JPEG",
                                                      retryAt: nil, now: now.addingTimeInterval(31)))
        #expect(failed.ocrStatus == .failed)
        #expect(failed.lastError == "r.jpg: truncated JPEG")
        #expect(try await store.expense(receiptId: receipt.id) == nil)

        let requeued = try await store.requeue(id: receipt.id, now: Date())
        #expect(requeued.ocrStatus == .pending)
        #expect(requeued.attempts == 0)
    }

    @Test func retryPolicyBacksOffExponentiallyUpToItsMaximum() {
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: 2, maxDelay: 5, jitter: 0)
        let now = Date(timeIntervalSince1970: 0)
        #expect(policy.retryDate(afterAttempts: 1, now: now) == Date(timeIntervalSince1970: 2))
        #expect(policy.retryDate(afterAttempts: 2, now: now) == Date(timeIntervalSince1970: 4))
        #expect(policy.retryDate(afterAttempts: 3, now: now) == Date(timeIntervalSince1970: 5))
        #expect(policy.retryDate(afterAttempts: 4, now: now) == nil)
    }

    @Test func manyConcurrentWorkersInSeveralConnectionsNeverClaimTheSameReceipt() async throws {
        let dir = try TemporaryDirectory()
        let stores = try (0..<3).map { _ in try SQLiteReceiptStore(path: dir.storePath) }
        let count = 300
        for i in 0..<count { _ = try await pendingReceipt(stores[0], "r\(i).jpg") }

        let claimed = try await withThrowingTaskGroup(of: [UUID].self) { group in
            for worker in 0..<12 {
                let store = stores[worker % stores.count]
                group.addTask {
                    var mine: [UUID] = []
                    while let job = try await store.claimNext(Lease(owner: "w\(worker)", duration: 60)) {
                        mine.append(job.receipt.id)
                    }
                    return mine
                }
            }
            var all: [[UUID]] = []
            for try await list in group { all.append(list) }
            return all
        }
        let ids = claimed.flatMap { $0 }
        #expect(ids.count == count)
        #expect(Set(ids).count == count)
        #expect(claimed.filter { !$0.isEmpty }.count > 1)
        #expect(try await stores[0].statusCounts() == [.processing: count])
    }

    @Test func expiredLeasesAreReclaimedAndTheOldOwnerCannotFinish() async throws {
        let dir = try TemporaryDirectory()
        let store = try SQLiteReceiptStore(path: dir.storePath)
        let receipt = try await pendingReceipt(store)
        let t0 = Date()
        _ = try #require(try await store.claimNext(Lease(owner: "host:1:a/0", now: t0, duration: 10)))
        // Not expired yet, owner not known to be gone: stays.
        #expect(try await store.reclaim(now: t0.addingTimeInterval(5), maxAttempts: 3, isAbandoned: { _ in false }).isEmpty)
        let back = try await store.reclaim(now: t0.addingTimeInterval(11), maxAttempts: 3, isAbandoned: { _ in false })
        #expect(back.map(\.id) == [receipt.id])
        #expect(back.first?.ocrStatus == .pending)
        #expect(!(try await store.renew(id: receipt.id, Lease(owner: "host:1:a/0", duration: 10))))
        let again = try #require(try await store.claimNext(Lease(owner: "host:2:b/0", now: t0.addingTimeInterval(12), duration: 10)))
        #expect(again.receipt.attempts == 2)
        #expect(try await store.fail(id: receipt.id, owner: "host:1:a/0", error: "x", retryAt: nil, now: Date()) == nil)
        #expect(try await store.receipt(id: receipt.id)?.ocrStatus == .processing)
    }

    @Test func aReceiptInterruptedTooOftenFailsWithAClearError() async throws {
        let dir = try TemporaryDirectory()
        let store = try SQLiteReceiptStore(path: dir.storePath)
        let receipt = try await pendingReceipt(store, "crashy.jpg")
        var t = Date()
        for _ in 0..<2 {
            _ = try #require(try await store.claimNext(Lease(owner: "gone", now: t, duration: 1)))
            t = t.addingTimeInterval(2)
            _ = try await store.reclaim(now: t, maxAttempts: 2, isAbandoned: { _ in true })
        }
        let failed = try #require(try await store.receipt(id: receipt.id))
        #expect(failed.ocrStatus == .failed)
        #expect(failed.lastError?.hasPrefix("crashy.jpg: processing was interrupted 2 times") == true)
    }

    @Test func leasesOfDeadProcessesOnThisHostAreAbandoned() throws {
        let me = WorkerIdentity()
        WorkerIdentity.register(me.instance)
        defer { WorkerIdentity.unregister(me.instance) }
        #expect(!me.isAbandoned(me.owner(worker: 0)))
        // A process id that cannot exist.
        #expect(me.isAbandoned("\(me.host):2147483646:abcd/0"))
        // Another host: only the lease expiry tells.
        #expect(!me.isAbandoned("elsewhere:2147483646:abcd/0"))
        // This process, a pipeline instance that no longer exists.
        #expect(me.isAbandoned("\(me.host):\(getpid()):deadbeef/1"))
    }

    @Test func wakeSignalNeverMissesANotificationAndTimesOut() async {
        let signal = WakeSignal()
        let g = signal.generation
        signal.notifyAll()
        let start = ContinuousClock.now
        // Already notified: returns at once, not after the timeout. (The margin is wide: on a loaded
        // 2-core machine the second, 50 ms wait once took 6.5 s to come back.)
        await signal.wait(since: g, timeout: .seconds(300))
        await signal.wait(since: signal.generation, timeout: .milliseconds(50))
        #expect(ContinuousClock.now - start < .seconds(120))
        await withTaskGroup(of: Void.self) { group in
            let g2 = signal.generation
            group.addTask { await signal.wait(since: g2, timeout: .seconds(300)) }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(50))
                signal.notifyAll()
            }
        }
        #expect(ContinuousClock.now - start < .seconds(120), "a missed notification waits out the 300 s timeout")
    }

    @Test func notifyOneWakesOneIdleWaiterAndTheRestSleepOn() async {
        final class Count: Sendable { let value = Mutex(0) }
        let signal = WakeSignal()
        let count = Count()
        await withTaskGroup(of: Void.self) { group in
            let g = signal.generation
            for _ in 0..<3 {
                group.addTask {
                    await signal.wait(since: g, timeout: .seconds(300))
                    count.value.withLock { $0 += 1 }
                }
            }
            // Once the three are asleep, one notification.
            let asleep = ContinuousClock.now + .seconds(60)
            while signal.sleepers < 3, ContinuousClock.now < asleep { try? await Task.sleep(for: .milliseconds(10)) }
            signal.notifyOne()
            let deadline = ContinuousClock.now + .seconds(60)
            while count.value.withLock({ $0 }) < 1, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
            try? await Task.sleep(for: .milliseconds(200))
            #expect(count.value.withLock { $0 } == 1, "one new receipt should wake one idle worker")
            // A task that read the generation before the notification does not sleep through it.
            let before = signal.generation
            signal.notifyOne()
            await signal.wait(since: before, timeout: .seconds(300))
            signal.notifyAll()
        }
        #expect(count.value.withLock { $0 } == 3)
    }
}
