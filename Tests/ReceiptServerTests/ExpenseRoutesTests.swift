import Foundation
import Testing
@testable import ReceiptKit
@testable import ReceiptServer
@testable import TestHelpers

extension LiveRouteTests {
    /// The review step over HTTP (`/v1/expenses`, issues 29 and 30): corrections and confirmation,
    /// categories and their deductions, If-Match, paging and filters, the CSV export, the vendor, the
    /// receipts needing review and the words each field was read from. `receipts serve` in process
    /// (`LiveServer`): real SQLite store, real OCR (Tesseract). Were end-to-end tests of the binary
    /// (ServeCommandTests, ServeReviewTests, ServeReviewPageTests); the export compared with `receipts
    /// export` and `eval --corrections` stay there.
    @Suite struct ExpenseRoutesTests {
        static let json = ["Content-Type": "application/json"]

        @Test func aPersonCorrectsAndConfirmsADraftAndTheAnalyzersValuesAreKept() async throws {
            let dir = try TemporaryDirectory()
            try await LiveServer(dir).run { server in
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
            }
        }


        @Test("A CSV cell is quoted when it must be and never runs as a formula", arguments: [
            ("CASTLEGATE PARKING", "CASTLEGATE PARKING"), ("Smith, Jones & Co", "\"Smith, Jones & Co\""),
            ("The \"Plough\"", "\"The \"\"Plough\"\"\""), ("=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\""),
            ("-12.50", "-12.50"), ("@SUM(A1)", "'@SUM(A1)"),
        ])
        func csvCells(text: String, cell: String) {
            #expect(CSV.field(text) == cell)
        }

        /// Runs `body` on a server with uk-parking.jpg read (GBP 7.50, drafted as Other), with the
        /// expense id and the receipt id.
        private func withParking(_ dir: TemporaryDirectory,
                                 _ body: @escaping @Sendable (LiveServer.Client, String, String) async throws -> Void) async throws {
            try await LiveServer(dir).run { server in
                let (status, record) = try await server.upload("uk-parking.jpg", wait: 60)
                #expect(status == 200, "\(record)")
                try await body(server, try #require(record["expense"]?["id"]?.stringValue), try #require(record["receiptId"]?.stringValue))
            }
        }

        private static func patch(_ server: LiveServer.Client, _ id: String, _ body: String, headers: [String: String] = [:]) async throws
            -> (status: Int, headers: [String: String], json: JSONValue) {
            let answer = try await server.send("PATCH", "/v1/expenses/\(id)", body: Data(body.utf8), headers: Self.json.merging(headers) { $1 })
            return (answer.status, answer.headers, try JSONValue.parse(answer.body))
        }

        /// Issue 29, item 2: a category correction brings the taxonomy's deduction; categories and
        /// currencies are checked.
        @Test func aCategoryCorrectionReappliesTheTaxonomyAndValuesAreChecked() async throws {
            let dir = try TemporaryDirectory()
            try await withParking(dir) { server, id, _ in
                let fuel = try await Self.patch(server, id, #"{"category": "fuel"}"#)
                #expect(fuel.status == 200)
                #expect(fuel.json["expense"]?["category"] == .string("Fuel"), "the taxonomy's spelling")
                #expect(fuel.json["expense"]?["isTaxDeductible"] == .bool(true) && fuel.json["expense"]?["taxDeductiblePercentage"] == .number("100"))
                let other = try await Self.patch(server, id, #"{"category": "Other"}"#)
                #expect(other.json["expense"]?["isTaxDeductible"] == .bool(false) && other.json["expense"]?["taxDeductiblePercentage"] == .number("0"),
                        "\(other.json)")
                let own = try await Self.patch(server, id, #"{"category": "Maintenance", "taxDeductiblePercentage": 50}"#)
                #expect(own.json["expense"]?["taxDeductiblePercentage"] == .number("50") && own.json["expense"]?["isTaxDeductible"] == .bool(true))
                for (body, detail) in [(#"{"category": "Groceries"}"#, "category must be one of"), (#"{"currency": "XYZ123"}"#, "currency must be an ISO 4217"),
                                       (#"{"currency": ""}"#, "currency must be an ISO 4217")] {
                    let answer = try await Self.patch(server, id, body)
                    #expect(answer.status == 400 && answer.json["detail"]?.stringValue?.hasPrefix(detail) == true, "\(body): \(answer.json)")
                }
                #expect(try await Self.patch(server, id, #"{"currency": "eur"}"#).json["expense"]?["currency"] == .string("EUR"))
            }
        }

        /// The backend's wishes: GET one expense with its ETag, If-Match on PATCH (412 for a stale
        /// version), corrections readable, paging and filters on /v1/expenses, unknown parameters refused.
        @Test func reviewersDoNotOverwriteEachOtherAndExpensesArePaged() async throws {
            let dir = try TemporaryDirectory()
            try await withParking(dir) { server, id, _ in
                let read = try await server.send("GET", "/v1/expenses/\(id)")
                let etag = try #require(read.headers["etag"])
                let first = try await Self.patch(server, id, #"{"amount": "8.00"}"#, headers: ["If-Match": etag])
                #expect(first.status == 200 && first.headers["etag"] != etag)
                let second = try await Self.patch(server, id, #"{"amount": "9.00"}"#, headers: ["If-Match": etag])
                #expect(second.status == 412, "a second reviewer with the old version: \(second.json)")
                let (_, stored) = try await server.json("GET", "/v1/expenses/\(id)")
                #expect(stored["expense"]?["amount"] == .number("8.00") && stored["corrections"]?["amount"] == .number("7.50"))
                #expect(try await Self.patch(server, id, #"{"amount": "9.00"}"#, headers: ["If-Match": try #require(first.headers["etag"])]).status == 200)

                // Three more receipts: pages of two, then the filters.
                for name in ["us-diner.jpg", "uk-fuel-unleaded.jpg", "de-tankstelle.jpg"] { _ = try await server.upload(name, wait: 60) }
                let (_, page1) = try await server.json("GET", "/v1/expenses?limit=2")
                let next = try #require(page1["next"]?.stringValue)
                let (_, page2) = try await server.json("GET", "/v1/expenses?limit=2&after=\(next)")
                #expect(page1["expenses"]?.arrayValue?.count == 2 && page2["expenses"]?.arrayValue?.count == 2 && page2["next"] == .null)
                let ids = ((page1["expenses"]?.arrayValue ?? []) + (page2["expenses"]?.arrayValue ?? [])).compactMap { $0["id"]?.stringValue }
                #expect(Set(ids).count == 4)
                _ = try await Self.patch(server, id, #"{"status": "confirmed"}"#)
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
            }
        }

        /// Runs `body` on a server with a receipt flagged for review (uk-parking-ticket.gif, £3.40) and
        /// one that is not (uk-fuel-diesel.png), with both records.
        private func withTwo(_ dir: TemporaryDirectory,
                             _ body: @escaping @Sendable (LiveServer.Client, _ flagged: JSONValue, _ clear: JSONValue) async throws -> Void) async throws {
            try await LiveServer(dir).run { server in
                let (s1, flagged) = try await server.upload("uk-parking-ticket.gif", wait: 60)
                let (s2, clear) = try await server.upload("uk-fuel-diesel.png", wait: 60)
                #expect(s1 == 200 && s2 == 200)
                #expect(flagged["expense"]?["needsReview"] == .bool(true) && clear["expense"]?["needsReview"] == .bool(false),
                        "the test needs one flagged receipt and one not: \(flagged["expense"] ?? .null) \(clear["expense"] ?? .null)")
                try await body(server, flagged, clear)
            }
        }

        private static func ids(_ server: LiveServer.Client, _ query: String) async throws -> [String] {
            let (status, page) = try await server.json("GET", "/v1/receipts\(query)")
            #expect(status == 200, "\(page)")
            return (page["receipts"]?.arrayValue ?? []).compactMap { $0["receiptId"]?.stringValue }
        }

        /// Issue 30: receipts needing review are listed apart; each field carries the words it was read from.
        @Test func receiptsNeedingReviewAreListedApartAndEachFieldCarriesItsWords() async throws {
            let dir = try TemporaryDirectory()
            try await withTwo(dir) { server, flagged, clear in
                let (flaggedId, clearId) = (flagged["receiptId"]?.stringValue, clear["receiptId"]?.stringValue)
                #expect(try await Self.ids(server, "?needsReview=true") == [flaggedId])
                #expect(try await Self.ids(server, "?needsReview=false") == [clearId])
                #expect(try await Self.ids(server, "?needsReview=true&status=failed") == [])
                // The inbox's counts, counted by the store (issue 47): one flagged, one done, the cap said.
                let (_, counted) = try await server.json("GET", "/v1/receipts?limit=1&counts=true")
                #expect(counted["counts"] == .object([("review", .int(1)), ("failed", .int(0)), ("reading", .int(0)), ("done", .int(1)),
                                                       ("confirmed", .int(0)), ("cap", .int(10_000))]), "\(counted)")
                #expect(counted["receipts"]?.arrayValue?.count == 1 && counted["next"]?.stringValue != nil, "\(counted)")
                let (status, problem) = try await server.json("GET", "/v1/receipts?needsReview=yes")
                #expect(status == 400 && problem["detail"]?.stringValue == "needsReview must be true or false (got 'yes')")

                // The words the total and the date were read from, with boxes inside the OCR image.
                let sources = try #require(flagged["analysis"]?["sources"], "\(flagged)")
                let width = try #require(sources["imageWidth"]?.doubleValue), height = try #require(sources["imageHeight"]?.doubleValue)
                let total = try #require(sources["total"]?.arrayValue?.first)
                #expect(total["text"]?.stringValue?.contains("3.40") == true, "\(sources)")
                let box = (total["box"]?.arrayValue ?? []).compactMap { $0.doubleValue }
                #expect(box.count == 4 && box[0] + box[2] <= width && box[1] + box[3] <= height && box[2] > 0, "\(box) in \(width)×\(height)")
                #expect(sources["date"]?.arrayValue?.first?["text"]?.stringValue == "17/07/2025", "\(sources)")
            }
        }

        /// Issue 30: the vendor is corrected by its name and the draft is kept.
        @Test func theVendorIsCorrectedByItsNameAndTheDraftIsKept() async throws {
            let dir = try TemporaryDirectory()
            try await withTwo(dir) { server, flagged, _ in
                let id = try #require(flagged["expense"]?["id"]?.stringValue)
                let drafted = try #require(flagged["expense"]?["description"])
                let (status, answer) = try await server.json("PATCH", "/v1/expenses/\(id)", body: Data(#"{"vendor": "Apex Car Parks Ltd"}"#.utf8),
                                                             headers: Self.json)
                #expect(status == 200, "\(answer)")
                #expect(answer["expense"]?["description"] == .string("Apex Car Parks Ltd"))
                #expect(answer["corrections"]?["description"] == drafted, "\(answer)")
                let (blank, problem) = try await server.json("PATCH", "/v1/expenses/\(id)", body: Data(#"{"vendor": "  "}"#.utf8), headers: Self.json)
                #expect(blank == 400 && problem["detail"]?.stringValue?.hasPrefix("vendor must be a non-blank string") == true, "\(problem)")
            }
        }
    }
}
