import Foundation
import Logging
import ReceiptKit

/// A folder under the system's temporary folder, removed when the value is released.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    var storePath: String { path("store/receipts.sqlite") }

    @discardableResult
    func write(_ name: String, _ data: Data) throws -> String {
        let target = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: target)
        return target.path
    }
}

enum TestSupport {
    static let logger = Logger(label: "receipts.tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// An OCR engine running for the rest of the test process (shared by a suite's tests).
    static func runningEngine(_ configuration: OCRConfiguration = OCRConfiguration(), threads: Int) -> OCREngine {
        let engine = try! OCREngine(configuration: configuration, threads: threads, logger: logger)
        Task.detached { try await engine.run() }
        return engine
    }

    /// A pipeline with short timings, so retries and lease expiry take milliseconds.
    static func pipeline(_ dir: TemporaryDirectory, processor: any ReceiptProcessing = ScriptedProcessor(),
                         workers: Int = 2, maxAttempts: Int = 3, leaseDuration: TimeInterval = 5,
                         storePath: String? = nil) throws -> ReceiptPipeline {
        let configuration = ReceiptPipeline.Configuration(
            workers: workers, retry: RetryPolicy(maxAttempts: maxAttempts, baseDelay: 0.02, maxDelay: 0.1, jitter: 0),
            leaseDuration: leaseDuration, pollInterval: 0.05)
        return try ReceiptPipeline(storePath: storePath ?? dir.storePath, processor: processor,
                                   configuration: configuration, logger: logger)
    }
}
