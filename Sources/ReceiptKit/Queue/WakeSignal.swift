import Foundation
import Synchronization

/// Wakes tasks that wait for something to change (work submitted, a receipt finished, shutdown).
///
/// A waiter reads `generation` before looking at the store and passes it to `wait`, so a
/// notification that arrives in between is never missed; the timeout covers changes made by other
/// processes, which cannot notify.
package final class WakeSignal: Sendable {
    // Every continuation stored in `waiters` is resumed exactly once, by whoever removes it.
    private enum Waiter {
        case registered
        case waiting(CheckedContinuation<Void, Never>)
        case abandoned
    }

    private struct State {
        var generation: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextToken: UInt64 = 0
    }

    private let state = Mutex(State())

    package init() {}

    package var generation: UInt64 { state.withLock { $0.generation } }

    /// How many tasks are asleep in `wait` now.
    var sleepers: Int {
        state.withLock { s in s.waiters.values.filter { if case .waiting = $0 { true } else { false } }.count }
    }

    package func notifyAll() {
        let resumed: [CheckedContinuation<Void, Never>] = state.withLock { s in
            s.generation &+= 1
            var list: [CheckedContinuation<Void, Never>] = []
            for (token, waiter) in s.waiters {
                if case let .waiting(c) = waiter {
                    list.append(c)
                    s.waiters.removeValue(forKey: token)
                }
            }
            return list
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Wakes one waiting task (the longest waiting), for "one more receipt is there": the others
    /// sleep on. The generation still moves on, so a task between its look at the store and its
    /// wait looks again and nothing is missed.
    package func notifyOne() {
        let resumed: CheckedContinuation<Void, Never>? = state.withLock { s in
            s.generation &+= 1
            for (token, waiter) in s.waiters.sorted(by: { $0.key < $1.key }) {
                if case let .waiting(c) = waiter {
                    s.waiters.removeValue(forKey: token)
                    return c
                }
            }
            return nil
        }
        resumed?.resume()
    }

    /// Returns when notified after `generation`, after `timeout`, or when the task is cancelled.
    package func wait(since generation: UInt64, timeout: Duration) async {
        let token: UInt64? = state.withLock { s in
            guard s.generation == generation else { return nil }
            s.nextToken &+= 1
            s.waiters[s.nextToken] = .registered
            return s.nextToken
        }
        guard let token else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.suspend(token, generation: generation) }
            await group.next()
            group.cancelAll()
            self.abandon(token)
        }
    }

    private func suspend(_ token: UInt64, generation: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow: Bool = state.withLock { s in
                guard case .registered? = s.waiters[token], s.generation == generation else {
                    s.waiters.removeValue(forKey: token)
                    return true
                }
                s.waiters[token] = .waiting(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func abandon(_ token: UInt64) {
        let continuation: CheckedContinuation<Void, Never>? = state.withLock { s in
            switch s.waiters[token] {
            case let .waiting(c)?:
                s.waiters.removeValue(forKey: token)
                return c
            case .registered?:
                s.waiters[token] = .abandoned
                return nil
            case .abandoned?, nil:
                return nil
            }
        }
        continuation?.resume()
    }
}
