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
/// upload stays pending. The routes with real OCR and the queue running: the `LiveRouteTests`
/// suites (`LiveServer`); what needs the real process: ReceiptsCLITests.
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

        /// A receipt read by the scripted processor as uk-parking.jpg is by real OCR (GBP 7.50, tax
        /// 1.25, Other): its expense's id as the API writes it.
        func parkingExpense() async throws -> String {
            let path = try dir.write("parking.jpg", ScriptedProcessor.image(vendor: "Parking", total: "7.50", tax: "1.25", category: "Other"))
            var expense: Expense?
            for try await outcome in pipeline.process(files: [path], as: .admin) { expense = outcome.expense }
            return try #require(expense?.id.uuidString.lowercased())
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

    private static func patch(_ client: any TestClientProtocol, _ id: String, _ body: String) async throws -> (status: HTTPResponse.Status, json: JSONValue) {
        let answer = try await client.execute(uri: "/v1/expenses/\(id)", method: .patch, headers: [.contentType: "application/json"],
                                              body: ByteBuffer(string: body))
        return (answer.status, try JSONValue.parse(String(buffer: answer.body)))
    }

    private static func get(_ client: any TestClientProtocol, _ uri: String) async throws -> JSONValue {
        try JSONValue.parse(String(buffer: try await client.execute(uri: uri, method: .get).body))
    }

    /// Issue 29, item 1 (was ServeReviewTests, with the real binary and real OCR): a string amount
    /// is a plain decimal or a 400 naming the field; nothing is stored.
    @Test func moneyIsAPlainDecimalOrA400NamingTheField() async throws {
        let fixture = try Fixture()
        let id = try await fixture.parkingExpense()
        try await fixture.test { client in
            for (field, text) in [("amount", "1e3"), ("amount", "12a34"), ("amount", "5 (was 8)"), ("amount", "2024-01-01"),
                                  ("amount", "1.5.3"), ("amount", "12.5e-1"), ("taxAmount", "1x2"), ("amount", "12.34567")] {
                let answer = try await Self.patch(client, id, #"{"\#(field)": "\#(text)"}"#)
                #expect(answer.status == .badRequest, "\(field) \(text): \(answer.json)")
                #expect(answer.json["detail"]?.stringValue?.hasPrefix(field + " ") == true, "\(answer.json)")
            }
            let stored = try await Self.get(client, "/v1/expenses/\(id)")
            #expect(stored["expense"]?["amount"] == .number("7.50") && stored["expense"]?["taxAmount"] == .number("1.25"), "\(stored)")
            #expect(stored["corrections"] == .object([]), "nothing was changed")
            // A plain decimal string and a JSON number (an exponent is JSON's own) are read exactly.
            let exact = try await Self.patch(client, id, #"{"amount": "1234.5", "taxAmount": 2.1e1}"#)
            #expect(exact.json["expense"]?["amount"] == .number("1234.50"))
            let after = try await Self.get(client, "/v1/expenses/\(id)")
            #expect(after["expense"]?["taxAmount"] == .number("21.00"))
        }
    }
}
