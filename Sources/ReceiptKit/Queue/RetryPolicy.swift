import Foundation

/// How often a receipt is tried and how long to wait between tries.
///
/// Only transient errors (`ReceiptError.isTransient`, e.g. a remote analyzer that timed out) are
/// retried; a permanent error (a file that is not an image) fails the receipt at once. A receipt
/// whose processing was interrupted (crash, SIGKILL) also counts an attempt.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// Wait before the second attempt; doubled for each further one.
    public var baseDelay: TimeInterval
    public var maxDelay: TimeInterval
    /// Random extra share of the delay (0.2: up to 20% more), so retries of a batch spread out.
    public var jitter: Double

    public init(maxAttempts: Int = 3, baseDelay: TimeInterval = 2, maxDelay: TimeInterval = 300, jitter: Double = 0.2) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.jitter = max(0, jitter)
    }

    /// When to try again after `attempts` attempts failed transiently; nil when none are left.
    public func retryDate(afterAttempts attempts: Int, now: Date) -> Date? {
        guard attempts < maxAttempts else { return nil }
        let exponent = Double(max(0, attempts - 1))
        let delay = min(maxDelay, baseDelay * pow(2, exponent))
        return now.addingTimeInterval(delay * (1 + Double.random(in: 0...jitter)))
    }
}
