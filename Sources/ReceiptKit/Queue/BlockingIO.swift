import Foundation

/// Runs file reads, hashing and fsyncs on Dispatch's threads, so they never hold one of Swift's
/// cooperative threads (there are only as many as cores).
enum BlockingIO {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try body() })
            }
        }
    }

    /// Reads an image file; the error is one line naming the file and the cause.
    static func readImage(at path: String) -> Result<Data, ReceiptError> {
        Result { try ReceiptFile.read(URL(fileURLWithPath: path), file: path) }
            .mapError { $0 as? ReceiptError ?? ReceiptError(.unreadable, file: path, "cannot read the file (\($0))") }
    }
}
