import Synchronization
import Foundation
import GRDB
import Testing
@testable import ReceiptKit

/// The queue's own pieces. What every store must do (claims, leases, retries, reclaiming) is in
/// `StoreContractTests`, run against SQLite and PostgreSQL.
@Suite struct QueueTests {
    @Test func retryPolicyBacksOffExponentiallyUpToItsMaximum() {
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: 2, maxDelay: 5, jitter: 0)
        let now = Date(timeIntervalSince1970: 0)
        #expect(policy.retryDate(afterAttempts: 1, now: now) == Date(timeIntervalSince1970: 2))
        #expect(policy.retryDate(afterAttempts: 2, now: now) == Date(timeIntervalSince1970: 4))
        #expect(policy.retryDate(afterAttempts: 3, now: now) == Date(timeIntervalSince1970: 5))
        #expect(policy.retryDate(afterAttempts: 4, now: now) == nil)
    }

    @Test func leasesOfDeadProcessesOnThisHostAreAbandoned() throws {
        let me = WorkerIdentity()
        WorkerIdentity.register(me.instance)
        defer { WorkerIdentity.unregister(me.instance) }
        #expect(!me.isAbandoned(me.holder(worker: 0)))
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
            // The other two are still asleep: woken, they would have left the sleepers at once.
            #expect(signal.sleepers == 2, "one new receipt should wake one idle worker")
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
