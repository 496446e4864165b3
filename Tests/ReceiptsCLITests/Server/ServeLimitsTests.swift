import CTesseract
import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers

/// What keeps `receipts serve` answering (issue 29, items 12 and 13): a refused upload is answered
/// to a client that sends everything before it reads, and `/v1/analyze` holds a bounded number of
/// images. The real server on 127.0.0.1.
@Suite(.serialized) struct ServeLimitsTests {
    typealias Server = ServeCommandTests.Server

    /// Item 12: an upload over --max-upload-mb gets 413 and the connection is closed, whatever the
    /// client's headers, also for a client that writes its whole body (32 MB) before reading.
    @Test(arguments: [true, false])
    func anUploadTooLargeIsAnsweredToAClientThatSendsItAllFirst(connectionClose: Bool) async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath, arguments: ["--max-upload-mb", "0.05"])
        let port = try #require(server.base.port)
        var body = Data([0xFF, 0xD8, 0xFF, 0xE0])
        body.append(Data(repeating: 0x41, count: 32 << 20))
        var head = "POST /v1/receipts HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: image/jpeg\r\nContent-Length: \(body.count)\r\n"
        if connectionClose { head += "Connection: close\r\n" }
        head += "\r\n"
        let started = Date()
        let answer = try await RawHTTPClient.send(port: port, head: head, body: body, timeout: Int(20 * testTimeScale))
        #expect(answer.failure == nil, "\(answer.failure ?? "")")
        #expect(answer.status == 413, "\(answer.head)")
        #expect(answer.head.lowercased().contains("connection: close"), "\(answer.head)")
        #expect(answer.body.contains("larger than 0.05 MB"))
        #expect(Date().timeIntervalSince(started) < 15 * testTimeScale, "answered, not left to the client's timeout")
        // The server still serves.
        #expect(try await server.send("GET", "/healthz").status == 200)
        #expect(try await server.stop())
    }

    /// A request that cannot be read as HTTP — a control byte in a header value, a 1 MB query — is
    /// answered 400 with a problem document naming what is wrong (not an empty body), like every
    /// other 4xx; the server goes on serving.
    @Test func aRequestThatIsNotHTTPIsAProblemDocument() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath, arguments: ["--workers", "0"])
        let port = try #require(server.base.port)
        let huge = String(repeating: "a", count: 1 << 20)
        for (what, head) in [("\\x01 in a header", "GET /v1/receipts HTTP/1.1\r\nHost: 127.0.0.1\r\nReceipts-External-User: u\u{01}42\r\n\r\n"),
                             ("\\x7f in a header", "GET /v1/receipts HTTP/1.1\r\nHost: 127.0.0.1\r\nReceipts-External-User: u\u{7f}\r\n\r\n"),
                             ("a 1 MB query", "POST /v1/receipts?metadata=%7B%22a%22%3A%22\(huge)%22%7D HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")] {
            let answer = try await RawHTTPClient.send(port: port, head: head, body: Data(), timeout: Int(20 * testTimeScale))
            #expect(answer.status == 400, "\(what): \(answer.head) \(answer.failure ?? "")")
            #expect(answer.head.lowercased().contains("content-type: application/problem+json"), "\(what): \(answer.head)")
            let problem = try? JSONValue.parse(answer.body)
            #expect(problem?["status"] == .number("400") && (problem?["detail"]?.stringValue?.isEmpty == false), "\(what): \(answer.body)")
        }
        #expect(try await server.send("GET", "/healthz").status == 200)
        #expect(try await server.stop())
    }

    /// A grayscale PNG of `width`×`height` (white, a dark band), compressed.
    static func bigPNG(width: Int32, height: Int32) throws -> Data {
        var pix: UnsafeMutablePointer<PIX>? = pixCreate(width, height, 8)
        try #require(pix != nil)
        defer { pixDestroy(&pix) }
        pixSetAllArbitrary(pix, 255)
        var box = boxCreate(width / 10, height / 10, width / 2, height / 50)
        defer { boxDestroy(&box) }
        pixSetInRectArbitrary(pix, box, 0)
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        try #require(pixWriteMemPng(&bytes, &size, pix, 0) == 0)
        defer { free(bytes) }
        return Data(bytes: try #require(bytes), count: size)
    }

    /// The server's peak resident memory so far (VmHWM), in megabytes.
    static func peakMemoryMB(_ pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return nil }
        return kilobytes / 1024
    }

    /// Item 13: four concurrent 9000×11000 PNGs (under --max-pixels) on /v1/analyze: one is read
    /// at a time (one image of the largest size uses the whole pixel budget), the others get 429
    /// with Retry-After at once, and the server's memory stays bounded.
    @Test func analyzeHoldsABoundedNumberOfImages() async throws {
        let dir = try TemporaryDirectory()
        let server = try await Server(store: dir.storePath, arguments: ["--max-upload-mb", "50"])
        let png = try Self.bigPNG(width: 9000, height: 11000)
        let body = Data(#"{"image": "\#(png.base64EncodedString())", "mimeType": "image/png"}"#.utf8)
        #expect(try await ServeCommandTests.until(timeout: 30) { try await server.send("GET", "/readyz").status == 200 })
        let before = try #require(Self.peakMemoryMB(server.process.processIdentifier))
        let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let answer = try await server.send("POST", "/v1/analyze", body: body, headers: ["Content-Type": "application/json"])
                    return (answer.status, answer.headers["retry-after"])
                }
            }
            var answers: [(Int, String?)] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
        let refused = answers.filter { $0.0 == 429 }
        #expect(refused.count >= 2, "\(answers)")
        #expect(refused.allSatisfy { $0.1 == "5" }, "\(answers)")
        #expect(answers.filter { $0.0 != 429 }.allSatisfy { [200, 422].contains($0.0) }, "\(answers)")
        let peak = try #require(Self.peakMemoryMB(server.process.processIdentifier))
        // Measured: 195 MB with one image at a time, 548 MB before (four at once on two OCR threads).
        #expect(peak - before < 350 * testMemoryScale, "peak memory grew by \(Int(peak - before)) MB")
        // Once they are done, another is read.
        let again = try await server.send("POST", "/v1/analyze", body: body, headers: ["Content-Type": "application/json"])
        #expect([200, 422].contains(again.status))
        #expect(try await server.stop())
    }
}
