import Foundation

/// Set once, when a graceful shutdown starts: workers finish the receipt in hand and take no more.
final class StopFlag: @unchecked Sendable {
    // Invariant: `value` is only touched with `lock` held.
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    func set() { lock.withLock { value = true } }
}
