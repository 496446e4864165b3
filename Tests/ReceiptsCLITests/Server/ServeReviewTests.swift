import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ReceiptKit
@testable import TestHelpers

/// The review step over HTTP (issue 29, items 3–5): the CSV export of the real `receipts serve`
/// on 127.0.0.1 (real OCR, a real SQLite store) is what `receipts export` prints from the same
/// store. The other review routes (items 1 and 2, If-Match, paging, filters) are tested in
/// process: ReceiptServerTests' RoutesTests and ExpenseRoutesTests.
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
}

extension Bool {
    func expectTrue(sourceLocation: SourceLocation = #_sourceLocation) { #expect(self, sourceLocation: sourceLocation) }
}
