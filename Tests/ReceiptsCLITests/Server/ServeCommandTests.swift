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
/// store, real Tesseract: what needs the process (the listening line with `--port 0`, SIGTERM and
/// a restart, the flags and environment that wire webhooks, the refusal to start, its record
/// compared with `receipts process`'s, the default readers). The routes are tested in process,
/// on the router the binary builds: ReceiptServerTests (`LiveServer`).
@Suite(.serialized) struct ServeCommandTests {
    /// A running server: its process, its base URL and its stderr.
    final class Server: @unchecked Sendable, APIClient {
        let process: Process
        let stderr: CapturedOutput
        let base: URL
        let store: String

        init(store: String, arguments: [String] = [], environment extra: [String: String] = [:]) async throws {
            self.store = store
            process = Process()
            process.executableURL = ReceiptsCLI.binary
            // Under a sanitizer a receipt takes several times longer: ?wait= may too.
            let slower = testTimeScale > 1 ? ["--max-wait", "\(Int(30 * testTimeScale))"] : []
            process.arguments = ["serve", "--port", "0", "--store", store, "--workers", "2"] + slower + arguments
            process.environment = ReceiptsCLI.environment(extra)
            stderr = try CapturedOutput()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = stderr.handle
            try process.run()
            var url: URL?
            // A debug build loads the neural reader's model first: 10 s alone, and on a busy two-core
            // machine (the suite's other servers and OCR processes) measured past 120 s.
            _ = try await eventually(timeout: 300) { [stderr] in
                let text = stderr.text
                guard let range = text.range(of: #"http\.url=https?://127\.0\.0\.1:\d+"#, options: .regularExpression) else { return false }
                url = URL(string: String(text[range].dropFirst("http.url=".count)))
                return true
            }
            guard let url else {
                // An initializer that throws runs no deinit: the process is stopped here, or it would outlive the test.
                kill(process.processIdentifier, SIGKILL)
                throw ReceiptError(.invalidState, "the server never said where it listens: \(stderr.text)")
            }
            base = url
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
            request.timeoutInterval = 60 * testTimeScale
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            var fields: [String: String] = [:]
            for (key, value) in http.allHeaderFields { fields["\(key)".lowercased()] = "\(value)" }
            return (http.statusCode, fields, data)
        }
    }

    static let images = ["uk-parking.jpg", "us-diner.jpg", "uk-fuel-unleaded.jpg", "de-tankstelle.jpg", "us-auto-parts.jpg"]

    /// The fields of the record's analysis that `receipts process` prints for the same image.
    private func expectSameAnalysis(_ record: JSONValue, _ printed: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) {
        for field in ["vendor", "date", "total", "tax", "currency", "category", "lineItems"] {
            #expect(record["analysis"]?[field] == printed["analysis"]?[field], "\(field)", sourceLocation: sourceLocation)
        }
    }

    @Test func anUploadWaitedForGivesTheRecordProcessPrints() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.path("serve/receipts.sqlite"))
        let (status, record) = try await server.upload("us-diner.jpg", wait: 30)
        #expect(status == 200)
        #expect(record["ocrStatus"]?.stringValue == "completed")

        let cli = try await ReceiptsCLI.run(["process", ReceiptsCLI.testReceipt("us-diner.jpg"), "--store", dir.storePath, "--format", "ndjson"])
        let printed = try #require(try cli.ndjson().first)
        expectSameAnalysis(record, printed)
        #expect(record["expense"]?["amount"] == printed["expense"]?["amount"])
        // The upload's answer adds whether the bytes were there already (`duplicate`) to the record.
        #expect(record["duplicate"] == .bool(false))
        #expect(record.objectValue?.map(\.0).filter { $0 != "duplicate" } == printed.objectValue?.map(\.0), "the same record shape as the NDJSON contract")

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
        expectSameAnalysis(record, printed)
        #expect(try await server.stop())
    }

    /// Polls `check` every 0.2 s until it holds (true) or `timeout` seconds pass (false).
    static func until(timeout: Double, _ check: () async throws -> Bool) async throws -> Bool {
        try await eventuallyAsync(timeout: timeout, check)
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
        // The retry is the same delivery: the receiver drops duplicates by its id.
        let deliveryId = try #require(delivered.headers["receipts-delivery-id"])
        #expect(receiver.requests.first?.headers["receipts-delivery-id"] == deliveryId && UUID(uuidString: deliveryId) != nil)
        #expect(delivered.headers["receipts-event"] == "receipt.completed")
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

    /// While nobody can sign in (the open mode), only loopback is served: refused before anything
    /// starts, without a word about the webhook outbox. Once someone can sign in (an invitation),
    /// a network address is served, and this computer's requests without credentials are refused.
    @Test func whileNobodyCanSignInOnlyLoopbackIsServed() async throws {
        let dir = try TemporaryDirectory()
        let result = try await ReceiptsCLI.run(["serve", "--host", "0.0.0.0", "--port", "0", "--store", dir.storePath])
        #expect(result.status == 2)
        #expect(result.err.contains("refusing to listen on 0.0.0.0 while nobody can sign in") && result.err.contains("receipts user invite"),
                "\(result.err)")
        #expect(!result.err.contains("Webhook outbox cannot be read") && !result.err.contains("CancellationError"), "\(result.err)")

        #expect(try await ReceiptsCLI.run(["user", "add", "carol", "--store", dir.storePath]).status == 0)
        #expect(try await ReceiptsCLI.run(["user", "invite", "carol", "--base-url", "http://nas.local:8080", "--store", dir.storePath]).status == 0)
        let server = Process()
        server.executableURL = ReceiptsCLI.binary
        server.arguments = ["serve", "--host", "0.0.0.0", "--port", "0", "--workers", "0", "--store", dir.storePath]
        server.environment = ReceiptsCLI.environment()
        let stderr = try CapturedOutput()
        server.standardOutput = FileHandle.nullDevice
        server.standardError = stderr.handle
        try server.run()
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        var port: Int?
        _ = try await eventually(timeout: 300) {
            guard let range = stderr.text.range(of: #"http\.url=http://0\.0\.0\.0:\d+"#, options: .regularExpression) else { return !server.isRunning }
            port = Int(stderr.text[range].split(separator: ":").last ?? "")
            return true
        }
        let listening = try #require(port, "\(stderr.text)")
        let me = try await RawHTTPClient.send(port: listening, head: "GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", body: Data())
        #expect(me.status == 401 && me.body.contains("people can sign in"), "\(me.head)\n\(me.body)")
        kill(server.processIdentifier, SIGTERM)
        #expect(try await eventually(timeout: 15) { !server.isRunning })
    }

    /// Issue 56, item 10: a port in use is found before anything starts: the receipts waiting in
    /// the store stay pending (no worker took them), and nothing but the refusal is said.
    @Test func aPortInUseIsRefusedBeforeAnyWorkStarts() async throws {
        let dir = try TemporaryDirectory()
        let submitted = try await ReceiptsCLI.run(["process", ReceiptsCLI.testReceipt("uk-parking.jpg"), ReceiptsCLI.testReceipt("us-diner.jpg"),
                                                   "--no-work", "--format", "ndjson", "--store", dir.storePath])
        let submittedStatuses = try submitted.ndjson().map { $0["ocrStatus"] }
        #expect(submitted.status == 0 && submittedStatuses == [.string("pending"), .string("pending")],
                "\(submitted.out)\(submitted.err)")
        let holder = try ScriptedHTTPServer([.hang])
        defer { holder.stop() }
        let refused = try await ReceiptsCLI.run(["serve", "--port", "\(holder.port)", "--workers", "2", "--store", dir.storePath])
        #expect(refused.status == 2 && refused.err.contains("cannot listen on 127.0.0.1:\(holder.port)"), "\(refused.err)")
        let lines = refused.err.split(separator: "\n").filter { !$0.contains("Neural") && !$0.contains("neural") }
        #expect(!refused.err.contains("Webhook outbox cannot be read") && !refused.err.contains("Receipt failed") && lines.count <= 2,
                "only the refusal: \(refused.err)")
        let listed = try await ReceiptsCLI.run(["list", "--format", "ndjson", "--store", dir.storePath])
        let statuses = try listed.ndjson().map { $0["ocrStatus"]?.stringValue ?? "" }
        #expect(statuses == ["pending", "pending"], "the waiting receipts stay pending: \(statuses)")
        let attempts = try listed.ndjson().map { $0["attempts"] }
        #expect(attempts.allSatisfy { $0 == .number("0") }, "no worker took them: \(attempts)")
    }
}
