import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ReceiptKit
@testable import ReceiptServer
@testable import TestHelpers
@testable import TestSupport

/// The real `receipts serve` binary on 127.0.0.1, a real HTTP client (URLSession), a real SQLite
/// store, real Tesseract.
@Suite(.serialized) struct ServeCommandTests {
    /// A running server: its process, its base URL and its stderr.
    final class Server: @unchecked Sendable {
        let process: Process
        let stderr: CapturedOutput
        let base: URL
        let store: String

        init(store: String, arguments: [String] = [], environment extra: [String: String] = [:]) async throws {
            self.store = store
            process = Process()
            process.executableURL = ReceiptsCLI.binary
            process.arguments = ["serve", "--port", "0", "--store", store, "--workers", "2"] + arguments
            process.environment = ReceiptsCLI.environment(extra)
            stderr = try CapturedOutput()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = stderr.handle
            try process.run()
            var url: URL?
            _ = try await eventually(timeout: 30) { [stderr] in
                let text = stderr.text
                guard let range = text.range(of: #"http\.url=http://127\.0\.0\.1:\d+"#, options: .regularExpression) else { return false }
                url = URL(string: String(text[range].dropFirst("http.url=".count)))
                return true
            }
            base = try #require(url, "the server never said where it listens: \(stderr.text)")
        }

        func stop(_ signal: Int32 = SIGTERM) async throws -> Bool {
            kill(process.processIdentifier, signal)
            return try await eventually(timeout: 15) { !self.process.isRunning }
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        /// Sends a request; returns the status, the headers and the body.
        func send(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws
            -> (status: Int, headers: [String: String], body: Data) {
            var request = URLRequest(url: URL(string: path, relativeTo: base)!)
            request.httpMethod = method
            request.httpBody = body
            for (key, value) in headers { request.setValue(value, forHTTPHeaderField: key) }
            request.timeoutInterval = 60
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            var fields: [String: String] = [:]
            for (key, value) in http.allHeaderFields { fields["\(key)".lowercased()] = "\(value)" }
            return (http.statusCode, fields, data)
        }

        func json(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws -> (Int, JSONValue) {
            let answer = try await send(method, path, body: body, headers: headers)
            return (answer.status, try JSONValue.parse(answer.body))
        }

        func upload(_ name: String, wait: Int? = nil) async throws -> (Int, JSONValue) {
            let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt(name)))
            return try await json("POST", "/v1/receipts" + (wait.map { "?wait=\($0)" } ?? ""), body: data,
                                  headers: ["Content-Type": "image/jpeg"])
        }
    }

    static let images = ["uk-parking.jpg", "us-diner.jpg", "uk-fuel-unleaded.jpg", "de-tankstelle.jpg", "us-auto-parts.jpg"]

    @Test func anUploadWaitedForGivesTheRecordProcessPrints() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.path("serve/receipts.sqlite"))
        let (status, record) = try await server.upload("us-diner.jpg", wait: 30)
        #expect(status == 200)
        #expect(record["ocrStatus"]?.stringValue == "completed")

        let cli = try await ReceiptsCLI.run(["process", ReceiptsCLI.testReceipt("us-diner.jpg"), "--store", dir.storePath, "--format", "ndjson"])
        let printed = try #require(try cli.ndjson().first)
        for field in ["vendor", "date", "total", "tax", "currency", "category", "lineItems"] {
            #expect(record["analysis"]?[field] == printed["analysis"]?[field], "\(field)")
        }
        #expect(record["expense"]?["amount"] == printed["expense"]?["amount"])
        #expect(record.objectValue?.map(\.0) == printed.objectValue?.map(\.0), "the same record shape as the NDJSON contract")

        // The record and the image can be fetched again.
        let id = try #require(record["receiptId"]?.stringValue)
        let (again, fetched) = try await server.json("GET", "/v1/receipts/\(id)")
        #expect(again == 200 && fetched["analysis"]?["total"] == record["analysis"]?["total"])
        let image = try await server.send("GET", "/v1/receipts/\(id)/image")
        #expect(image.status == 200 && image.headers["content-type"] == "image/jpeg")
        #expect(image.body == (try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("us-diner.jpg")))))
        #expect(try await server.stop())
    }

    /// The default readers (both) in a user's server: an upload is read by both and its record is
    /// what `process` prints with them.
    @Test func withBothReadersAnUploadGetsTheRecordProcessPrints() async throws {
        let dir = try TemporaryDirectory()
        let bothReaders = ["RECEIPTS_READER": ""]
        let server = try await Server(store: dir.path("serve/receipts.sqlite"), environment: bothReaders)
        let (status, accepted) = try await server.upload("us-diner.jpg")
        #expect(status == 202)
        let id = try #require(accepted["receiptId"]?.stringValue)
        var record = accepted
        #expect(try await Self.until(timeout: 300) {
            record = try await server.json("GET", "/v1/receipts/\(id)").1
            return record["ocrStatus"]?.stringValue == "completed"
        }, "\(record)")
        let cli = try await ReceiptsCLI.run(["process", ReceiptsCLI.testReceipt("us-diner.jpg"), "--store", dir.storePath, "--format", "ndjson"],
                                            environment: bothReaders)
        let printed = try #require(try cli.ndjson().first, "\(cli.err)")
        for field in ["vendor", "date", "total", "tax", "currency", "category", "lineItems"] {
            #expect(record["analysis"]?[field] == printed["analysis"]?[field], "\(field)")
        }
        #expect(try await server.stop())
    }

    @Test func withoutWaitAnUploadIsAcceptedAndPointsToItsRecord() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath)
        let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
        let boundary = "receipts-test-boundary"
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n".utf8)
        body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"IMG_1.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
        body += data + Data("\r\n--\(boundary)--\r\n".utf8)
        let answer = try await server.send("POST", "/v1/receipts", body: body,
                                           headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"])
        #expect(answer.status == 202)
        let record = try JSONValue.parse(answer.body)
        let id = try #require(record["receiptId"]?.stringValue)
        #expect(answer.headers["location"] == "/v1/receipts/\(id)")
        #expect(record["file"]?.stringValue == "IMG_1.jpg")
        var latest = record
        #expect(try await Self.until(timeout: 120) {
            latest = try await server.json("GET", "/v1/receipts/\(id)").1
            return latest["ocrStatus"]?.stringValue == "completed"
        }, "\(latest)")
        #expect(latest["analysis"]?["total"]?.doubleValue == 7.50)
        #expect(try await server.stop())
    }

    /// Polls `check` every 0.2 s until it holds (true) or `timeout` seconds pass (false).
    static func until(timeout: Double, _ check: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try await check() { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return try await check()
    }

    @Test func theSameBytesUploadedConcurrentlyAreOneReceipt() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath)
        // 100 uploads of 20 distinct images (five receipts, each also with 1–3 bytes appended
        // after its end, which decoders ignore): exactly 20 receipts.
        var distinct: [Data] = []
        for name in Self.images {
            let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt(name)))
            for extra in 0..<4 { distinct.append(data + Data(repeating: 0, count: extra)) }
        }
        let uploads = distinct
        let ids = try await withThrowingTaskGroup(of: String?.self) { group in
            for i in 0..<100 {
                group.addTask {
                    let (status, record) = try await server.json("POST", "/v1/receipts", body: uploads[i % 20],
                                                                 headers: ["Content-Type": "image/jpeg"])
                    return [200, 202].contains(status) ? record["receiptId"]?.stringValue : nil
                }
            }
            var ids: [String?] = []
            for try await id in group { ids.append(id) }
            return ids
        }
        #expect(ids.allSatisfy { $0 != nil }, "every upload was accepted")
        #expect(Set(ids.compactMap { $0 }).count == 20)
        let (_, list) = try await server.json("GET", "/v1/receipts?limit=500")
        #expect(list["receipts"]?.arrayValue?.count == 20)
        #expect(try await server.stop())
    }

    @Test func errorsAreProblemDocumentsWithTheRightStatus() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath, arguments: ["--max-upload-mb", "0.05"])
        func problem(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws -> (Int, JSONValue, String?) {
            let answer = try await server.send(method, path, body: body, headers: headers)
            return (answer.status, try JSONValue.parse(answer.body), answer.headers["content-type"])
        }
        let small = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("bad/text.jpg")))
        let big = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-supermarket.jpg")))
        let bomb = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("bad/huge.png")))
        let cases: [(String, String, Data?, [String: String], Int, String)] = [
            ("POST", "/v1/receipts", small, ["Content-Type": "image/jpeg"], 415, "unrecognised format"),
            ("POST", "/v1/receipts", bomb, ["Content-Type": "image/png"], 422, "50000×50000 pixels"),
            ("POST", "/v1/receipts", big, ["Content-Type": "image/jpeg"], 413, "larger than 0.05 MB"),
            ("POST", "/v1/receipts", Data("--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc".utf8),
             ["Content-Type": "multipart/form-data; boundary=b"], 400, "truncated or malformed"),
            ("POST", "/v1/receipts", Data(), ["Content-Type": "image/jpeg"], 400, "empty"),
            ("GET", "/v1/receipts/6f9619ff-8b86-d011-b42d-00c04fc964ff", nil, [:], 404, "no receipt with id"),
            ("GET", "/v1/receipts/not-an-id", nil, [:], 404, "no receipt with id"),
            ("GET", "/v1/receipts?status=done", nil, [:], 400, "status must be one of"),
            ("GET", "/v1/receipts?limit=0", nil, [:], 400, "limit must be"),
            ("POST", "/v1/analyze", Data("{not json".utf8), ["Content-Type": "application/json"], 400, "not JSON"),
            ("POST", "/v1/analyze", Data(#"{"image": "@@@"}"#.utf8), ["Content-Type": "application/json"], 400, "not base64"),
            ("GET", "/v2/nothing", nil, [:], 404, "no such route"),
        ]
        for (method, path, body, headers, status, detail) in cases {
            let (got, document, type) = try await problem(method, path, body: body, headers: headers)
            #expect(got == status, "\(method) \(path)")
            #expect(type == "application/problem+json", "\(method) \(path)")
            #expect(document["status"]?.doubleValue == Double(status) && document["title"]?.stringValue?.isEmpty == false)
            #expect(document["detail"]?.stringValue?.contains(detail) == true, "\(method) \(path): \(document)")
        }
        #expect(try await server.stop())
    }

    @Test func analyzeReadsABase64ImageAndStoresNothing() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath)
        let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
        let body = Data(#"{"image": "\#(data.base64EncodedString())", "mimeType": "image/jpeg"}"#.utf8)
        let (status, analysis) = try await server.json("POST", "/v1/analyze", body: body, headers: ["Content-Type": "application/json"])
        #expect(status == 200)
        #expect(analysis["total"]?.doubleValue == 7.50)
        #expect(analysis["vendor"]?.stringValue == "CASTLEGATE PARKING")
        let (_, list) = try await server.json("GET", "/v1/receipts")
        #expect(list["receipts"]?.arrayValue?.isEmpty == true)
        // With store=true the receipt and its expense are kept, and Location says where.
        let stored = try await server.send("POST", "/v1/analyze?store=true", body: body, headers: ["Content-Type": "application/json"])
        #expect(stored.status == 200)
        #expect(try JSONValue.parse(stored.body)["total"]?.doubleValue == 7.50)
        let location = try #require(stored.headers["location"])
        let (_, record) = try await server.json("GET", location)
        #expect(record["expense"]?["amount"]?.doubleValue == 7.50)
        #expect(try await server.stop())
    }

    @Test func sigtermMidBatchThenARestartCompletesEveryReceiptOnce() async throws {
        let dir = try TemporaryDirectory()
        var server: Server? = try await Server(store: dir.storePath)
        var ids: Set<String> = []
        for name in Self.images {
            let (status, record) = try await server!.upload(name)
            #expect(status == 202 || status == 200)
            ids.insert(try #require(record["receiptId"]?.stringValue))
        }
        #expect(try await server!.stop(SIGTERM), "the server exits within 15 s of SIGTERM")
        server = nil
        let restarted = try await Server(store: dir.storePath)
        var list = JSONValue.null
        #expect(try await Self.until(timeout: 180) {
            list = try await restarted.json("GET", "/v1/receipts?limit=500").1
            return list["receipts"]?.arrayValue?.allSatisfy { $0["ocrStatus"]?.stringValue == "completed" } == true
        }, "\(list)")
        let records = list["receipts"]?.arrayValue ?? []
        #expect(Set(records.compactMap { $0["receiptId"]?.stringValue }) == ids, "every receipt, once")
        #expect(records.count == ids.count)
        #expect(records.allSatisfy { $0["expense"]?["receiptId"] == $0["receiptId"] }, "one expense each")
        #expect(try await restarted.stop())
    }

    @Test func theOpenAPIDocumentDescribesEveryRoute() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath)
        let answer = try await server.send("GET", "/openapi.yaml")
        #expect(answer.status == 200 && answer.headers["content-type"] == "application/yaml")
        let yaml = String(decoding: answer.body, as: UTF8.self)
        #expect(yaml.hasPrefix("openapi: 3.1.0"))
        // Paths are the lines "  /path:" under "paths:", their methods the lines "    get:" below them.
        var documented: Set<String> = [], path: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false).drop(while: { $0 != "paths:" }) {
            if line.hasPrefix("  /"), line.hasSuffix(":") { path = String(line.dropFirst(2).dropLast()) }
            else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                documented.insert(line.trimmingCharacters(in: .whitespaces).dropLast().uppercased() + " " + path)
            }
        }
        let served = Set(ReceiptServer.routes.map { "\($0.method) \($0.path)" })
        #expect(documented == served)
        // And every one of them is routed (a made-up id gives "no receipt", never "no such route").
        for route in ReceiptServer.routes {
            let path = route.path.replacingOccurrences(of: "{id}", with: "6f9619ff-8b86-d011-b42d-00c04fc964ff").replacingOccurrences(of: "{page}", with: "1")
            let answer = try await server.send(route.method, path, body: route.method == "POST" ? Data("{}".utf8) : nil,
                                               headers: ["Content-Type": "application/json"])
            #expect(![405, 500].contains(answer.status), "\(route)")
            #expect(!String(decoding: answer.body, as: UTF8.self).contains("no such route"), "\(route)")
        }
        #expect(try await server.stop())
    }

    @Test func aPersonCorrectsAndConfirmsADraftAndTheAnalyzersValuesAreKept() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath)
        let (_, record) = try await server.upload("uk-parking.jpg", wait: 30)
        let id = try #require(record["expense"]?["id"]?.stringValue)
        #expect(record["expense"]?["amount"]?.doubleValue == 7.50)
        let json = ["Content-Type": "application/json"]
        let (status, first) = try await server.json("PATCH", "/v1/expenses/\(id)", body: Data(#"{"amount": "8.00", "category": "Fuel"}"#.utf8), headers: json)
        #expect(status == 200)
        #expect(first["expense"]?["amount"]?.doubleValue == 8.00 && first["expense"]?["category"]?.stringValue == "Fuel")
        #expect(first["expense"]?["status"]?.stringValue == "draft")
        // A second correction of the amount keeps what the analyzer drafted, not the first correction.
        let (_, second) = try await server.json("PATCH", "/v1/expenses/\(id)", body: Data(#"{"amount": 8.5, "status": "confirmed"}"#.utf8), headers: json)
        #expect(second["expense"]?["amount"]?.doubleValue == 8.50)
        #expect(second["expense"]?["status"]?.stringValue == "confirmed" && second["expense"]?["needsReview"]?.boolValue == false)
        #expect(second["corrections"]?["amount"]?.doubleValue == 7.50, "\(second)")
        #expect(second["corrections"]?["category"]?.stringValue == "Other")
        #expect(second["corrections"]?["status"] == nil, "confirming is not a correction")
        let (_, confirmed) = try await server.json("GET", "/v1/expenses?status=confirmed")
        #expect(confirmed["expenses"]?.arrayValue?.first?["amount"]?.doubleValue == 8.50)
        let csv = try await server.send("GET", "/v1/expenses/export.csv?status=confirmed")
        #expect(csv.status == 200 && csv.headers["content-type"]?.hasPrefix("text/csv") == true)
        let rows = String(decoding: csv.body, as: UTF8.self).split(separator: "\r\n")
        #expect(rows.count == 2 && rows[0].hasPrefix("date,vendor,category,amount,"))
        #expect(rows[1].hasPrefix("2024-06-12,CASTLEGATE PARKING,Fuel,8.50,GBP,"), "\(rows)")
        #expect(try await server.send("GET", "/v1/expenses/export.csv?status=draft").body == Data((String(rows[0]) + "\r\n").utf8))
        // The receipt's analysis is still what the analyzer said.
        let (_, again) = try await server.json("GET", "/v1/receipts/\(try #require(record["receiptId"]?.stringValue))")
        #expect(again["analysis"]?["total"]?.doubleValue == 7.50)

        #expect(try await server.send("PATCH", "/v1/expenses/\(id)", body: Data(#"{"merchant": "x"}"#.utf8), headers: json).status == 400)
        #expect(try await server.send("PATCH", "/v1/expenses/\(id)", body: Data(#"{"date": "31/12/2024"}"#.utf8), headers: json).status == 400)
        #expect(try await server.send("PATCH", "/v1/expenses/6f9619ff-8b86-d011-b42d-00c04fc964ff", body: Data("{}".utf8), headers: json).status == 404)
        #expect(try await server.stop())
    }

    @Test("A CSV cell is quoted when it must be and never runs as a formula", arguments: [
        ("CASTLEGATE PARKING", "CASTLEGATE PARKING"), ("Smith, Jones & Co", "\"Smith, Jones & Co\""),
        ("The \"Plough\"", "\"The \"\"Plough\"\"\""), ("=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\""),
        ("-12.50", "-12.50"), ("@SUM(A1)", "'@SUM(A1)"),
    ])
    func csvCells(text: String, cell: String) {
        #expect(CSV.field(text) == cell)
    }

    @Test func aWebhookIsSignedAndRetriedUntilTheReceiverTakesIt() async throws {
        let receiver = try ScriptedHTTPServer([.respond(status: 500, body: "busy"), .respond(status: 204, body: "")])
        defer { receiver.stop() }
        let dir = try TemporaryDirectory()
        let secret = "whsec-test-1234"
        let server = try await Server(store: dir.storePath,
                                      arguments: ["--webhook", "http://127.0.0.1:\(receiver.port)/hooks/receipts", "--webhook-retry-delay", "0.1"],
                                      environment: ["RECEIPTS_WEBHOOK_SECRET": secret])
        let (_, record) = try await server.upload("uk-parking.jpg", wait: 30)
        #expect(try await Self.until(timeout: 30) { receiver.requests.count >= 2 })
        #expect(receiver.requests.count == 2, "one failed delivery, one retry")
        let delivered = try #require(receiver.requests.last)
        #expect(delivered.method == "POST" && delivered.path == "/hooks/receipts")
        #expect(delivered.json?["receiptId"] == record["receiptId"])
        #expect(delivered.json?["ocrStatus"]?.stringValue == "completed")
        // Receipts-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">, checked here with swift-crypto.
        let header = try #require(delivered.headers["receipts-signature"])
        let parts = Dictionary(uniqueKeysWithValues: header.split(separator: ",").map { item in
            let kv = item.split(separator: "=", maxSplits: 1); return (String(kv[0]), String(kv[1]))
        })
        let t = try #require(parts["t"].flatMap(Int.init))
        #expect(abs(Double(t) - Date().timeIntervalSince1970) < 120)
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(t).".utf8) + delivered.body, using: SymmetricKey(data: Data(secret.utf8)))
        #expect(parts["v1"] == mac.map { String(format: "%02x", $0) }.joined())
        #expect(try await server.stop())
    }

    @Test func aWebhookReceiverThatIsDownIsLoggedAndNothingElseStops() async throws {
        let dir = try TemporaryDirectory()
        // A port nothing listens on: take one and close it.
        let closed = try ScriptedHTTPServer([.drop])
        let port = closed.port
        closed.stop()
        let server = try await Server(store: dir.storePath,
                                      arguments: ["--webhook", "http://127.0.0.1:\(port)/down", "--webhook-retry-delay", "0.05"],
                                      environment: ["RECEIPTS_WEBHOOK_SECRET": "s"])
        for name in ["uk-parking.jpg", "us-diner.jpg"] {
            let (status, record) = try await server.upload(name, wait: 30)
            #expect(status == 200 && record["ocrStatus"]?.stringValue == "completed", "the queue does not wait for webhooks")
        }
        #expect(try await Self.until(timeout: 30) { server.stderr.text.components(separatedBy: "Webhook not delivered").count - 1 == 2 },
                "\(server.stderr.text)")
        #expect(try await server.stop())
    }

    @Test func aFailedReceiptCanBeRetriedAndACompletedOneCannot() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath)
        let truncated = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("bad/truncated.jpg")))
        let (status, failed) = try await server.json("POST", "/v1/receipts?wait=30", body: truncated, headers: ["Content-Type": "image/jpeg"])
        #expect(status == 200 && failed["ocrStatus"]?.stringValue == "failed")
        #expect(failed["error"]?.stringValue?.contains("truncated JPEG") == true, "\(failed)")
        let id = try #require(failed["receiptId"]?.stringValue)
        let retried = try await server.send("POST", "/v1/receipts/\(id)/retry")
        #expect(retried.status == 202 && retried.headers["location"] == "/v1/receipts/\(id)")
        let (_, done) = try await server.upload("uk-parking.jpg", wait: 30)
        let conflict = try await server.send("POST", "/v1/receipts/\(try #require(done["receiptId"]?.stringValue))/retry")
        #expect(conflict.status == 409)
        #expect(try await server.stop())
    }

    @Test func metricsCountReceiptsAndRequests() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath)
        _ = try await server.upload("uk-parking.jpg", wait: 30)
        _ = try await server.send("GET", "/v1/receipts/6f9619ff-8b86-d011-b42d-00c04fc964ff")
        let answer = try await server.send("GET", "/metrics")
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 200 && answer.headers["content-type"]?.hasPrefix("text/plain") == true)
        #expect(MetricsText.value("receipts{status=\"completed\"}", in: text) == 1, "\(text)")
        #expect(MetricsText.value("receipts_queue_depth", in: text) == 0)
        #expect(text.contains("http_requests_total{route=\"/v1/receipts\",method=\"POST\",status=\"200\"} 1\n"), "\(text)")
        #expect(text.contains(",method=\"GET\",status=\"404\"} 1\n"), "\(text)")
        #expect(text.contains("http_request_duration_seconds_count{route=\"/v1/receipts\",method=\"POST\"} 1\n"))
        #expect(text.contains("receipts_processed_total{status=\"completed\"} 1\n"), "\(text)")
        #expect(text.contains("receipt_stage_duration_seconds_count{stage=\"ocr\"} 1\n"))
        #expect(text.contains("receipt_stage_duration_seconds_count{stage=\"analysis\"} 1\n"))
        #expect(try await server.stop())
    }

    @Test func aFullQueueAnswers429WithRetryAfter() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath, arguments: ["--max-pending", "1", "--workers", "1"])
        // A 35-megapixel page scan keeps the one worker busy for a second or more.
        let (first, _) = try await server.upload("scan-a4-pub.jpg")
        #expect(first == 202)
        let answer = try await server.send("POST", "/v1/receipts", body: try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("us-diner.jpg"))),
                                           headers: ["Content-Type": "image/jpeg"])
        #expect(answer.status == 429)
        #expect(answer.headers["retry-after"] == "5")
        #expect(try JSONValue.parse(answer.body)["detail"]?.stringValue?.contains("--max-pending") == true)
        #expect(try await server.stop())
    }

    @Test func withoutATokenOnlyLoopbackIsServed() async throws {
        let dir = try TemporaryDirectory()
        let result = try await ReceiptsCLI.run(["serve", "--host", "0.0.0.0", "--port", "0", "--store", dir.storePath])
        #expect(result.status == 2)
        #expect(result.err.contains("refusing to listen on 0.0.0.0 without API tokens"), "\(result.err)")
    }

    @Test func onceATokenExistsEveryV1RouteNeedsIt() async throws {
        let dir = try TemporaryDirectory()
        let created = try await ReceiptsCLI.run(["token", "create", "--name", "bookkeeping-app", "--store", dir.storePath])
        #expect(created.status == 0, "\(created.err)")
        let token = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("rcp_") && token.count > 40)
        let stored = try String(contentsOfFile: dir.storePath, encoding: .isoLatin1)
        #expect(!stored.contains(token), "only the token's hash is stored")
        _ = try await ReceiptsCLI.run(["token", "create", "--name", "old", "--store", dir.storePath])
        let old = try await ReceiptsCLI.run(["token", "create", "--name", "older", "--store", dir.storePath])
        let revokedToken = old.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await ReceiptsCLI.run(["token", "revoke", "older", "--store", dir.storePath]).status == 0)
        let listed = try await ReceiptsCLI.run(["token", "list", "--store", dir.storePath])
        #expect(listed.out.contains("bookkeeping-app") && listed.out.contains("revoked") && !listed.out.contains(token))

        let server = try await Server(store: dir.storePath)
        for (headers, status) in [([String: String](), 401), (["Authorization": "Bearer rcp_wrong"], 401),
                                  (["Authorization": "Bearer \(revokedToken)"], 401), (["Authorization": "Bearer \(token)"], 200)] {
            let answer = try await server.send("GET", "/v1/receipts", headers: headers)
            #expect(answer.status == status, "\(headers)")
            if status == 401 {
                #expect(answer.headers["www-authenticate"] == "Bearer")
                #expect(!String(decoding: answer.body, as: UTF8.self).contains("rcp_"), "no token in an error")
            }
        }
        #expect(try await server.send("GET", "/healthz").status == 200, "health needs no token")
        // Ready once the OCR engine has loaded its model (it may still be loading when the socket opens).
        #expect(try await Self.until(timeout: 30) { try await server.send("GET", "/readyz").status == 200 })
        #expect(try await server.stop())
    }

    /// Issue 29, item 9: one key, different bytes, at once: one receipt, and every other image
    /// refused with 422 (never a 202 for an upload that was dropped).
    @Test func anIdempotencyKeyStandsForOneImageEvenUnderConcurrency() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath, arguments: ["--workers", "1"])
        // Ten different images (one receipt with 0–9 bytes appended, which decoders ignore).
        let parking = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
        let images = (0..<10).map { parking + Data(repeating: 0, count: $0) }
        let answers = try await withThrowingTaskGroup(of: (Int, Int, String?).self) { group in
            for i in 0..<10 {
                group.addTask {
                    let (status, record) = try await server.json("POST", "/v1/receipts", body: images[i],
                                                                 headers: ["Content-Type": "image/jpeg", "Idempotency-Key": "upload-42"])
                    return (i, status, record["receiptId"]?.stringValue)
                }
            }
            var answers: [(Int, Int, String?)] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
        let accepted = answers.filter { [200, 202].contains($0.1) }
        #expect(accepted.count == 1, "\(answers)")
        #expect(answers.filter { $0.1 == 422 }.count == 9, "\(answers)")
        let (_, list) = try await server.json("GET", "/v1/receipts")
        #expect(list["receipts"]?.arrayValue?.map { $0["receiptId"]?.stringValue } == [accepted.first?.2], "only the accepted image is stored")
        // The same image with the same key again: the same receipt.
        let winner = try #require(accepted.first)
        let (status, again) = try await server.json("POST", "/v1/receipts", body: images[winner.0],
                                                    headers: ["Content-Type": "image/jpeg", "Idempotency-Key": "upload-42"])
        #expect([200, 202].contains(status) && again["receiptId"]?.stringValue == winner.2)
        let refused = try await server.send("POST", "/v1/receipts", body: images[(winner.0 + 1) % 10],
                                            headers: ["Content-Type": "image/jpeg", "Idempotency-Key": "upload-42"])
        #expect(refused.status == 422)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("Idempotency-Key 'upload-42' was used for another image"))
        #expect(try await server.stop())
    }

    @Test func deletingAReceiptRemovesItsImageAndExpense() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath)
        let (_, record) = try await server.upload("uk-parking.jpg", wait: 30)
        let id = try #require(record["receiptId"]?.stringValue)
        let (_, expenses) = try await server.json("GET", "/v1/expenses?category=Other")
        #expect(expenses["expenses"]?.arrayValue?.count == 1)
        func storedImages() -> [String] {
            (FileManager.default.enumerator(atPath: dir.path("store/images"))?.allObjects as? [String] ?? [])
                .filter { !$0.hasPrefix(".") && !$0.contains("/.") && $0.contains("/") }
        }
        #expect(storedImages().count == 1)
        #expect(try await server.send("DELETE", "/v1/receipts/\(id)").status == 204)
        #expect(try await server.send("GET", "/v1/receipts/\(id)").status == 404)
        #expect(try await server.send("DELETE", "/v1/receipts/\(id)").status == 404)
        let (_, after) = try await server.json("GET", "/v1/expenses")
        #expect(after["expenses"]?.arrayValue?.isEmpty == true)
        #expect(storedImages().isEmpty)
        #expect(try await server.stop())
    }
}
