import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ReceiptKit
@testable import TestHelpers

/// What a new user met at the HTTP door (issue 29, items 6, 10, 17, 18 and the backend's wishes),
/// on the real `receipts serve` on 127.0.0.1 with a real SQLite store and real OCR.
@Suite(.serialized) struct ServeDoorsTests {
    typealias Server = ServeCommandTests.Server

    /// Item 17 and analyze?store=true's ids: a data URL and URL-safe base64 are read; an empty image
    /// is a 400 as an empty upload is; ?store= is true or false.
    @Test func analyzeTakesTheImageAsClientsSendItAndSaysWhereItStoredIt() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath)
        let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
        let standard = data.base64EncodedString()
        let urlSafe = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(urlSafe != standard)
        let json = ["Content-Type": "application/json"]
        for image in ["data:image/jpeg;base64,\(standard)", urlSafe] {
            let (status, analysis) = try await server.json("POST", "/v1/analyze", body: Data(#"{"image": "\#(image)"}"#.utf8), headers: json)
            #expect(status == 200 && analysis["total"] == .number("7.50"), "\(image.prefix(30)): \(analysis)")
        }
        let empty = try await server.send("POST", "/v1/analyze", body: Data(#"{"image": ""}"#.utf8), headers: json)
        #expect(empty.status == 400 && String(decoding: empty.body, as: UTF8.self).contains("image is empty"))
        for value in ["1", "yes"] {
            let answer = try await server.send("POST", "/v1/analyze?store=\(value)", body: Data(#"{"image": "\#(standard)"}"#.utf8), headers: json)
            #expect(answer.status == 400, "store=\(value)")
        }
        let (_, list) = try await server.json("GET", "/v1/receipts")
        #expect(list["receipts"]?.arrayValue?.isEmpty == true, "nothing was stored")
        let stored = try await server.send("POST", "/v1/analyze?store=true", body: Data(#"{"image": "\#(standard)"}"#.utf8), headers: json)
        let body = try JSONValue.parse(stored.body)
        let receiptId = try #require(body["receiptId"]?.stringValue)
        #expect(stored.headers["location"] == "/v1/receipts/\(receiptId)")
        let (_, record) = try await server.json("GET", "/v1/receipts/\(receiptId)")
        #expect(record["expense"]?["id"] == body["expenseId"] && body["expenseId"] != .null)
        #expect(try await server.stop())
    }

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
