import Foundation

/// Wakes tasks that wait for something to change (work submitted, a receipt finished, shutdown).
///
/// A waiter reads `generation` before looking at the store and passes it to `wait`, so a
/// notification that arrives in between is never missed; the timeout covers changes made by other
/// processes, which cannot notify.
final class WakeSignal: @unchecked Sendable {
    // Invariant: `generationValue`, `waiters` and `nextToken` are only touched with `lock` held;
    // every continuation stored in `waiters` is resumed exactly once, by whoever removes it.
    private enum Waiter {
        case registered
        case waiting(CheckedContinuation<Void, Never>)
        case abandoned
    }

    private let lock = NSLock()
    private var generationValue: UInt64 = 0
    private var waiters: [UInt64: Waiter] = [:]
    private var nextToken: UInt64 = 0

    var generation: UInt64 { lock.withLock { generationValue } }

    func notifyAll() {
        let resumed: [CheckedContinuation<Void, Never>] = lock.withLock {
            generationValue &+= 1
            var list: [CheckedContinuation<Void, Never>] = []
            for (token, waiter) in waiters {
                if case let .waiting(c) = waiter {
                    list.append(c)
                    waiters.removeValue(forKey: token)
                }
            }
            return list
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Returns when notified after `generation`, after `timeout`, or when the task is cancelled.
    func wait(since generation: UInt64, timeout: Duration) async {
        let token: UInt64? = lock.withLock {
            guard generationValue == generation else { return nil }
            nextToken &+= 1
            waiters[nextToken] = .registered
            return nextToken
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
            let resumeNow: Bool = lock.withLock {
                guard case .registered? = waiters[token], generationValue == generation else {
                    waiters.removeValue(forKey: token)
                    return true
                }
                waiters[token] = .waiting(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func abandon(_ token: UInt64) {
        let continuation: CheckedContinuation<Void, Never>? = lock.withLock {
            switch waiters[token] {
            case let .waiting(c)?:
                waiters.removeValue(forKey: token)
                return c
            case .registered?:
                waiters[token] = .abandoned
                return nil
            case .abandoned?, nil:
                return nil
            }
        }
        continuation?.resume()
    }
}
