import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// `receipts process` on an image the store already has, with the real binary and a real store: a
/// failed receipt is tried again (the user fixed the cause), a completed one is returned as it is.
@Suite struct ProcessAgainCLITests {
    @Test func aFailedReceiptIsTriedAgainAndACompletedOneIsNotReadAgain() async throws {
        let dir = try TemporaryDirectory()
        let file = ReceiptsCLI.testReceipt("uk-parking.jpg")

        let rejecting = try ScriptedHTTPServer([Remote.keyRejected])
        defer { rejecting.stop() }
        let first = try await Remote.process([file], server: rejecting, store: dir.storePath)
        #expect(first.status == 1, "stderr: \(first.err)")
        let failed = try #require(try first.ndjson().first)
        #expect(failed["ocrStatus"] == .string("failed"))
        #expect(rejecting.requests.count == 1)

        // The key is fixed: the same image, processed again, is read again and completes.
        let answering = try ScriptedHTTPServer([Remote.gemini(Remote.goodAnswer)])
        defer { answering.stop() }
        let second = try await Remote.process([file], server: answering, store: dir.storePath)
        #expect(second.status == 0, "stderr: \(second.err)")
        #expect(answering.requests.count == 1, "the failed receipt was not read again")
        let records = try second.ndjson()
        #expect(records.count == 1)
        let completed = try #require(records.first)
        #expect(completed["file"] == .string(file))
        #expect(completed["ocrStatus"] == .string("completed"), "\(completed["error"] ?? .null)")
        #expect(completed["receiptId"] == failed["receiptId"], "the failed receipt itself is tried again, not a copy")
        #expect(completed["analysis"]?["vendor"] == .string("Shell Forecourt"))
        #expect(completed["error"] == .null)

        let list = try await ReceiptsCLI.run(["list", "--store", dir.storePath, "--format", "ndjson"])
        #expect(list.status == 0, "stderr: \(list.err)")
        let receipts = try list.ndjson()
        #expect(receipts.count == 1, "\(list.out)")
        #expect(receipts.first?["id"] == failed["receiptId"])
        #expect(receipts.first?["ocrStatus"] == .string("completed"))
        #expect(receipts.first?["attempts"] == .number("1"), "attempts start again from zero")
        #expect(receipts.first?["lastError"] == .null)

        // Completed: processed again, it is returned as it is, without a request.
        let third = try await Remote.process([file], server: answering, store: dir.storePath)
        #expect(third.status == 0, "stderr: \(third.err)")
        #expect(answering.requests.count == 1, "a completed receipt was read again")
        let again = try #require(try third.ndjson().first)
        #expect(again["receiptId"] == failed["receiptId"])
        #expect(again["ocrStatus"] == .string("completed"))
    }
}
