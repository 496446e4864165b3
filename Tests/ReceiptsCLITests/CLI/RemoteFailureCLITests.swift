import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// What a failing remote analyzer costs on the real binary, its remote client and its queue
/// together: a failure the same request meets again (a rejected key, a used-up daily quota) is
/// sent exactly once; a transient one (an overloaded server) is tried again by the queue.
@Suite struct RemoteFailureCLITests {
    static let file = ReceiptsCLI.testReceipt("uk-parking.jpg")

    /// The one record of a single-file run.
    private func record(_ result: ReceiptsCLI.Result) throws -> JSONValue {
        let records = try result.ndjson()
        #expect(records.count == 1, "\(result.out)")
        return try #require(records.first)
    }

    @Test(arguments: [
        ("rejected key", Remote.keyRejected,
         "Gemini rejected the API key (HTTP 400 INVALID_ARGUMENT API_KEY_INVALID: API key not valid. Please pass a valid API key.); check GEMINI_API_KEY or --api-key-file"),
        ("daily quota", Remote.dailyQuotaExhausted,
         "Gemini daily quota exhausted for model 'gemini-2.5-flash', quota GenerateRequestsPerDayPerProjectPerModel-FreeTier"),
    ])
    func aPermanentFailureCostsExactlyOneRequest(_ what: String, reply: ScriptedHTTPServer.Reply, message: String) async throws {
        let server = try ScriptedHTTPServer([reply])
        defer { server.stop() }
        let dir = try TemporaryDirectory()
        // Default --retries (3): neither the client nor the queue may spend them on this.
        let result = try await Remote.process([Self.file], server: server, store: dir.storePath)
        #expect(result.status == 1, "\(what): exit 1 when a receipt failed; stderr: \(result.err)")
        #expect(server.requests.count == 1, "\(what): sent \(server.requests.count) times")

        let record = try record(result)
        #expect(record["file"] == .string(Self.file))
        #expect(record["ocrStatus"] == .string("failed"))
        let error = try #require(record["error"]?.stringValue)
        #expect(error.hasPrefix("\(Self.file): \(message)"), "\(what): \(error)")
        #expect(!error.contains("\n"))
        #expect(!error.contains(Remote.key))
    }

    @Test func aTransientFailureIsStillTriedAgainByTheQueue() async throws {
        let server = try ScriptedHTTPServer([Remote.googleError(503, status: "UNAVAILABLE", message: "The model is overloaded.")])
        defer { server.stop() }
        let dir = try TemporaryDirectory()
        // --retries 0: the client gives up after one request, so every further request is the
        // queue's (after its own backoff, 2 s then 4 s).
        let result = try await Remote.process([Self.file], server: server, store: dir.storePath, ["--retries", "0"])
        #expect(result.status == 1, "stderr: \(result.err)")
        #expect(server.requests.count == RetryPolicy().maxAttempts, "the queue tries a transient failure again")

        let record = try record(result)
        #expect(record["ocrStatus"] == .string("failed"))
        let error = try #require(record["error"]?.stringValue)
        #expect(error.hasPrefix("\(Self.file): Gemini server error (HTTP 503 UNAVAILABLE: The model is overloaded.)"), "\(error)")
        #expect(!error.contains("\n"))
    }
}
