import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// Every kind of bad input becomes a one-line error naming the file and the cause.
@Suite struct BadInputTests {
    static let engine: OCREngine = TestSupport.runningEngine(threads: 1)

    @Test("Broken files fail with a clear cause", arguments: [
        ("empty.jpg", ReceiptError.Code.badImage, "empty"),
        ("truncated.jpg", .badImage, "truncated"),
        ("text.jpg", .badImage, "not an image"),
        ("photo.heic", .badImage, "corrupt or truncated HEIC"),
        ("truncated.heic", .badImage, "corrupt or truncated HEIC"),
        ("encrypted.pdf", .badImage, "encrypted PDF: it needs a password"),
        ("fifty-pages.pdf", .tooLarge, "50 pages"),
        ("huge.png", .tooLarge, "50000×50000"),
        ("folder.jpg", .unreadable, "folder"),
    ])
    func brokenFile(name: String, code: ReceiptError.Code, cause: String) async throws {
        let path = ReceiptsCLI.testReceipt("bad/\(name)")
        await #expect {
            _ = try await Self.engine.recognize(imageAt: URL(fileURLWithPath: path), file: path)
        } throws: { error in
            guard let error = error as? ReceiptError else { return false }
            let line = error.description
            return error.code == code && line.hasPrefix(path + ": ") && line.contains(cause) && !line.contains("\n")
        }
    }

    @Test func aMissingFileIsNamed() async throws {
        await #expect {
            _ = try await Self.engine.recognize(imageAt: URL(fileURLWithPath: "/nonexistent/receipt.jpg"))
        } throws: { error in
            "\(error)" == "/nonexistent/receipt.jpg: no such file"
        }
    }

    @Test func thePixelLimitIsConfigurable() async throws {
        let strict = try OCREngine(configuration: OCRConfiguration(maxPixels: 100_000), threads: 1, logger: TestSupport.logger)
        await #expect {
            _ = try await strict.withRunning { try await $0.recognize(imageAt: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg"))) }
        } throws: { error in
            (error as? ReceiptError)?.code == .tooLarge
        }
    }

    @Test func aBadImageDoesNotStopTheEngine() async throws {
        for name in ["empty.jpg", "truncated.jpg", "text.jpg"] {
            _ = try? await Self.engine.recognize(imageAt: URL(fileURLWithPath: ReceiptsCLI.testReceipt("bad/\(name)")))
        }
        let good = try await Self.engine.recognize(imageAt: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
        #expect(!good.words.isEmpty)
    }
}
