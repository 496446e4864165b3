import Foundation
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import Testing
import ReceiptKit
@testable import ReceiptServer
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// The routes in process (HummingbirdTesting's router client: no socket, no child process): the
/// real router over a real SQLite store, a scripted processor, no queue workers running, so an
/// upload stays pending. The end-to-end tests of `receipts serve` are in ReceiptsCLITests.
@Suite struct RoutesTests {
    struct Fixture {
        let dir: TemporaryDirectory
        let pipeline: ReceiptPipeline
        let server: ReceiptServer

        init() throws {
            dir = try TemporaryDirectory()
            let store = try SQLiteReceiptStore(path: dir.storePath)
            let processor = ScriptedProcessor()
            pipeline = ReceiptPipeline(store: store, images: ImageStore(besideDatabase: store.location), processor: processor,
                                       logger: TestSupport.logger)
            server = ReceiptServer(pipeline: pipeline, store: store, processor: processor, logger: TestSupport.logger)
        }

        func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
            try await Application(router: server.makeRouter(), logger: TestSupport.logger).test(.router, body)
        }
    }

    @Test func healthAndReadinessAnswer() async throws {
        try await Fixture().test { client in
            let health = try await client.execute(uri: "/healthz", method: .get)
            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(health.status == .ok && ready.status == .ok)
        }
    }

    @Test func aWrongMethodIs405WithTheMethodsAllowedAndAnUnknownPath404() async throws {
        try await Fixture().test { client in
            let wrong = try await client.execute(uri: "/v1/expenses/export.csv", method: .delete)
            #expect(wrong.status == .methodNotAllowed)
            #expect(wrong.headers[HTTPField.Name("allow")!] == "GET, OPTIONS")
            let options = try await client.execute(uri: "/v1/expenses/6f9619ff-8b86-d011-b42d-00c04fc964ff", method: .options)
            #expect(options.status == .noContent && options.headers[HTTPField.Name("allow")!] == "GET, PATCH, OPTIONS")
            let unknown = try await client.execute(uri: "/v2/nothing", method: .get)
            #expect(unknown.status == .notFound)
        }
    }

    @Test func anUploadIsAcceptedPendingAndListed() async throws {
        let image = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
        try await Fixture().test { client in
            let upload = try await client.execute(uri: "/v1/receipts", method: .post, headers: [.contentType: "image/jpeg"],
                                                  body: ByteBuffer(bytes: Array(image)))
            #expect(upload.status == .accepted)
            let record = try JSONValue.parse(String(buffer: upload.body))
            #expect(record["ocrStatus"]?.stringValue == "pending", "\(record)")
            let id = try #require(record["receiptId"]?.stringValue)
            let fetched = try await client.execute(uri: "/v1/receipts/\(id)", method: .get)
            #expect(fetched.status == .ok)
            let fetchedRecord = try JSONValue.parse(String(buffer: fetched.body))
            #expect(fetchedRecord["receiptId"]?.stringValue == id)
            let again = try await client.execute(uri: "/v1/receipts", method: .post, headers: [.contentType: "image/jpeg"],
                                                 body: ByteBuffer(bytes: Array(image)))
            let againRecord = try JSONValue.parse(String(buffer: again.body))
            #expect(againRecord["receiptId"]?.stringValue == id, "the same bytes are one receipt")
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(MetricsText.value("receipts{status=\"pending\"}", in: metrics) == 1, "\(metrics)")
        }
    }
}
