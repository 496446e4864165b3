// Test support is built for the tests only (debug builds, where @testable imports work):
// `swift build -c release` builds every regular target, this one included, and gets it empty.
#if DEBUG
import Foundation
import Logging
import ReceiptKit
@testable import TestHelpers

enum TestSupport {
    static let logger = Logger(label: "receipts.tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// An OCR engine running for the rest of the test process (shared by a suite's tests).
    static func runningEngine(_ configuration: OCRConfiguration = OCRConfiguration(), threads: Int) -> OCREngine {
        let engine = try! OCREngine(configuration: configuration, threads: threads, logger: logger)
        Task.detached { try await engine.run() }
        return engine
    }

    /// A pipeline with short timings, so retries take milliseconds. The lease is long (30 s, longer
    /// under a sanitizer: `testTimeScale`): with the whole suite running, a renewal was measured
    /// late by more than 5 s, which let a second worker read the receipt again — what a lease is
    /// for, but not what these tests test (the stores' contract tests expire leases on purpose).
    static func pipeline(_ dir: TemporaryDirectory, processor: any ReceiptProcessing = ScriptedProcessor(),
                         workers: Int = 2, maxAttempts: Int = 3, leaseDuration: TimeInterval = 30 * testTimeScale,
                         storePath: String? = nil) throws -> ReceiptPipeline {
        let configuration = ReceiptPipeline.Configuration(
            workers: workers, retry: RetryPolicy(maxAttempts: maxAttempts, baseDelay: 0.02, maxDelay: 0.1, jitter: 0),
            leaseDuration: leaseDuration, pollInterval: 0.05)
        return try ReceiptPipeline(storePath: storePath ?? dir.storePath, processor: processor,
                                   configuration: configuration, logger: logger)
    }
}

#endif
