import Foundation
import Testing
import ReceiptKit
@testable import ReceiptServer
@testable import TestHelpers

extension LiveRouteTests {
    /// Uploads and receipts (`/v1/receipts`): multipart and raw uploads, the same bytes once,
    /// Idempotency-Key, retry, delete, the pending limit. `receipts serve` in process (`LiveServer`):
    /// real SQLite store, real OCR. Were end-to-end tests of the binary (ServeCommandTests, ServeDoorsTests).
    @Suite struct UploadRoutesTests {
        static let images = ["uk-parking.jpg", "us-diner.jpg", "uk-fuel-unleaded.jpg", "de-tankstelle.jpg", "us-auto-parts.jpg"]

        @Test func withoutWaitAnUploadIsAcceptedAndPointsToItsRecord() async throws {
            let dir = try TemporaryDirectory()
            try await LiveServer(dir).run { server in
                let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
                let boundary = "receipts-test-boundary"
                var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n".utf8)
                body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"IMG_1.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
                body += data + Data("\r\n--\(boundary)--\r\n".utf8)
                let answer = try await server.send("POST", "/v1/receipts", body: body,
                                                   headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"])
                #expect(answer.status == 202)
                let record = try JSONValue.parse(answer.body)
                let id = try #require(record["receiptId"]?.stringValue)
                #expect(answer.headers["location"] == "/v1/receipts/\(id)")
                #expect(record["file"]?.stringValue == "IMG_1.jpg")
                var latest = record
                #expect(try await LiveServer.until(timeout: 120) {
                    latest = try await server.json("GET", "/v1/receipts/\(id)").1
                    return latest["ocrStatus"]?.stringValue == "completed"
                }, "\(latest)")
                #expect(latest["analysis"]?["total"]?.doubleValue == 7.50)
            }
        }

        @Test func theSameBytesUploadedConcurrentlyAreOneReceipt() async throws {
            let dir = try TemporaryDirectory()
            // 100 uploads of 20 distinct images (five receipts, each also with 1–3 bytes appended
            // after its end, which decoders ignore): exactly 20 receipts.
            var distinct: [Data] = []
            for name in Self.images {
                let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt(name)))
                for extra in 0..<4 { distinct.append(data + Data(repeating: 0, count: extra)) }
            }
            let uploads = distinct
            try await LiveServer(dir).run { server in
                let ids = try await withThrowingTaskGroup(of: String?.self) { group in
                    for i in 0..<100 {
                        group.addTask {
                            let (status, record) = try await server.json("POST", "/v1/receipts", body: uploads[i % 20],
                                                                         headers: ["Content-Type": "image/jpeg"])
                            return [200, 202].contains(status) ? record["receiptId"]?.stringValue : nil
                        }
                    }
                    var ids: [String?] = []
                    for try await id in group { ids.append(id) }
                    return ids
                }
                #expect(ids.allSatisfy { $0 != nil }, "every upload was accepted")
                #expect(Set(ids.compactMap { $0 }).count == 20)
                let (_, list) = try await server.json("GET", "/v1/receipts?limit=500")
                #expect(list["receipts"]?.arrayValue?.count == 20)
            }
        }

        /// Issue 29, item 9: one key, different bytes, at once: one receipt, and every other image
        /// refused with 422 (never a 202 for an upload that was dropped).
        @Test func anIdempotencyKeyStandsForOneImageEvenUnderConcurrency() async throws {
            let dir = try TemporaryDirectory()
            // Ten different images (one receipt with 0–9 bytes appended, which decoders ignore).
            let parking = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
            let images = (0..<10).map { parking + Data(repeating: 0, count: $0) }
            try await LiveServer(dir, workers: 1).run { server in
                let answers = try await withThrowingTaskGroup(of: (Int, Int, String?).self) { group in
                    for i in 0..<10 {
                        group.addTask {
                            let (status, record) = try await server.json("POST", "/v1/receipts", body: images[i],
                                                                         headers: ["Content-Type": "image/jpeg", "Idempotency-Key": "upload-42"])
                            return (i, status, record["receiptId"]?.stringValue)
                        }
                    }
                    var answers: [(Int, Int, String?)] = []
                    for try await answer in group { answers.append(answer) }
                    return answers
                }
                let accepted = answers.filter { [200, 202].contains($0.1) }
                #expect(accepted.count == 1, "\(answers)")
                #expect(answers.filter { $0.1 == 422 }.count == 9, "\(answers)")
                let (_, list) = try await server.json("GET", "/v1/receipts")
                #expect(list["receipts"]?.arrayValue?.map { $0["receiptId"]?.stringValue } == [accepted.first?.2], "only the accepted image is stored")
                // The same image with the same key again: the same receipt.
                let winner = try #require(accepted.first)
                let (status, again) = try await server.json("POST", "/v1/receipts", body: images[winner.0],
                                                            headers: ["Content-Type": "image/jpeg", "Idempotency-Key": "upload-42"])
                #expect([200, 202].contains(status) && again["receiptId"]?.stringValue == winner.2)
                let refused = try await server.send("POST", "/v1/receipts", body: images[(winner.0 + 1) % 10],
                                                    headers: ["Content-Type": "image/jpeg", "Idempotency-Key": "upload-42"])
                #expect(refused.status == 422)
                #expect(String(decoding: refused.body, as: UTF8.self).contains("Idempotency-Key 'upload-42' was used for another image"))
            }
        }

        /// A name for raw uploads: ?filename= or Content-Disposition. (Several `file` parts are one
        /// long receipt's pictures: LongReceiptRoutesTests.)
        @Test func rawUploadsHaveNames() async throws {
            let dir = try TemporaryDirectory()
            let parking = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
            let diner = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("us-diner.jpg")))
            try await LiveServer(dir, workers: 1).run { server in
                let named = try await server.json("POST", "/v1/receipts?filename=%2Fhome%2Fme%2FIMG_0042.jpg", body: parking,
                                                  headers: ["Content-Type": "image/jpeg"])
                #expect(named.1["file"] == .string("IMG_0042.jpg"), "\(named.1)")
                let disposition = try await server.json("POST", "/v1/receipts", body: diner,
                                                        headers: ["Content-Type": "image/jpeg", "Content-Disposition": "attachment; filename=\"diner.jpg\""])
                #expect(disposition.1["file"] == .string("diner.jpg"), "\(disposition.1)")
            }
        }

        @Test func aFailedReceiptCanBeRetriedAndACompletedOneCannot() async throws {
            let dir = try TemporaryDirectory()
            let truncated = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("bad/truncated.jpg")))
            try await LiveServer(dir).run { server in
                let (status, failed) = try await server.json("POST", "/v1/receipts?wait=30", body: truncated, headers: ["Content-Type": "image/jpeg"])
                #expect(status == 200 && failed["ocrStatus"]?.stringValue == "failed")
                #expect(failed["error"]?.stringValue?.contains("truncated JPEG") == true, "\(failed)")
                let id = try #require(failed["receiptId"]?.stringValue)
                let retried = try await server.send("POST", "/v1/receipts/\(id)/retry")
                #expect(retried.status == 202 && retried.headers["location"] == "/v1/receipts/\(id)")
                let (_, done) = try await server.upload("uk-parking.jpg", wait: 30)
                let conflict = try await server.send("POST", "/v1/receipts/\(try #require(done["receiptId"]?.stringValue))/retry")
                #expect(conflict.status == 409)
            }
        }

        @Test func deletingAReceiptRemovesItsImageAndExpense() async throws {
            let dir = try TemporaryDirectory()
            try await LiveServer(dir).run { server in
                let (_, record) = try await server.upload("uk-parking.jpg", wait: 30)
                let id = try #require(record["receiptId"]?.stringValue)
                let (_, expenses) = try await server.json("GET", "/v1/expenses?category=Other")
                #expect(expenses["expenses"]?.arrayValue?.count == 1)
                func storedImages() -> [String] {
                    (FileManager.default.enumerator(atPath: dir.path("store/images"))?.allObjects as? [String] ?? [])
                        .filter { !$0.hasPrefix(".") && !$0.contains("/.") && $0.contains("/") }
                }
                #expect(storedImages().count == 1)
                #expect(try await server.send("DELETE", "/v1/receipts/\(id)").status == 204)
                #expect(try await server.send("GET", "/v1/receipts/\(id)").status == 404)
                #expect(try await server.send("DELETE", "/v1/receipts/\(id)").status == 404)
                let (_, after) = try await server.json("GET", "/v1/expenses")
                #expect(after["expenses"]?.arrayValue?.isEmpty == true)
                #expect(storedImages().isEmpty)
            }
        }

        /// Issue 29, item 6: a confirmed expense is a person's record: its receipt is kept (409) unless forced.
        @Test func aReceiptWithAConfirmedExpenseIsKeptUnlessForced() async throws {
            let dir = try TemporaryDirectory()
            try await LiveServer(dir).run { server in
                let (_, record) = try await server.upload("uk-parking.jpg", wait: 60)
                let id = try #require(record["receiptId"]?.stringValue)
                let expense = try #require(record["expense"]?["id"]?.stringValue)
                let confirmed = try await server.send("PATCH", "/v1/expenses/\(expense)", body: Data(#"{"amount": "8.00", "status": "confirmed"}"#.utf8),
                                                      headers: ["Content-Type": "application/json"])
                #expect(confirmed.status == 200)
                let refused = try await server.send("DELETE", "/v1/receipts/\(id)")
                #expect(refused.status == 409, "\(String(decoding: refused.body, as: UTF8.self))")
                #expect(String(decoding: refused.body, as: UTF8.self).contains("force=true"))
                #expect(try await server.send("GET", "/v1/receipts/\(id)").status == 200, "still there")
                #expect(try await server.send("DELETE", "/v1/receipts/\(id)?force=yes").status == 400)
                #expect(try await server.send("DELETE", "/v1/receipts/\(id)?force=true").status == 204)
                #expect(try await server.send("GET", "/v1/expenses/\(expense)").status == 404)
            }
        }

        @Test func aFullQueueAnswers429WithRetryAfter() async throws {
            let dir = try TemporaryDirectory()
            try await LiveServer(dir, workers: 1, maxPending: 1).run { server in
                // A 35-megapixel page scan keeps the one worker busy for a second or more.
                let (first, _) = try await server.upload("scan-a4-pub.jpg")
                #expect(first == 202)
                let answer = try await server.send("POST", "/v1/receipts",
                                                   body: try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("us-diner.jpg"))),
                                                   headers: ["Content-Type": "image/jpeg"])
                #expect(answer.status == 429)
                #expect(answer.headers["retry-after"] == "5")
                #expect(try JSONValue.parse(answer.body)["detail"]?.stringValue?.contains("--max-pending") == true)
            }
        }
    }
}
