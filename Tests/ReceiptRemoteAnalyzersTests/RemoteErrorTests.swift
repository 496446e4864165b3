import Foundation
import Testing
@testable import ReceiptKit
import ReceiptRemoteAnalyzers
@testable import TestSupport

/// Every error class of a remote analyzer: what is retried, how often, after which delays, and
/// the one line the user gets. Delays are scaled down (100 ms base) so the suite stays quick.
@Suite struct RemoteErrorTests {
    private func analyze(_ server: ScriptedHTTPServer, _ config: RemoteAnalyzerConfiguration,
                         logs: LogCapture = LogCapture()) async throws -> ReceiptAnalysis {
        let analyzer = GeminiAnalyzer(configuration: config, prompts: try Remote.prompts(), logger: logs.logger)
        return try await analyzer.analyze(Remote.input(), options: AnalysisOptions())
    }

    private func failure(_ server: ScriptedHTTPServer, _ config: RemoteAnalyzerConfiguration,
                         logs: LogCapture = LogCapture()) async throws -> ReceiptError {
        let prompts = try Remote.prompts()
        return try #require(await ReceiptError.caught {
            let analyzer = GeminiAnalyzer(configuration: config, prompts: prompts, logger: logs.logger)
            _ = try await analyzer.analyze(Remote.input(), options: AnalysisOptions())
        })
    }

    @Test func rateLimitWaitsTheServersRetryDelayThenSucceeds() async throws {
        let details = #"{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier","quotaValue":"10"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0.6s"}"#
        let server = try ScriptedHTTPServer([
            Remote.googleError(429, status: "RESOURCE_EXHAUSTED", message: "You exceeded your current quota.", details: details),
            Remote.gemini(Remote.goodAnswer),
        ])
        defer { server.stop() }
        let logs = LogCapture()
        let result = try await analyze(server, Remote.configuration(server, baseDelay: .milliseconds(20)), logs: logs)
        #expect(result.total == Decimal(string: "45.67"))
        #expect(result.json["attempts"]?.serialized() == "2")
        #expect(server.requests.count == 2)
        // The wait the client chose is the server's; the wait measured is at least that (a loaded
        // machine may add to it, so it has no upper bound here).
        #expect(Self.retryDelays(logs) == [0.6])
        let gap = try #require(server.gaps.first)
        #expect(gap >= 0.6, "waited \(gap) s, the server asked for 0.6 s")
        #expect(logs.lines.contains { $0.contains("retrying") && $0.contains("RESOURCE_EXHAUSTED") })
    }

    @Test func dailyQuotaGivesUpAtOnce() async throws {
        let details = #"{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier","quotaValue":"250"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0.1s"}"#
        let server = try ScriptedHTTPServer([
            Remote.googleError(429, status: "RESOURCE_EXHAUSTED", message: "You exceeded your current quota.", details: details),
        ])
        defer { server.stop() }
        let error = try await failure(server, Remote.configuration(server))
        #expect(server.requests.count == 1)
        #expect(error.code == .remoteFailed)
        #expect(error.file == Remote.source)
        #expect(error.description.hasPrefix("\(Remote.source): Gemini daily quota exhausted for model 'gemini-2.5-flash'"))
        #expect(error.description.contains("GenerateRequestsPerDayPerProjectPerModel-FreeTier"))
    }

    @Test func retryDelayLongerThanAllowedFailsInsteadOfWaiting() async throws {
        let details = #"{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3600s"}"#
        let server = try ScriptedHTTPServer([Remote.googleError(429, status: "RESOURCE_EXHAUSTED", message: "slow down", details: details)])
        defer { server.stop() }
        let start = ContinuousClock.now
        let error = try await failure(server, Remote.configuration(server))
        // Not the hour asked for (nor a minute: the bound leaves room for a loaded machine).
        #expect(ContinuousClock.now - start < .seconds(60))
        #expect(server.requests.count == 1)
        #expect(error.description.contains("asks to wait 3600 s"))
    }

    @Test(arguments: [500, 503, 504])
    func serverErrorsBackOffExponentiallyThenGiveUp(status: Int) async throws {
        let server = try ScriptedHTTPServer([Remote.googleError(status, status: "UNAVAILABLE", message: "The model is overloaded.")])
        defer { server.stop() }
        let logs = LogCapture()
        let error = try await failure(server, Remote.configuration(server, retries: 3, baseDelay: .milliseconds(100)), logs: logs)
        #expect(server.requests.count == 4)
        #expect(error.description == "\(Remote.source): Gemini server error (HTTP \(status) UNAVAILABLE: The model is overloaded.); gave up after 4 attempts")
        // Backoff: 100, 200, 400 ms, each scaled by a jitter factor in 0.5…1 — the waits the client
        // chose, as it logs them; the waits measured are at least those (a loaded machine may add to
        // them, so they have no upper bound here).
        let delays = Self.retryDelays(logs)
        let gaps = server.gaps
        #expect(delays.count == 3)
        #expect(gaps.count == 3)
        for (i, (delay, gap)) in zip(delays, gaps).enumerated() {
            let nominal = 0.1 * pow(2, Double(i))
            #expect(delay >= nominal * 0.5 - 0.001 && delay <= nominal + 0.001, "delay \(i) was \(delay) s")
            #expect(gap >= delay - 0.01, "gap \(i) was \(gap) s, the client meant to wait \(delay) s")
        }
    }

    /// The retry delays the client logged, in seconds, in order.
    static func retryDelays(_ logs: LogCapture) -> [Double] {
        logs.lines.compactMap { line -> Double? in
            guard let range = line.range(of: #"remote\.retryDelay=[0-9.]+ (ms|s)"#, options: .regularExpression) else { return nil }
            let parts = line[range].dropFirst("remote.retryDelay=".count).split(separator: " ")
            guard let value = Double(parts[0]) else { return nil }
            return parts[1] == "ms" ? value / 1000 : value
        }
    }

    @Test func serviceUnavailableOnceThenSuccess() async throws {
        let server = try ScriptedHTTPServer([
            Remote.googleError(503, status: "UNAVAILABLE", message: "The model is overloaded."),
            Remote.gemini(Remote.goodAnswer),
        ])
        defer { server.stop() }
        let result = try await analyze(server, Remote.configuration(server))
        #expect(server.requests.count == 2)
        #expect(result.json["attempts"]?.serialized() == "2")
        #expect(result.total == Decimal(string: "45.67"))
    }

    @Test func droppedConnectionIsRetried() async throws {
        let server = try ScriptedHTTPServer([.drop, .drop, Remote.gemini(Remote.goodAnswer)])
        defer { server.stop() }
        let result = try await analyze(server, Remote.configuration(server))
        #expect(server.requests.count == 3)
        #expect(result.vendor == "Shell Forecourt")
    }

    @Test func droppedConnectionsEverywhereGiveUpAfterTheRetries() async throws {
        let server = try ScriptedHTTPServer([.drop])
        defer { server.stop() }
        let error = try await failure(server, Remote.configuration(server, retries: 2))
        #expect(server.requests.count == 3)
        #expect(error.description.contains("connection to 127.0.0.1 failed"))
        #expect(error.description.hasSuffix("gave up after 3 attempts"))
    }

    @Test func serverThatNeverAnswersTimesOut() async throws {
        let server = try ScriptedHTTPServer([.hang])
        defer { server.stop() }
        let start = ContinuousClock.now
        let error = try await failure(server, Remote.configuration(server, retries: 1, baseDelay: .milliseconds(50),
                                                                   timeout: .seconds(1)))
        let elapsed = (ContinuousClock.now - start).seconds
        #expect(server.requests.count == 2)
        #expect(error.description.contains("no answer from 127.0.0.1 within 1 s (timeout)"))
        #expect(error.description.hasSuffix("gave up after 2 attempts"))
        // Both attempts waited their second; the upper bound only tells the 1 s timeout from
        // URLSession's default of 60 s an attempt (120 s), not a fast machine from a slow one: beside
        // `make check` on two loaded cores this took 42 s.
        #expect(elapsed >= 2 && elapsed < 100, "took \(elapsed) s: \(error)")
    }

    @Test(arguments: [
        (400, #"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}"#,
         "Gemini rejected the API key (HTTP 400 INVALID_ARGUMENT API_KEY_INVALID: API key not valid. Please pass a valid API key.); check GEMINI_API_KEY or --api-key-file"),
        (401, #"{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}"#,
         "Gemini rejected the API key (HTTP 401 UNAUTHENTICATED: Request had invalid authentication credentials.); check GEMINI_API_KEY or --api-key-file"),
        (403, #"{"error":{"code":403,"message":"Method doesn't allow unregistered callers.","status":"PERMISSION_DENIED"}}"#,
         "Gemini refused access (HTTP 403 PERMISSION_DENIED: Method doesn't allow unregistered callers.); the key may lack access to model 'gemini-2.5-flash' or the API is not enabled for its project"),
        (404, #"{"error":{"code":404,"message":"models/gemini-2.5-flash is not found for API version v1beta","status":"NOT_FOUND"}}"#,
         "model 'gemini-2.5-flash' not found at http://127.0.0.1:PORT (HTTP 404 NOT_FOUND: models/gemini-2.5-flash is not found for API version v1beta); check --model and the base URL"),
        (400, #"{"error":{"code":400,"message":"Unable to process input image.","status":"INVALID_ARGUMENT"}}"#,
         "Gemini rejected the request (HTTP 400 INVALID_ARGUMENT: Unable to process input image.)"),
    ])
    func clientErrorsAreNotRetriedAndSayWhatToFix(status: Int, body: String, message: String) async throws {
        let server = try ScriptedHTTPServer([.json(status, body)])
        defer { server.stop() }
        let error = try await failure(server, Remote.configuration(server))
        #expect(server.requests.count == 1)
        let expected = message.replacingOccurrences(of: "PORT", with: "\(server.port)")
        // The library names no flag; a program's advice (here the CLI's words) completes the line.
        #expect(!error.description.contains("--"), "\(error)")
        let advice = ErrorAdvice([.apiKey: " or --api-key-file", .modelNotFound: "; check --model and the base URL"])
        #expect(advice.apply(to: error).description == "\(Remote.source): \(expected)")
        #expect(!error.description.contains("\n"))
    }

    @Test func missingKeyIsNamedAsSuch() async throws {
        let server = try ScriptedHTTPServer([.json(401, #"{"error":{"code":401,"message":"API key required","status":"UNAUTHENTICATED"}}"#)])
        defer { server.stop() }
        let error = try await failure(server, Remote.configuration(server, key: nil))
        #expect(error.description.contains("Gemini needs an API key"))
        #expect(server.requests.first?.headers["x-goog-api-key"] == nil)
    }

    @Test func requestsInFlightStayWithinTheLimit() async throws {
        let server = try ScriptedHTTPServer([
            .respond(status: 200, headers: ["Content-Type": "application/json"],
                     body: { if case let .respond(_, _, body, _) = Remote.gemini(Remote.goodAnswer) { return body }; return "" }(),
                     delay: .milliseconds(250)),
        ])
        defer { server.stop() }
        let analyzer = GeminiAnalyzer(configuration: Remote.configuration(server, maxConcurrent: 2), prompts: try Remote.prompts(),
                                      logger: LogCapture().logger)
        try await withThrowingTaskGroup(of: ReceiptAnalysis.self) { group in
            for i in 0..<6 {
                group.addTask { try await analyzer.analyze(Remote.input(source: "r\(i).png"), options: AnalysisOptions()) }
            }
            var count = 0
            for try await result in group {
                #expect(result.total == Decimal(string: "45.67"))
                count += 1
            }
            #expect(count == 6)
        }
        #expect(server.requests.count == 6)
        #expect(server.maxConcurrentRequests == 2)
    }
}
