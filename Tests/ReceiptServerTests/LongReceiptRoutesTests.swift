import Foundation
import Testing
import ReceiptKit
@testable import ReceiptServer
@testable import TestHelpers

extension LiveRouteTests {
    /// A long receipt photographed in two pictures (`TestReceipts/long/hardware-2-1.jpg`, `-2-2.jpg`),
    /// over HTTP: sent at once as two `file` parts, or the second added later with
    /// `POST /v1/receipts/{id}/pictures`; each read as one receipt with the whole receipt's total,
    /// its pictures served as its pages. `receipts serve` in process, real OCR (Tesseract).
    @Suite struct LongReceiptRoutesTests {
        static func picture(_ name: String) throws -> Data {
            try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("long/\(name)")))
        }

        static func multipart(_ parts: [(String, Data)], boundary: String = "long-receipt") -> Data {
            var body = Data()
            for (name, data) in parts {
                body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(name)\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
                body += data + Data("\r\n".utf8)
            }
            return body + Data("--\(boundary)--\r\n".utf8)
        }

        /// The whole receipt's ground truth (TestReceipts/long/hardware.expected.json).
        static func truth() throws -> JSONValue {
            try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("long/hardware.expected.json"))))
        }

        /// The receipt's record once it is read (or failed). `?wait=` is capped (30 s by default),
        /// and pictures read one after another on a loaded machine may take longer: polled.
        static func read(_ server: LiveServer.Client, _ id: String) async throws -> JSONValue {
            var record = JSONValue.null
            #expect(try await LiveServer.until(timeout: 300) {
                record = try await server.json("GET", "/v1/receipts/\(id)").1
                return ["completed", "failed"].contains(record["ocrStatus"]?.stringValue)
            }, "\(id) not read: \(record)")
            return record
        }

        @Test func twoFilePartsAreOneReceiptReadAsOneAndServedAsPages() async throws {
            let dir = try TemporaryDirectory()
            let (top, bottom) = (try Self.picture("hardware-2-1.jpg"), try Self.picture("hardware-2-2.jpg"))
            let total = try #require(try Self.truth()["total"]?.stringValue)
            try await LiveServer(dir, workers: 1).run { server in
                let (status, record) = try await server.json("POST", "/v1/receipts?wait=120", body: Self.multipart([("top.jpg", top), ("bottom.jpg", bottom)]),
                                                             headers: ["Content-Type": "multipart/form-data; boundary=long-receipt"])
                #expect(status == 200 && record["ocrStatus"]?.stringValue == "completed", "\(record)")
                #expect(record["file"]?.stringValue == "top.jpg")
                #expect(record["analysis"]?["total"]?.decimalValue == Decimal(string: total), "the whole receipt's total: \(record["analysis"]?["total"] ?? .null)")
                let pictures = record["analysis"]?["pictures"]?.arrayValue ?? []
                #expect(pictures.compactMap { $0["file"]?.stringValue } == ["top.jpg", "bottom.jpg"])
                #expect((pictures.last?["overlapRows"]?.doubleValue ?? 0) > 0, "the rows both pictures show were found: \(pictures)")
                // The total's word is on the second picture, in its own pixels.
                let words = record["analysis"]?["sources"]?["total"]?.arrayValue ?? []
                #expect(words.first?["picture"]?.doubleValue == 2, "\(words)")
                let id = try #require(record["receiptId"]?.stringValue)

                // Each picture is a page; there is no third.
                for n in 1...2 {
                    let page = try await server.send("GET", "/v1/receipts/\(id)/pages/\(n)")
                    #expect(page.status == 200 && page.headers["x-page-count"] == "2" && page.headers["content-type"] == "image/jpeg")
                    #expect(page.body == (n == 1 ? top : bottom), "picture \(n) as it was sent")
                }
                #expect(try await server.send("GET", "/v1/receipts/\(id)/pages/3").status == 404)

                // The same pictures again: the same receipt. Eleven pictures: refused, nothing stored.
                let (_, again) = try await server.json("POST", "/v1/receipts", body: Self.multipart([("top.jpg", top), ("bottom.jpg", bottom)]),
                                                       headers: ["Content-Type": "multipart/form-data; boundary=long-receipt"])
                #expect(again["receiptId"]?.stringValue == id)
                let eleven = try await server.send("POST", "/v1/receipts", body: Self.multipart(Array(repeating: ("p.jpg", top), count: 11)),
                                                   headers: ["Content-Type": "multipart/form-data; boundary=long-receipt"])
                #expect(eleven.status == 400 && String(decoding: eleven.body, as: UTF8.self).contains("10 pictures at most"))
                let (_, list) = try await server.json("GET", "/v1/receipts")
                #expect(list["receipts"]?.arrayValue?.count == 1)

                // Deleted: its pictures' copies go with it.
                #expect(try await server.send("DELETE", "/v1/receipts/\(id)").status == 204)
                let left = (FileManager.default.enumerator(atPath: dir.path("store/images"))?.allObjects as? [String] ?? [])
                    .filter { !$0.hasPrefix(".") && !$0.contains("/.") && $0.contains("/") }
                #expect(left.isEmpty, "\(left)")
            }
        }

        @Test func theRestOfAReceiptAddedLaterIsReadWithItOnce() async throws {
            let dir = try TemporaryDirectory()
            let (top, bottom) = (try Self.picture("hardware-2-1.jpg"), try Self.picture("hardware-2-2.jpg"))
            let total = try #require(try Self.truth()["total"]?.stringValue)
            try await LiveServer(dir, workers: 1).run { server in
                let (_, first) = try await server.json("POST", "/v1/receipts?wait=120&filename=top.jpg", body: top, headers: ["Content-Type": "image/jpeg"])
                let id = try #require(first["receiptId"]?.stringValue)
                #expect(first["ocrStatus"]?.stringValue == "completed")
                // The top alone has no total to read; with the bottom, the whole receipt's.
                let added = try await server.send("POST", "/v1/receipts/\(id)/pictures?wait=120&filename=bottom.jpg", body: bottom,
                                                  headers: ["Content-Type": "image/jpeg", "Idempotency-Key": "rest-1"])
                let record = try JSONValue.parse(added.body)
                #expect(added.status == 200 && record["ocrStatus"]?.stringValue == "completed", "\(record)")
                #expect(record["receiptId"]?.stringValue == id)
                #expect(record["analysis"]?["total"]?.decimalValue == Decimal(string: total))
                #expect(record["analysis"]?["pictures"]?.arrayValue?.count == 2)
                #expect(record["expense"]?["amount"]?.decimalValue == Decimal(string: total), "the expense is drafted again")
                #expect(record["duplicate"] == .bool(false), "the answer says whether the picture was added before, as an upload's does")

                // Sent again with its key (a phone's retry): nothing added.
                let retried = try await server.send("POST", "/v1/receipts/\(id)/pictures", body: bottom,
                                                    headers: ["Content-Type": "image/jpeg", "Idempotency-Key": "rest-1"])
                #expect([200, 202].contains(retried.status))
                #expect(try JSONValue.parse(retried.body)["duplicate"] == .bool(true), "\(String(decoding: retried.body, as: UTF8.self))")
                #expect(try await server.send("GET", "/v1/receipts/\(id)/pages/3").status == 404)
                let other = try await server.send("POST", "/v1/receipts/\(id)/pictures", body: top,
                                                  headers: ["Content-Type": "image/jpeg", "Idempotency-Key": "rest-1"])
                #expect(other.status == 422)

                // Not an image: 415, and nothing added. An unknown receipt: 404.
                let junk = try await server.send("POST", "/v1/receipts/\(id)/pictures", body: Data("not an image".utf8),
                                                 headers: ["Content-Type": "image/jpeg"])
                #expect(junk.status == 415)
                #expect(try await server.send("POST", "/v1/receipts/\(UUID().uuidString.lowercased())/pictures", body: bottom,
                                              headers: ["Content-Type": "image/jpeg"]).status == 404)

                // Confirmed, it is a person's record: no picture is added.
                let expense = try #require(record["expense"]?["id"]?.stringValue)
                let confirmed = try await server.send("PATCH", "/v1/expenses/\(expense)", body: Data(#"{"status": "confirmed"}"#.utf8),
                                                      headers: ["Content-Type": "application/json"])
                #expect(confirmed.status == 200)
                let late = try await server.send("POST", "/v1/receipts/\(id)/pictures", body: bottom, headers: ["Content-Type": "image/jpeg"])
                #expect(late.status == 409, "\(String(decoding: late.body, as: UTF8.self))")
            }
        }

        /// Pictures of two receipts sent as one (issue 56: groceries' top with hardware's bottom
        /// gave MILLBROOK MARKET with hardware's total, unflagged): flagged with the reason, by
        /// multipart and by `/pictures` alike, then split into one receipt per picture.
        @Test func picturesOfDifferentReceiptsAreFlaggedAndSplitIntoAReceiptEach() async throws {
            let dir = try TemporaryDirectory()
            let (top, bottom) = (try Self.picture("groceries-2-1.jpg"), try Self.picture("hardware-2-2.jpg"))
            let total = try #require(try Self.truth()["total"]?.decimalValue)
            try await LiveServer(dir, workers: 1).run { server in
                let (status, sent) = try await server.json("POST", "/v1/receipts?wait=120", body: Self.multipart([("top.jpg", top), ("other.jpg", bottom)]),
                                                           headers: ["Content-Type": "multipart/form-data; boundary=long-receipt"])
                #expect([200, 202].contains(status), "\(sent)")
                let record = try await Self.read(server, try #require(sent["receiptId"]?.stringValue))
                #expect(record["ocrStatus"]?.stringValue == "completed", "\(record)")
                #expect(record["analysis"]?["confidence"]?["needsReview"]?.boolValue == true)
                #expect(record["analysis"]?["review"]?.arrayValue?.contains(.string("pictures")) == true, "\(record["analysis"]?["review"] ?? .null)")
                #expect(record["expense"]?["needsReview"]?.boolValue == true)
                let id = try #require(record["receiptId"]?.stringValue)

                // The same through `/pictures`: the top alone, then the other receipt's bottom added.
                let (_, alone) = try await server.json("POST", "/v1/receipts?wait=120&filename=alone.jpg", body: top + Data("x".utf8),
                                                       headers: ["Content-Type": "image/jpeg"])
                let aloneId = try #require(alone["receiptId"]?.stringValue)
                _ = try await Self.read(server, aloneId)
                let (addStatus, _) = try await server.json("POST", "/v1/receipts/\(aloneId)/pictures?wait=120&filename=more.jpg", body: bottom,
                                                           headers: ["Content-Type": "image/jpeg"])
                #expect([200, 202].contains(addStatus))
                let added = try await Self.read(server, aloneId)
                #expect(added["analysis"]?["review"]?.arrayValue?.contains(.string("pictures")) == true, "\(added["analysis"] ?? .null)")

                // Split: a receipt per picture, each read on its own; the receipt is gone.
                let (splitStatus, split) = try await server.json("POST", "/v1/receipts/\(id)/split?wait=120")
                #expect(splitStatus == 200, "\(split)")
                var parts = split["receipts"]?.arrayValue ?? []
                #expect(parts.map { $0["file"]?.stringValue } == ["top.jpg", "other.jpg"])
                // `wait` is capped (30 s by default): two pictures read one after the other on a
                // loaded machine may take longer, so each part is polled until it is read.
                let ids = parts.compactMap { $0["receiptId"]?.stringValue }
                #expect(ids.count == 2 && !ids.contains(id), "new receipts: \(ids)")
                parts = []
                for part in ids { parts.append(try await Self.read(server, part)) }
                #expect(parts.allSatisfy { $0["ocrStatus"]?.stringValue == "completed" && $0["analysis"]?["pictures"] == nil }, "\(parts)")
                #expect(parts.allSatisfy { $0["analysis"]?["review"]?.arrayValue?.contains(.string("pictures")) != true })
                #expect(parts.last?["analysis"]?["total"]?.decimalValue == total)
                #expect(try await server.send("GET", "/v1/receipts/\(id)").status == 404)
                #expect(try await server.send("POST", "/v1/receipts/\(id)/split").status == 404)
                // A receipt of one picture: nothing to split (409).
                let one = try #require(parts.first?["receiptId"]?.stringValue)
                let refused = try await server.send("POST", "/v1/receipts/\(one)/split")
                #expect(refused.status == 409 && String(decoding: refused.body, as: UTF8.self).contains("one picture"))
                let (_, list) = try await server.json("GET", "/v1/receipts")
                #expect(list["receipts"]?.arrayValue?.count == 3, "the two parts and the receipt made with /pictures")
            }
        }
    }
}
