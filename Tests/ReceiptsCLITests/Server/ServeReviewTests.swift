import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ReceiptKit
@testable import TestHelpers

/// The review step over HTTP (issue 29, items 1–5 and the backend's wishes): every door keeps the
/// money a person typed, the deduction their category implies, and the same export. The real
/// `receipts serve` on 127.0.0.1, real OCR, a real SQLite store.
@Suite(.serialized) struct ServeReviewTests {
    typealias Server = ServeCommandTests.Server
    static let json = ["Content-Type": "application/json"]

    /// A server with uk-parking.jpg read (GBP 7.50, drafted as Other): the server, the expense id and the receipt id.
    private func serverWithParking(_ dir: TemporaryDirectory, arguments: [String] = []) async throws -> (Server, String, String) {
        let server = try await Server(store: dir.storePath, arguments: arguments)
        let (status, record) = try await server.upload("uk-parking.jpg", wait: 60)
        #expect(status == 200, "\(record)")
        return (server, try #require(record["expense"]?["id"]?.stringValue), try #require(record["receiptId"]?.stringValue))
    }

    private func patch(_ server: Server, _ id: String, _ body: String, headers: [String: String] = [:]) async throws
        -> (status: Int, headers: [String: String], json: JSONValue) {
        let answer = try await server.send("PATCH", "/v1/expenses/\(id)", body: Data(body.utf8), headers: Self.json.merging(headers) { $1 })
        return (answer.status, answer.headers, try JSONValue.parse(answer.body))
    }

    // Item 1 (money as a plain decimal or a 400) is tested in process: ReceiptServerTests.RoutesTests.

    /// Item 2: a category correction brings the taxonomy's deduction; categories and currencies are checked.
    @Test func aCategoryCorrectionReappliesTheTaxonomyAndValuesAreChecked() async throws {
        let dir = try TemporaryDirectory()
        let (server, id, _) = try await serverWithParking(dir)
        let fuel = try await patch(server, id, #"{"category": "fuel"}"#)
        #expect(fuel.status == 200)
        #expect(fuel.json["expense"]?["category"] == .string("Fuel"), "the taxonomy's spelling")
        #expect(fuel.json["expense"]?["isTaxDeductible"] == .bool(true) && fuel.json["expense"]?["taxDeductiblePercentage"] == .number("100"))
        let other = try await patch(server, id, #"{"category": "Other"}"#)
        #expect(other.json["expense"]?["isTaxDeductible"] == .bool(false) && other.json["expense"]?["taxDeductiblePercentage"] == .number("0"),
                "\(other.json)")
        let own = try await patch(server, id, #"{"category": "Maintenance", "taxDeductiblePercentage": 50}"#)
        #expect(own.json["expense"]?["taxDeductiblePercentage"] == .number("50") && own.json["expense"]?["isTaxDeductible"] == .bool(true))
        for (body, detail) in [(#"{"category": "Groceries"}"#, "category must be one of"), (#"{"currency": "XYZ123"}"#, "currency must be an ISO 4217"),
                               (#"{"currency": ""}"#, "currency must be an ISO 4217")] {
            let answer = try await patch(server, id, body)
            #expect(answer.status == 400 && answer.json["detail"]?.stringValue?.hasPrefix(detail) == true, "\(body): \(answer.json)")
        }
        #expect(try await patch(server, id, #"{"currency": "eur"}"#).json["expense"]?["currency"] == .string("EUR"))
        #expect(try await server.stop())
    }

    /// Items 3, 4 and 5, and corrections readable: export.csv is what `receipts export` prints, with
    /// possibleDuplicateOf, a deduction of 0 when not deductible, money by the currency's minor units.
    @Test func theCSVExportIsTheCLIsAndHonoursIsTaxDeductible() async throws {
        let dir = try TemporaryDirectory()
        let (server, id, _) = try await serverWithParking(dir)
        // 33.333 % of a deductible category, then marked not deductible by the reviewer.
        _ = try await patch(server, id, #"{"category": "Fuel", "taxDeductiblePercentage": 33.333, "amount": "63"}"#)
        let notDeductible = try await patch(server, id, #"{"isTaxDeductible": false}"#)
        #expect(notDeductible.json["expense"]?["taxDeductiblePercentage"] == .number("33.333"))
        let csv = try await server.send("GET", "/v1/expenses/export.csv")
        let text = String(decoding: csv.body, as: UTF8.self)
        let rows = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.first == ExpenseExport.columns.joined(separator: ","))
        #expect(rows.first?.contains("possibleDuplicateOf") == true)
        let cells = try #require(rows.dropFirst().first).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let row = Dictionary(uniqueKeysWithValues: zip(ExpenseExport.columns, cells))
        #expect(row["amount"] == "63.00" && row["deductibleAmount"] == "0.00" && row["isTaxDeductible"] == "false", "\(row)")
        #expect(row["corrections"]?.contains("amount") == true, "\(row)")
        try await server.stop().expectTrue()
        // The CLI prints the same bytes from the same store.
        let cli = try await ReceiptsCLI.run(["export", "--format", "csv", "--store", dir.storePath])
        #expect(cli.status == 0 && cli.out == text, "\(cli.out)\n---\n\(text)")
        let json = try JSONValue.parse(try await ReceiptsCLI.run(["export", "--format", "json", "--store", dir.storePath]).out)
        #expect(json.arrayValue?.first?["amount"] == .number("63.00") && json.arrayValue?.first?["deductibleAmount"] == .number("0.00"))
    }

    /// The backend's wishes: GET one expense with its ETag, If-Match on PATCH (412 for a stale
    /// version), corrections readable, paging and filters on /v1/expenses, unknown parameters refused.
    @Test func reviewersDoNotOverwriteEachOtherAndExpensesArePaged() async throws {
        let dir = try TemporaryDirectory()
        let (server, id, _) = try await serverWithParking(dir)
        let read = try await server.send("GET", "/v1/expenses/\(id)")
        let etag = try #require(read.headers["etag"])
        let first = try await patch(server, id, #"{"amount": "8.00"}"#, headers: ["If-Match": etag])
        #expect(first.status == 200 && first.headers["etag"] != etag)
        let second = try await patch(server, id, #"{"amount": "9.00"}"#, headers: ["If-Match": etag])
        #expect(second.status == 412, "a second reviewer with the old version: \(second.json)")
        let (_, stored) = try await server.json("GET", "/v1/expenses/\(id)")
        #expect(stored["expense"]?["amount"] == .number("8.00") && stored["corrections"]?["amount"] == .number("7.50"))
        #expect(try await patch(server, id, #"{"amount": "9.00"}"#, headers: ["If-Match": try #require(first.headers["etag"])]).status == 200)

        // Three more receipts: pages of two, then the filters.
        for name in ["us-diner.jpg", "uk-fuel-unleaded.jpg", "de-tankstelle.jpg"] { _ = try await server.upload(name, wait: 60) }
        let (_, page1) = try await server.json("GET", "/v1/expenses?limit=2")
        let next = try #require(page1["next"]?.stringValue)
        let (_, page2) = try await server.json("GET", "/v1/expenses?limit=2&after=\(next)")
        #expect(page1["expenses"]?.arrayValue?.count == 2 && page2["expenses"]?.arrayValue?.count == 2 && page2["next"] == .null)
        let ids = ((page1["expenses"]?.arrayValue ?? []) + (page2["expenses"]?.arrayValue ?? [])).compactMap { $0["id"]?.stringValue }
        #expect(Set(ids).count == 4)
        _ = try await patch(server, id, #"{"status": "confirmed"}"#)
        let (_, confirmed) = try await server.json("GET", "/v1/expenses?status=confirmed")
        #expect(confirmed["expenses"]?.arrayValue?.map { $0["id"]?.stringValue } == [id])
        let (_, flagged) = try await server.json("GET", "/v1/expenses?needsReview=false")
        #expect(flagged["expenses"]?.arrayValue?.allSatisfy { $0["needsReview"] == .bool(false) } == true)
        #expect(flagged["expenses"]?.arrayValue?.contains { $0["id"]?.stringValue == id } == true)
        for path in ["/v1/expenses?needsReveiw=true", "/v1/expenses?needsReview=yes", "/v1/receipts?after=", "/v1/receipts?colour=red"] {
            let answer = try await server.send("GET", path)
            #expect(answer.status == 400, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
        }
        #expect(try await server.send("GET", "/v1/receipts?after=6f9619ff-8b86-d011-b42d-00c04fc964ff").status == 404)
        #expect(try await server.stop())
    }
}

extension Bool {
    func expectTrue(sourceLocation: SourceLocation = #_sourceLocation) { #expect(self, sourceLocation: sourceLocation) }
}
