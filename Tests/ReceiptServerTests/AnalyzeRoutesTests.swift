import Foundation
import Testing
import ReceiptKit
@testable import ReceiptServer
@testable import TestHelpers

extension LiveRouteTests {
    /// `POST /v1/analyze`: an image in, its analysis out, stored only when asked. `receipts serve` in
    /// process (`LiveServer`): real SQLite store, real OCR. Were end-to-end tests of the binary
    /// (ServeCommandTests, ServeDoorsTests); the bound on images read at once, which measures the
    /// process's memory, stays there (ServeLimitsTests).
    @Suite struct AnalyzeRoutesTests {
        @Test func analyzeReadsABase64ImageAndStoresNothing() async throws {
            let dir = try TemporaryDirectory()
            let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
            let body = Data(#"{"image": "\#(data.base64EncodedString())", "mimeType": "image/jpeg"}"#.utf8)
            try await LiveServer(dir).run { server in
                let (status, analysis) = try await server.json("POST", "/v1/analyze", body: body, headers: ["Content-Type": "application/json"])
                #expect(status == 200)
                #expect(analysis["total"]?.doubleValue == 7.50)
                #expect(analysis["vendor"]?.stringValue == "CASTLEGATE PARKING")
                let (_, list) = try await server.json("GET", "/v1/receipts")
                #expect(list["receipts"]?.arrayValue?.isEmpty == true)
                // With store=true the receipt and its expense are kept, and Location says where.
                let stored = try await server.send("POST", "/v1/analyze?store=true", body: body, headers: ["Content-Type": "application/json"])
                #expect(stored.status == 200)
                #expect(try JSONValue.parse(stored.body)["total"]?.doubleValue == 7.50)
                let location = try #require(stored.headers["location"])
                let (_, record) = try await server.json("GET", location)
                #expect(record["expense"]?["amount"]?.doubleValue == 7.50)
            }
        }

        /// Issue 29, item 17 and analyze?store=true's ids: a data URL and URL-safe base64 are read; an
        /// empty image is a 400 as an empty upload is; ?store= is true or false.
        @Test func analyzeTakesTheImageAsClientsSendItAndSaysWhereItStoredIt() async throws {
            let dir = try TemporaryDirectory()
            let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
            let standard = data.base64EncodedString()
            let urlSafe = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(urlSafe != standard)
            let json = ["Content-Type": "application/json"]
            try await LiveServer(dir).run { server in
                for image in ["data:image/jpeg;base64,\(standard)", urlSafe] {
                    let (status, analysis) = try await server.json("POST", "/v1/analyze", body: Data(#"{"image": "\#(image)"}"#.utf8), headers: json)
                    #expect(status == 200 && analysis["total"] == .number("7.50"), "\(image.prefix(30)): \(analysis)")
                }
                let empty = try await server.send("POST", "/v1/analyze", body: Data(#"{"image": ""}"#.utf8), headers: json)
                #expect(empty.status == 400 && String(decoding: empty.body, as: UTF8.self).contains("image is empty"))
                for value in ["1", "yes"] {
                    let answer = try await server.send("POST", "/v1/analyze?store=\(value)", body: Data(#"{"image": "\#(standard)"}"#.utf8), headers: json)
                    #expect(answer.status == 400, "store=\(value)")
                }
                let (_, list) = try await server.json("GET", "/v1/receipts")
                #expect(list["receipts"]?.arrayValue?.isEmpty == true, "nothing was stored")
                let stored = try await server.send("POST", "/v1/analyze?store=true", body: Data(#"{"image": "\#(standard)"}"#.utf8), headers: json)
                let body = try JSONValue.parse(stored.body)
                let receiptId = try #require(body["receiptId"]?.stringValue)
                #expect(stored.headers["location"] == "/v1/receipts/\(receiptId)")
                let (_, record) = try await server.json("GET", "/v1/receipts/\(receiptId)")
                #expect(record["expense"]?["id"] == body["expenseId"] && body["expenseId"] != .null)
            }
        }
    }
}
