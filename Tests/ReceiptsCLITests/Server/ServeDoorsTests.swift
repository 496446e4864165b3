import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ReceiptKit
@testable import TestHelpers

/// The HTTP door with the reading done elsewhere: the real `receipts serve --workers 0` on
/// 127.0.0.1 and a separate `receipts worker` process on one SQLite store, real OCR. The doors of
/// issue 29 (items 6, 10, 17, 18) are tested in process: ReceiptServerTests.
@Suite(.serialized) struct ServeDoorsTests {
    typealias Server = ServeCommandTests.Server

    /// `serve --workers 0` reads nothing (another host's `receipts worker` does); it still answers.
    @Test func serveWithoutWorkersLeavesTheReadingToWorkers() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath, arguments: ["--workers", "0"])
        let (status, record) = try await server.upload("uk-parking.jpg")
        #expect(status == 202)
        let id = try #require(record["receiptId"]?.stringValue)
        #expect(try await server.json("GET", "/v1/receipts/\(id)").1["ocrStatus"] == .string("pending"))
        let worker = Process()
        worker.executableURL = ReceiptsCLI.binary
        worker.environment = ReceiptsCLI.environment()
        worker.arguments = ["worker", "--store", dir.storePath, "--workers", "1"]
        worker.standardOutput = FileHandle.nullDevice
        worker.standardError = FileHandle.nullDevice
        try worker.run()
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        #expect(try await ServeCommandTests.until(timeout: 60) {
            try await server.json("GET", "/v1/receipts/\(id)").1["ocrStatus"] == .string("completed")
        })
        // Read by the worker, not here: the server's workers finished nothing (instead of waiting a
        // while and seeing it still pending).
        let metrics = String(decoding: try await server.send("GET", "/metrics").body, as: UTF8.self)
        #expect(MetricsText.value("receipts{status=\"completed\"}", in: metrics) == 1, "\(metrics)")
        #expect(!metrics.contains("receipts_processed_total{"), "nobody read it here: \(metrics)")
        kill(worker.processIdentifier, SIGTERM)
        #expect(try await server.stop())
    }
}
