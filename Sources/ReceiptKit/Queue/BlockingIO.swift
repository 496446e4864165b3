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
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(ReceiptError(.unreadable, file: path, "no such file"))
        }
        if isDirectory.boolValue {
            return .failure(ReceiptError(.unreadable, file: path, "is a folder, not an image file"))
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            return .failure(ReceiptError(.unreadable, file: path, "cannot read the file (permission denied)"))
        }
        do {
            return .success(try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe))
        } catch {
            return .failure(ReceiptError(.unreadable, file: path, "cannot read the file (\(error.localizedDescription))"))
        }
    }
}
