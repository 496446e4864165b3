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

    /// Item 6: a confirmed expense is a person's record: its receipt is kept (409) unless forced.
    @Test func aReceiptWithAConfirmedExpenseIsKeptUnlessForced() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath)
        let (_, record) = try await server.upload("uk-parking.jpg", wait: 60)
        let id = try #require(record["receiptId"]?.stringValue)
        let expense = try #require(record["expense"]?["id"]?.stringValue)
        let confirmed = try await server.send("PATCH", "/v1/expenses/\(expense)", body: Data(#"{"amount": "8.00", "status": "confirmed"}"#.utf8),
                                              headers: ["Content-Type": "application/json"])
        #expect(confirmed.status == 200)
        let refused = try await server.send("DELETE", "/v1/receipts/\(id)")
        #expect(refused.status == 409, "\(String(decoding: refused.body, as: UTF8.self))")
        #expect(String(decoding: refused.body, as: UTF8.self).contains("force=true"))
        #expect(try await server.send("GET", "/v1/receipts/\(id)").status == 200, "still there")
        #expect(try await server.send("DELETE", "/v1/receipts/\(id)?force=yes").status == 400)
        #expect(try await server.send("DELETE", "/v1/receipts/\(id)?force=true").status == 204)
        #expect(try await server.send("GET", "/v1/expenses/\(expense)").status == 404)
        #expect(try await server.stop())
    }

    /// Item 10 and a name for raw uploads: two `file` parts are refused (nothing stored); a raw
    /// upload is named by ?filename= or Content-Disposition.
    @Test func oneReceiptPerUploadAndRawUploadsHaveNames() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath, arguments: ["--workers", "1"])
        let parking = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
        let diner = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("us-diner.jpg")))
        let boundary = "b-29"
        var body = Data()
        for (name, data) in [("IMG_1.jpg", parking), ("IMG_2.jpg", diner)] {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(name)\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            body += data + Data("\r\n".utf8)
        }
        body += Data("--\(boundary)--\r\n".utf8)
        let two = try await server.send("POST", "/v1/receipts", body: body, headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"])
        #expect(two.status == 400)
        #expect(String(decoding: two.body, as: UTF8.self).contains("2 'file' parts"))
        let (_, list) = try await server.json("GET", "/v1/receipts")
        #expect(list["receipts"]?.arrayValue?.isEmpty == true, "nothing stored")

        let named = try await server.json("POST", "/v1/receipts?filename=%2Fhome%2Fme%2FIMG_0042.jpg", body: parking, headers: ["Content-Type": "image/jpeg"])
        #expect(named.1["file"] == .string("IMG_0042.jpg"), "\(named.1)")
        let disposition = try await server.json("POST", "/v1/receipts", body: diner,
                                                headers: ["Content-Type": "image/jpeg", "Content-Disposition": "attachment; filename=\"diner.jpg\""])
        #expect(disposition.1["file"] == .string("diner.jpg"), "\(disposition.1)")
        #expect(try await server.stop())
    }

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

    /// Item 18 (HTTP) and the record's times: 405 with Allow for a method a path does not serve,
    /// OPTIONS answered with Allow, HEAD refused the same way; records carry attempts and times.
    @Test func methodsAPathDoesNotServeGet405WithAllow() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath)
        for (method, path, allow) in [("TRACE", "/healthz", "GET, OPTIONS"), ("PUT", "/v1/receipts", "POST, GET, OPTIONS"),
                                      ("HEAD", "/v1/expenses", "GET, OPTIONS"),
                                      ("POST", "/v1/receipts/6f9619ff-8b86-d011-b42d-00c04fc964ff", "GET, DELETE, OPTIONS"),
                                      ("DELETE", "/v1/expenses/export.csv", "GET, OPTIONS")] {
            let answer = try await server.send(method, path)
            #expect(answer.status == 405, "\(method) \(path)")
            #expect(answer.headers["allow"] == allow, "\(method) \(path): \(answer.headers)")
        }
        let options = try await server.send("OPTIONS", "/v1/expenses/6f9619ff-8b86-d011-b42d-00c04fc964ff")
        #expect(options.status == 204 && options.headers["allow"] == "GET, PATCH, OPTIONS")
        #expect(try await server.send("TRACE", "/v2/nothing").status == 404)
        let (_, record) = try await server.upload("uk-parking.jpg", wait: 60)
        #expect(record["attempts"] == .number("1") && record["lastError"] == .null, "\(record)")
        #expect(record["createdAt"]?.stringValue?.hasSuffix("Z") == true && record["updatedAt"]?.stringValue != nil)
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
