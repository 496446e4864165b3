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

/// A child process's output captured in a temporary file rather than a pipe: nothing blocks when
/// the child writes a lot, and nothing reads a pipe that a signal can interrupt (Foundation's
/// `readDataToEndOfFile` traps on EINTR).
final class CapturedOutput: @unchecked Sendable {
    let url: URL
    let handle: FileHandle

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-output-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        handle = try FileHandle(forWritingTo: url)
    }

    deinit {
        try? handle.close()
        try? FileManager.default.removeItem(at: url)
    }

    /// Everything written so far.
    var data: Data { (try? Data(contentsOf: url)) ?? Data() }
    var text: String { String(decoding: data, as: UTF8.self) }
}
