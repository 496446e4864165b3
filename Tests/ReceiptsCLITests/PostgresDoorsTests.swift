import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// The PostgreSQL store behind the doors (issue 29, items 4, 8 and 11): the real PostgreSQL the
/// tests start, the real `receipts` binary.
@Suite(.serialized, .enabled(if: PostgresTestServer.available, "PostgreSQL is not installed: see the message on stderr"),
       .enabled(if: FileManager.default.isExecutableFile(atPath: ReceiptsCLI.binary.path)))
struct PostgresDoorsTests {
    typealias Server = ServeCommandTests.Server

    /// Item 11: with PostgreSQL down, /v1 answers 503 with Retry-After at once (not 500 after
    /// 20 s), /metrics serves what the process knows, and all is well once it is back.
    @Test func withPostgreSQLDownTheAPIAnswers503QuicklyAndMetricsStillServe() async throws {
        let postgres = try await PostgresTestServer.started()
        defer { postgres.stop() }
        // The store's own limits (a probe gets 2 s), which are what answers quickly.
        let url = try await postgres.freshDatabase(scaledTimeouts: false)
        let server = try await Server(store: url, arguments: ["--workers", "1"])
        let (status, _) = try await server.upload("uk-parking.jpg", wait: 60)
        #expect(status == 200)
        try await postgres.pause()
        for path in ["/v1/receipts", "/v1/expenses", "/v1/receipts", "/v1/expenses/export.csv"] {
            let started = Date()
            let answer = try await server.send("GET", path)
            let seconds = Date().timeIntervalSince(started)
            #expect(answer.status == 503, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
            #expect(answer.headers["retry-after"] == "5")
            #expect(seconds < 6 * testTimeScale, "\(path) took \(seconds) s")
            #expect(!String(decoding: answer.body, as: UTF8.self).contains(PostgresTestServer.password))
        }
        let started = Date()
        let metrics = try await server.send("GET", "/metrics")
        #expect(metrics.status == 200 && Date().timeIntervalSince(started) < 6 * testTimeScale)
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(MetricsText.value("receipts_store_up", in: text) == 0 && text.contains("http_requests_total{route=\"/v1/receipts\",method=\"GET\",status=\"503\"}"),
                "\(text)")
        try await postgres.resume()
        #expect(try await ServeCommandTests.until(timeout: 30) { try await server.send("GET", "/v1/receipts").status == 200 })
        #expect(MetricsText.value("receipts_store_up", in: String(decoding: try await server.send("GET", "/metrics").body, as: UTF8.self)) == 1)
        #expect(try await server.stop())
    }

    /// Item 8: `store migrate` into a PostgreSQL store that has receipts of its own: the same bytes
    /// stay one receipt (the target's), the other receipts are copied, and copying again is harmless.
    /// Item 4: `export` prints money the same on both stores.
    @Test func migratingIntoANonEmptyStoreKeepsTheSameBytesOneReceipt() async throws {
        let postgres = try #require(await PostgresTestServer.shared())
        let dir = try TemporaryDirectory()
        let sqlite = dir.storePath
        let files = ["uk-parking.jpg", "us-diner.jpg"].map(ReceiptsCLI.testReceipt)
        let processed = try await ReceiptsCLI.run(["process"] + files + ["--store", sqlite, "--format", "ndjson"])
        #expect(processed.status == 0, "\(processed.err)")
        let url = try await postgres.freshDatabase()
        // The target already has uk-parking.jpg, read on its own.
        let own = try await ReceiptsCLI.run(["process", files[0], "--store", url, "--format", "ndjson"])
        #expect(own.status == 0, "\(own.err)")
        let ownId = try #require(try own.ndjson().first?["receiptId"]?.stringValue)

        let migrated = try await ReceiptsCLI.run(["store", "migrate", "--from", sqlite, "--to", url])
        #expect(migrated.status == 0, "\(migrated.err)")
        #expect(migrated.err.contains("1 receipts copied"), "\(migrated.err)")
        #expect(migrated.err.contains("1 with the same image as a receipt already there"), "\(migrated.err)")
        #expect(migrated.err.contains("uk-parking.jpg: not copied: the same image is receipt \(ownId)"), "\(migrated.err)")
        let listed = try await ReceiptsCLI.run(["list", "--format", "ndjson", "--store", url])
        #expect(try listed.ndjson().count == 2, "one receipt per image: \(listed.out)")
        let again = try await ReceiptsCLI.run(["store", "migrate", "--from", sqlite, "--to", url])
        #expect(again.err.contains("0 receipts copied"), "\(again.err)")
        #expect(try await ReceiptsCLI.run(["list", "--format", "ndjson", "--store", url]).ndjson().count == 2)

        // The same money text from both stores (the diner's total, two decimals in USD).
        let fromSQLite = try await ReceiptsCLI.run(["export", "--format", "json", "--store", sqlite])
        let fromPostgres = try await ReceiptsCLI.run(["export", "--format", "json", "--store", url])
        /// Each vendor's amount and deductible amount as printed (the text, not the value).
        func amounts(_ result: ReceiptsCLI.Result) throws -> [String: String] {
            var byVendor: [String: String] = [:]
            for record in try JSONValue.parse(result.out).arrayValue ?? [] {
                byVendor[record["vendor"]?.stringValue ?? ""] = [record["amount"], record["taxAmount"], record["deductibleAmount"]]
                    .map { $0?.serialized() ?? "" }.joined(separator: " ")
            }
            return byVendor
        }
        let sqliteAmounts = try amounts(fromSQLite), postgresAmounts = try amounts(fromPostgres)
        #expect(sqliteAmounts.count == 2 && sqliteAmounts == postgresAmounts, "\(sqliteAmounts) \(postgresAmounts)")
        #expect(postgresAmounts.values.allSatisfy { $0.split(separator: " ").allSatisfy { $0 == "null" || $0.split(separator: ".").last?.count == 2 } },
                "\(postgresAmounts)")
    }
}
