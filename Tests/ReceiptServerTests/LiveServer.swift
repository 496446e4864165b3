import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import ReceiptKit
@testable import ReceiptServer
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// The route tests that run `receipts serve` in process (`LiveServer`), one at a time: each runs
/// the OCR engine's threads and the queue's workers, and on a machine of two cores several at once,
/// beside the end-to-end tests' servers, would turn their waits into timeouts.
@Suite(.serialized) enum LiveRouteTests {}

/// `receipts serve` in process, built as the binary builds it (`ServeCommand.run`): a real SQLite
/// store in a temporary folder, the real OCR engine (Tesseract, as the end-to-end tests read by
/// default), the heuristic analyzer, the queue's workers and the OCR engine running as services
/// beside the server's router (`ReceiptServer.makeRouter`), metrics fed by the workers. Requests
/// go to the router through HummingbirdTesting's router client: no socket, no child process.
/// What needs the real process (signals, the listening line, sockets, `receipts worker`, the CLI
/// beside the server) is tested end to end in ReceiptsCLITests.
final class LiveServer: Sendable {
    /// What `receipts serve` adds to its problem documents for the limits these tests meet (a
    /// subset of `ErrorAdvice.flags`, which lives in the executable).
    static let advice = ErrorAdvice([
        .maxPixels: " (--max-pixels)",
        .maxPDFPages: " (--max-pdf-pages)",
        .maxUploadSize: " (--max-upload-mb)",
        .maxPending: " (--max-pending)",
    ])

    let dir: TemporaryDirectory
    let store: SQLiteReceiptStore
    let engine: OCREngine
    let pipeline: ReceiptPipeline
    let server: ReceiptServer

    /// - Parameters: as `receipts serve`'s flags: `workers` (`--workers`, also the OCR threads),
    ///   `maxUploadMB`, `maxPending`, `maxPDFPages`, `rateLimit` (`--rate-limit`).
    init(_ dir: TemporaryDirectory, workers: Int = 2, maxUploadMB: Double = 20, maxPending: Int = 1000, maxPDFPages: Int = 10,
         rateLimit: RateLimit = ReceiptServer.Configuration.defaultRateLimit) throws {
        self.dir = dir
        store = try SQLiteReceiptStore(path: dir.storePath)
        engine = try OCREngine(configuration: OCRConfiguration(maxPDFPages: maxPDFPages), threads: max(1, workers), logger: TestSupport.logger)
        let processor = ReceiptProcessor(engine: engine, analyzer: HeuristicAnalyzer(), options: AnalysisOptions(taxonomy: .default),
                                         readers: .tesseract, logger: TestSupport.logger)
        var configuration = ReceiptPipeline.Configuration(taxonomy: processor.options.taxonomy, workers: workers)
        configuration.advice = Self.advice
        let metrics = HTTPMetrics()
        configuration.onFinished = { outcome in metrics.observe(outcome) }
        pipeline = ReceiptPipeline(store: store, images: ImageStore(besideDatabase: store.location), processor: processor,
                                   configuration: configuration, logger: TestSupport.logger)
        server = ReceiptServer(
            pipeline: pipeline, store: store, processor: processor,
            configuration: .init(maxUploadBytes: Int(maxUploadMB * 1_048_576), maxPending: maxPending, advice: Self.advice,
                                 rateLimit: rateLimit),
            metrics: metrics, logger: TestSupport.logger)
    }

    /// Runs `body` with a client of the router while the OCR engine and (with workers) the queue
    /// run; they are shut down gracefully after it.
    func run(_ body: @escaping @Sendable (Client) async throws -> Void) async throws {
        try await Application(router: server.makeRouter(), services: [engine, pipeline], logger: TestSupport.logger)
            .test(.router) { client in try await body(Client(client: client)) }
    }

    /// Requests as the end-to-end tests sent them: methods and headers as strings, statuses as
    /// numbers, header names lowercased.
    struct Client: Sendable, APIClient {
        let client: any TestClientProtocol

        func send(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws
            -> (status: Int, headers: [String: String], body: Data) {
            var fields = HTTPFields()
            for (key, value) in headers { fields[try #require(HTTPField.Name(key))] = value }
            let response = try await client.execute(uri: path, method: try #require(HTTPRequest.Method(method)), headers: fields,
                                                    body: body.map { ByteBuffer(bytes: Array($0)) })
            var answer: [String: String] = [:]
            for field in response.headers {
                let name = field.name.canonicalName
                answer[name] = answer[name].map { "\($0), \(field.value)" } ?? field.value
            }
            return (Int(response.status.code), answer, Data(response.body.readableBytesView))
        }

        /// Signs in with an API token as the sign-in page does: its form's CSRF token, with the
        /// cookie GET /signin sets.
        func signIn(token: String) async throws -> (status: Int, headers: [String: String], body: Data) {
            let form = try await send("GET", "/signin")
            let page = String(decoding: form.body, as: UTF8.self)
            let csrf = try #require(page.range(of: #"name="csrf" value="[^"]+""#, options: .regularExpression)
                .map { String(page[$0].split(separator: "\"")[3]) }, "\(page)")
            let cookie = try #require(form.headers["set-cookie"]?.split(separator: ";").first.map(String.init), "\(form.headers)")
            let encoded = csrf.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? csrf
            return try await send("POST", "/signin", body: Data("token=\(token)&csrf=\(encoded)".utf8),
                                  headers: ["Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie])
        }
    }

    /// Polls `check` every 0.2 s until it holds (true) or `timeout` seconds pass (false).
    static func until(timeout: Double, _ check: () async throws -> Bool) async throws -> Bool {
        try await eventuallyAsync(timeout: timeout, check)
    }
}
