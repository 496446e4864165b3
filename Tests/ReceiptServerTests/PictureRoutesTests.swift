import Foundation
import Testing
import ReceiptKit
@testable import ReceiptServer
@testable import TestHelpers

extension LiveRouteTests {
    /// The pictures the review page shows: a PDF's pages one at a time and thumbnails, with an API
    /// token. `receipts serve` in process (`LiveServer`): Tesseract alone, real files, a real SQLite
    /// store. Were end-to-end tests of the binary (ServePicturesTests).
    @Suite struct PictureRoutesTests {
        private static func upload(_ server: LiveServer.Client, _ name: String, token: String) async throws -> String {
            let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt(name)))
            let answer = try await server.send("POST", "/v1/receipts?wait=60&filename=\(name)", body: data,
                                               headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/octet-stream"])
            let record = try JSONValue.parse(answer.body)
            #expect(answer.status == 200 && record["ocrStatus"] == .string("completed"), "\(name): \(record)")
            return try #require(record["receiptId"]?.stringValue)
        }

        /// A two-page PDF with a text layer, 300 × 400 points a page: the shop on page 1, the total
        /// on page 2.
        static let twoPages: Data = {
            func text(_ lines: [String]) -> String {
                "BT /F1 14 Tf 20 TL 40 360 Td\n" + lines.map { "(\($0)) Tj T*\n" }.joined() + "ET"
            }
            let contents = [text(["NORTHGATE FUELS", "12 High Street, Leeds", "Date: 21/05/2025", "Pump 2 Diesel 40.00 L"]),
                            text(["Net 52.50", "VAT 20% 10.50", "TOTAL GBP 63.00", "Paid by card"])]
            var objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>",
                           "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
            for (i, content) in contents.enumerated() {
                objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] /Resources << /Font << /F1 3 0 R >> >> /Contents \(5 + 2 * i) 0 R >>")
                objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
            }
            var pdf = "%PDF-1.4\n", offsets: [Int] = []
            for (n, object) in objects.enumerated() {
                offsets.append(pdf.utf8.count)
                pdf += "\(n + 1) 0 obj\n\(object)\nendobj\n"
            }
            let xref = pdf.utf8.count
            pdf += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n" + offsets.map { String(format: "%010d 00000 n \n", $0) }.joined()
            pdf += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
            return Data(pdf.utf8)
        }()

        private static func upload(_ server: LiveServer.Client, _ data: Data, named name: String) async throws -> JSONValue {
            let answer = try await server.send("POST", "/v1/receipts?wait=60&filename=\(name)", body: data, headers: ["Content-Type": "application/pdf"])
            #expect(answer.status == 200, "\(name): \(answer.status)")
            return try JSONValue.parse(answer.body)
        }

        @Test func eachPageOfAPDFIsDrawnAndItsWordsAreInThePagesStacked() async throws {
            let dir = try TemporaryDirectory()
            try await LiveServer(dir).run { server in
                let record = try await Self.upload(server, Self.twoPages, named: "two-pages.pdf")
                let id = try #require(record["receiptId"]?.stringValue, "\(record)")
                var sizes: [(Int, Int)] = []
                for page in 1...2 {
                    let answer = try await server.send("GET", "/v1/receipts/\(id)/pages/\(page)")
                    #expect(answer.status == 200 && answer.headers["x-page-count"] == "2", "page \(page): \(answer.status) \(answer.headers)")
                    sizes.append(try #require(OCREngine.dimensions(of: answer.body)))
                }
                // 300 × 400 points at 300 dpi: 1250 × 1666 pixels, page 2 not page 1 again.
                #expect(sizes.allSatisfy { $0 == (1250, 1666) }, "\(sizes)")
                let one = try await server.send("GET", "/v1/receipts/\(id)/pages/1"), two = try await server.send("GET", "/v1/receipts/\(id)/pages/2")
                #expect(one.body != two.body)
                let three = try await server.send("GET", "/v1/receipts/\(id)/pages/3")
                let detail = try JSONValue.parse(three.body)["detail"]?.stringValue
                #expect(three.status == 404 && detail == "receipt \(id) has 2 pages: there is no page 3")
                // The record's boxes are in the pages one below the other: the total is in the lower half.
                let sources = try #require(record["analysis"]?["sources"], "\(record)")
                let height = try #require(sources["imageHeight"]?.doubleValue)
                let total = (sources["total"]?.arrayValue?.first?["box"]?.arrayValue ?? []).compactMap { $0.doubleValue }
                #expect(total.count == 4 && total[1] > height / 2, "\(total) in \(height)")
            }
        }

        @Test func aPDFAboveThePageLimitIsNotDrawn() async throws {
            let dir = try TemporaryDirectory()
            try await LiveServer(dir, maxPDFPages: 1).run { server in
                let record = try await Self.upload(server, Self.twoPages, named: "two-pages.pdf")
                let id = try #require(record["receiptId"]?.stringValue, "\(record)")
                #expect(record["ocrStatus"] == .string("failed"), "\(record)")
                for path in ["/v1/receipts/\(id)/pages/1", "/v1/receipts/\(id)/thumbnail"] {
                    let answer = try await server.send("GET", path)
                    let detail = try JSONValue.parse(answer.body)["detail"]?.stringValue ?? ""
                    #expect(answer.status == 422 && detail.contains("PDF has 2 pages, above the limit of 1") && detail.contains("--max-pdf-pages"),
                            "\(path): \(answer.status) \(detail)")
                }
            }
        }

        @Test func aPDFsPagesAndThumbnailsAreDrawnWithinTheirBounds() async throws {
            let dir = try TemporaryDirectory()
            let live = try LiveServer(dir)
            // Made as `receipts token create --name pictures` makes it.
            let token = try await live.store.createToken(name: "pictures", now: Date())
            let auth = ["Authorization": "Bearer \(token)"]
            try await live.run { server in
                let pdf = try await Self.upload(server, "email-fuel-card.pdf", token: token)
                let jpeg = try await Self.upload(server, "uk-supermarket.jpg", token: token)
                let heic = try await Self.upload(server, "iphone-autospares.heic", token: token)

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
                // (The HEIC is a sideways picture turned by its own rotation: upright, it is taller than wide.)
                for id in [pdf, jpeg, jpeg, heic] {
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
            }
        }
    }
}
