import Foundation
import Testing
@testable import ReceiptKit
@testable import ReceiptServer
@testable import TestHelpers

extension LiveRouteTests {
    /// The memory of shops over HTTP (issue 57): a confirmed receipt teaches its shop, which
    /// `GET /v1/vendors` lists and `PATCH /v1/vendors/{id}` renames or re-categorizes, for the
    /// receipts to come and, with `applyToPast`, for the expenses that taught it. `receipts serve`
    /// in process (`LiveServer`): a real SQLite store, real OCR.
    @Suite struct VendorRoutesTests {
        static let json = ["Content-Type": "application/json"]

        @Test func aConfirmedShopIsListedRenamedAndItsPastExpensesFollowOnlyWhenAsked() async throws {
            let dir = try TemporaryDirectory()
            try await LiveServer(dir).run { server in
                let (_, record) = try await server.upload("uk-parking.jpg", wait: 60)
                let expense = try #require(record["expense"]?["id"]?.stringValue)
                // A draft teaches nothing.
                let (_, before) = try await server.json("GET", "/v1/vendors")
                #expect(before["vendors"]?.arrayValue?.isEmpty == true, "\(before)")
                let (confirmed, _) = try await server.json("PATCH", "/v1/expenses/\(expense)",
                                                           body: Data(#"{"status": "confirmed"}"#.utf8), headers: Self.json)
                #expect(confirmed == 200)
                let (_, listed) = try await server.json("GET", "/v1/vendors")
                let shop = try #require(listed["vendors"]?.arrayValue?.first, "\(listed)")
                #expect(shop["name"]?.stringValue == "CASTLEGATE PARKING", "\(shop)")
                let id = try #require(shop["id"]?.stringValue)

                // Renamed for the future only: the confirmed expense keeps its name.
                let (renamed, first) = try await server.json("PATCH", "/v1/vendors/\(id)", body: Data(#"{"name": "Castlegate"}"#.utf8), headers: Self.json)
                #expect(renamed == 200 && first["vendor"]?["name"]?.stringValue == "Castlegate" && first["expensesCorrected"]?.doubleValue == 0, "\(first)")
                let (_, kept) = try await server.json("GET", "/v1/expenses/\(expense)")
                #expect(kept["expense"]?["description"]?.stringValue == "CASTLEGATE PARKING", "\(kept)")

                // applyToPast alone gives the shop's name, as it is now, to the expenses that taught it.
                let (applied, second) = try await server.json("PATCH", "/v1/vendors/\(id)", body: Data(#"{"applyToPast": true}"#.utf8), headers: Self.json)
                #expect(applied == 200 && second["expensesCorrected"]?.doubleValue == 1 && second["vendor"]?["name"]?.stringValue == "Castlegate", "\(second)")
                let (_, after) = try await server.json("GET", "/v1/expenses/\(expense)")
                #expect(after["expense"]?["description"]?.stringValue == "Castlegate", "\(after)")
                // Nothing to do is no error and changes nothing.
                let (idle, third) = try await server.json("PATCH", "/v1/vendors/\(id)", body: Data(#"{"applyToPast": false}"#.utf8), headers: Self.json)
                #expect(idle == 200 && third["expensesCorrected"]?.doubleValue == 0 && third["vendor"]?["name"]?.stringValue == "Castlegate", "\(third)")

                // Bad changes are 400 problems saying why; another id is 404.
                for body in ["{}", #"{"name": "  "}"#, #"{"category": "Groceries"}"#, #"{"nickname": "x"}"#, #"{"applyToPast": "yes"}"#] {
                    let answer = try await server.send("PATCH", "/v1/vendors/\(id)", body: Data(body.utf8), headers: Self.json)
                    #expect(answer.status == 400, "\(body): \(answer.status)")
                }
                let unknown = try await server.send("PATCH", "/v1/vendors/6f9619ff-8b86-d011-b42d-00c04fc964ff", body: Data(#"{"name": "x"}"#.utf8), headers: Self.json)
                #expect(unknown.status == 404)
            }
        }
    }
}
