import Foundation

/// Runs blocking work (waiting for a child process, reading its pipes) on a thread of its own.
///
/// Tests run in parallel on Swift's cooperative pool (2 threads here); a test that blocks one of
/// them stalls every other test's timers and makes timing assertions fail for no reason.
enum OffPool {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
