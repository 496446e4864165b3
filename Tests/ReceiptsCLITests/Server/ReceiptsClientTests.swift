import Crypto
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing
@testable import ReceiptsClient
@testable import TestHelpers

/// ReceiptsClient, the Swift client an app adds, against the real `receipts serve` on 127.0.0.1 over
/// a real socket (URLSession): what an app does (upload and wait, list what needs review, correct and
/// confirm over the version read, export) and the errors it must tell apart (404, 401) as typed errors.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: ReceiptsCLI.binary.path)))
struct ReceiptsClientTests {
    /// Records the requests the client sends (an app's middleware, as `ReceiptsAPI` takes them).
    final class Recorder: ClientMiddleware, @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [(operation: String, fields: HTTPFields)] = []
        var requests: [(operation: String, fields: HTTPFields)] { lock.withLock { seen } }

        func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                       next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
            let (response, responseBody) = try await next(request, body, baseURL)
            lock.withLock { seen.append((operationID, request.headerFields)) }
            return (response, responseBody)
        }
    }

    @Test func anAppUploadsListsConfirmsAndExports() async throws {
        let dir = try TemporaryDirectory()
        let token = try await ReceiptsCLI.run(["token", "create", "--name", "ios-app", "--store", dir.storePath]).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try await ServeCommandTests.Server(store: dir.storePath)
        let recorder = Recorder()
        let receipts = ReceiptsAPI(serverURL: server.base, token: token, middlewares: [recorder])

        // Upload and wait: the record of the receipt read (a parking ticket whose total the reader is
        // unsure of: one amount, no sum to confirm it, so it is flagged for review).
        let photo = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
        let record = try await receipts.upload(photo, filename: "IMG_0042.jpg", wait: 60 * testTimeScale)
        #expect(record.ocrStatus == .completed && record.file == "IMG_0042.jpg", "\(record)")
        let expense = try #require(record.expense.value1, "a read receipt has a drafted expense")
        #expect(expense.needsReview == true && expense.status == .draft)

        // What needs review lists it.
        let flagged = try await receipts.receipts(needsReview: true)
        #expect(flagged.map(\.receiptId) == [record.receiptId])
        #expect(try await receipts.receipts(needsReview: false).isEmpty)

        // Correct and confirm, over the version read (If-Match: the ETag GET gave).
        let confirmed = try await receipts.confirm(expenseId: expense.id, corrections: .init(amount: Decimal(string: "12.34"), category: "Fuel"))
        #expect(confirmed.status == .confirmed && confirmed.amount == 12.34 && confirmed.category == "Fuel", "\(confirmed)")
        let patch = try #require(recorder.requests.first { $0.operation == "correctExpense" })
        let etag = try #require(patch.fields[.ifMatch])
        #expect(etag.hasPrefix("\"") && etag != "\"\"", "the correction is sent with the ETag read: \(etag)")
        // Sent again over that version, now replaced, it is refused as changed meanwhile and not saved.
        await #expect(throws: ReceiptsError.self) {
            _ = try await receipts.call {
                try await receipts.client.correctExpense(path: .init(id: expense.id), headers: .init(ifMatch: etag),
                                                         body: .json(.init(amount: 99, status: .draft)))
            }
        }
        do {
            _ = try await receipts.call {
                try await receipts.client.correctExpense(path: .init(id: expense.id), headers: .init(ifMatch: etag), body: .json(.init(status: .draft)))
            }
        } catch let error as ReceiptsError {
            #expect(error.kind == .changedMeanwhile && error.status == 412, "\(error)")
        }
        #expect(try await receipts.receipt(id: record.receiptId).expense.value1?.status == .confirmed)

        // Export: the CSV an accountant gets, with the correction.
        let csv = try await receipts.export()
        // CSV rows end in CRLF (RFC 4180), one Character in Swift: split on any line break.
        let rows = csv.split(whereSeparator: \.isNewline)
        #expect(rows.first?.hasPrefix("date,vendor,category,amount") == true && rows.count == 2, "\(csv)")
        #expect(rows.last?.contains(record.receiptId) == true && rows.last?.contains("12.34") == true, "\(csv)")
        #expect(try await receipts.export(from: "2000-01-01", to: "2000-01-31").split(whereSeparator: \.isNewline).count == 1, "a range without receipts: the header alone")

        // A receipt that is not there: 404 as a typed error with the server's one line.
        let missing = UUID().uuidString.lowercased()
        do {
            _ = try await receipts.receipt(id: missing)
            Issue.record("a missing receipt was found")
        } catch let error as ReceiptsError {
            #expect(error.kind == .notFound && error.status == 404 && error.detail.contains("no receipt with id \(missing)"), "\(error)")
        }
        // A wrong token: 401.
        do {
            _ = try await ReceiptsAPI(serverURL: server.base, token: "rcp_not-a-token").receipts()
            Issue.record("a wrong token was let in")
        } catch let error as ReceiptsError {
            #expect(error.kind == .unauthorized && error.status == 401, "\(error)")
        }
        // No server: a transport error, not a crash or a hang.
        #expect(try await server.stop())
        do {
            _ = try await receipts.receipts()
            Issue.record("a stopped server answered")
        } catch let error as ReceiptsError {
            #expect(error.kind == .transport && error.status == 0, "\(error)")
        }
    }

    /// The generated code is committed (`make openapi`); it was generated from the document and the
    /// configuration as they are now, or this fails naming the command that regenerates it.
    @Test func theGeneratedClientIsNotStale() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardizedFileURL
        var inputs = Data()
        for file in ["Sources/ReceiptServer/openapi.yaml", "Tools/openapi-generator/openapi-generator-config.yaml"] {
            inputs += try Data(contentsOf: root.appendingPathComponent(file))
        }
        let digest = SHA256.hash(data: inputs).map { String(format: "%02x", $0) }.joined()
        #expect(digest == GeneratedFrom.sha256,
                "Sources/ReceiptsClient/Generated is older than Sources/ReceiptServer/openapi.yaml: run `make openapi` and commit it")
    }
}
