import Foundation
import Testing
import ReceiptKit
@testable import TestHelpers
@testable import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The webhook outbox on a shared PostgreSQL store: receipts read by a `receipts worker` process
/// (which has no webhook flag) are delivered by two `receipts serve --webhook` processes ("hosts"),
/// each event exactly once: senders never hold one event at the same time.
@Suite(.serialized, .enabled(if: PostgresTestServer.available, "PostgreSQL is not installed: see the message on stderr"),
       .enabled(if: FileManager.default.isExecutableFile(atPath: ReceiptsCLI.binary.path)))
struct PostgresWebhooksTests {
    typealias Server = ServeCommandTests.Server

    @Test func twoServersDeliverTheEventsAWorkerRecordsEachOnce() async throws {
        let url = try await #require(await PostgresTestServer.shared()).freshDatabase()
        // Slow answers, so the two senders are busy at the same time.
        let receiver = try ScriptedHTTPServer([.respond(status: 204, body: "", delay: .milliseconds(300))])
        defer { receiver.stop() }
        let arguments = ["--workers", "0", "--webhook", "http://127.0.0.1:\(receiver.port)/hooks", "--webhook-retry-delay", "0.2"]
        let environment = ["RECEIPTS_WEBHOOK_SECRET": "s"]
        let first = try await Server(store: url, arguments: arguments, environment: environment)
        let second = try await Server(store: url, arguments: arguments, environment: environment)

        let worker = Process()
        worker.executableURL = ReceiptsCLI.binary
        worker.environment = ReceiptsCLI.environment()
        worker.arguments = ["worker", "--store", url, "--workers", "1"]
        worker.standardOutput = FileHandle.nullDevice
        worker.standardError = FileHandle.nullDevice
        try worker.run()
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }

        var ids: Set<String> = []
        for name in ["uk-parking.jpg", "us-diner.jpg", "uk-fuel-unleaded.jpg", "de-tankstelle.jpg"] {
            let (status, record) = try await first.upload(name)
            #expect(status == 202 || status == 200)
            ids.insert(try #require(record["receiptId"]?.stringValue))
        }
        #expect(try await eventually(timeout: 180) {
            Set(receiver.requests.compactMap { $0.json?["receiptId"]?.stringValue }) == ids
        }, "\(receiver.requests.count) requests")
        // Every answer was 2xx: nothing is ever sent twice.
        let deliveryIds = receiver.requests.compactMap { $0.headers["receipts-delivery-id"] }
        #expect(deliveryIds.count == ids.count && Set(deliveryIds).count == ids.count, "\(deliveryIds)")
        kill(worker.processIdentifier, SIGTERM)
        #expect(try await first.stop())
        #expect(try await second.stop())
    }
}
