import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ReceiptKit
@testable import ReceiptServer

/// The pictures the review page shows: a PDF's pages one at a time and thumbnails, from the real
/// `receipts serve` (Tesseract alone) with an API token, real files and a real SQLite store.
@Suite(.serialized) struct ServePicturesTests {
    typealias Server = ServeCommandTests.Server

    private func upload(_ server: Server, _ name: String, token: String) async throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt(name)))
        let answer = try await server.send("POST", "/v1/receipts?wait=60&filename=\(name)", body: data,
                                           headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/octet-stream"])
        let record = try JSONValue.parse(answer.body)
        #expect(answer.status == 200 && record["ocrStatus"] == .string("completed"), "\(name): \(record)")
        return try #require(record["receiptId"]?.stringValue)
    }

    @Test func aPDFsPagesAndThumbnailsAreDrawnWithinTheirBounds() async throws {
        let dir = try TemporaryDirectory()
        let created = try await ReceiptsCLI.run(["token", "create", "--name", "pictures", "--store", dir.storePath])
        let token = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let auth = ["Authorization": "Bearer \(token)"]
        let server = try await Server(store: dir.storePath, arguments: ["--reader", "tesseract"])
        let pdf = try await upload(server, "email-fuel-card.pdf", token: token)
        let jpeg = try await upload(server, "uk-supermarket.jpg", token: token)

        // Page 1 of the PDF, as PNG (the default) and as JPEG: decodable, upright, the page's shape
        // (the email receipt is 226 × 425 points: 944 × 1771 pixels at 300 dpi).
        for (query, type, magic) in [("", "image/png", [0x89, 0x50, 0x4E, 0x47]), ("?format=jpeg", "image/jpeg", [0xFF, 0xD8, 0xFF])] {
            let page = try await server.send("GET", "/v1/receipts/\(pdf)/pages/1\(query)", headers: auth)
            #expect(page.status == 200 && page.headers["content-type"] == type, "\(query): \(page.status) \(page.headers)")
            #expect(page.headers["x-page-count"] == "1" && page.headers["cache-control"]?.contains("max-age") == true, "\(page.headers)")
            #expect(Array(page.body.prefix(magic.count)) == magic.map(UInt8.init))
            let (w, h) = try #require(OCREngine.dimensions(of: page.body), "\(query): not a picture Leptonica reads")
            #expect(max(w, h) <= ReceiptServer.pageSize && w > 800 && w < h, "\(w)×\(h)")
            #expect(abs(Double(h) / Double(w) - 425.0 / 226.0) < 0.02, "\(w)×\(h)")
        }
        // Pages the PDF does not have, or that are not pages at all; a receipt that is not a PDF.
        for (path, status, detail) in [
            ("/v1/receipts/\(pdf)/pages/2", 404, "receipt \(pdf) has 1 page: there is no page 2"),
            ("/v1/receipts/\(pdf)/pages/0", 400, "page must be a whole number from 1 to 10000 (got '0')"),
            ("/v1/receipts/\(pdf)/pages/1?format=gif", 400, "format must be png or jpeg (got 'gif')"),
            ("/v1/receipts/\(jpeg)/pages/1", 404, "receipt \(jpeg) is an image, not a PDF: it has no pages (its image is /v1/receipts/\(jpeg)/image)"),
        ] {
            let answer = try await server.send("GET", path, headers: auth)
            #expect(answer.status == status && answer.headers["content-type"] == "application/problem+json", "\(path): \(answer.status)")
            #expect(try JSONValue.parse(answer.body)["detail"]?.stringValue == detail, "\(path)")
        }

        // Thumbnails: JPEGs of at most 320 pixels on the long side, the second time from memory.
        for id in [pdf, jpeg, jpeg] {
            let thumbnail = try await server.send("GET", "/v1/receipts/\(id)/thumbnail", headers: auth)
            #expect(thumbnail.status == 200 && thumbnail.headers["content-type"] == "image/jpeg", "\(thumbnail.status)")
            #expect(thumbnail.headers["cache-control"]?.contains("max-age") == true)
            let (w, h) = try #require(OCREngine.dimensions(of: thumbnail.body), "not a picture Leptonica reads")
            #expect(max(w, h) == ReceiptServer.thumbnailSize && min(w, h) > 100 && w < h, "\(w)×\(h)")
        }

        // The same doors as the image: the token, or nothing.
        for path in ["/v1/receipts/\(pdf)/pages/1", "/v1/receipts/\(pdf)/thumbnail"] {
            #expect(try await server.send("GET", path).status == 401, "\(path)")
        }
        #expect(try await server.stop())
    }
}
