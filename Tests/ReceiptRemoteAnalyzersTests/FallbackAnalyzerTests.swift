import Foundation
import Testing
@testable import ReceiptKit
import ReceiptRemoteAnalyzers
@testable import TestSupport

@Suite struct FallbackAnalyzerTests {
    @Test func remoteFailureFallsBackAndSaysWhy() async throws {
        let server = try ScriptedHTTPServer([Remote.googleError(503, status: "UNAVAILABLE", message: "The model is overloaded.")])
        defer { server.stop() }
        let heuristic = StubAnalyzer()
        let logs = LogCapture()
        let gemini = GeminiAnalyzer(configuration: Remote.configuration(server, retries: 1, baseDelay: .milliseconds(20)),
                                    prompts: try Remote.prompts(), logger: logs.logger)
        let auto = FallbackAnalyzer(primary: gemini, fallback: heuristic, logger: logs.logger)
        let result = try await auto.analyze(Remote.input(), options: AnalysisOptions())

        #expect(server.requests.count == 2)
        #expect(heuristic.calls == 1)
        #expect(result.analyzer == "heuristic")
        #expect(result.json["total"]?.serialized() == "45.67")
        #expect(result.json["fallbackFrom"]?.stringValue == "gemini")
        #expect(result.json["fallbackReason"]?.stringValue
                == "Gemini server error (HTTP 503 UNAVAILABLE: The model is overloaded.); gave up after 2 attempts")
        #expect(logs.lines.contains { $0.contains("using the fallback analyzer") && $0.contains(Remote.source) })
    }

    @Test func remoteSuccessDoesNotTouchTheFallback() async throws {
        let server = try ScriptedHTTPServer([Remote.gemini(Remote.goodAnswer)])
        defer { server.stop() }
        let heuristic = StubAnalyzer()
        let gemini = GeminiAnalyzer(configuration: Remote.configuration(server), prompts: try Remote.prompts(),
                                    logger: LogCapture().logger)
        let result = try await FallbackAnalyzer(primary: gemini, fallback: heuristic, logger: LogCapture().logger)
            .analyze(Remote.input(), options: AnalysisOptions())
        #expect(result.analyzer == "gemini")
        #expect(result.json["fallbackReason"] == nil)
        #expect(heuristic.calls == 0)
    }

    @Test func invalidAnswerAndTimeoutAlsoFallBack() async throws {
        let server = try ScriptedHTTPServer([Remote.gemini("no idea"), .hang])
        defer { server.stop() }
        let heuristic = StubAnalyzer()
        let gemini = GeminiAnalyzer(configuration: Remote.configuration(server, retries: 0, timeout: .seconds(1)),
                                    prompts: try Remote.prompts(), logger: LogCapture().logger)
        let auto = FallbackAnalyzer(primary: gemini, fallback: heuristic, logger: LogCapture().logger)
        let first = try await auto.analyze(Remote.input(), options: AnalysisOptions())
        let second = try await auto.analyze(Remote.input(), options: AnalysisOptions())
        #expect(first.json["fallbackReason"]?.stringValue?.hasPrefix("the model's answer is not a JSON object") == true)
        #expect(second.json["fallbackReason"]?.stringValue?.contains("(timeout)") == true)
        #expect(heuristic.calls == 2)
    }
}

/// The API key goes into a request header and nowhere else: not into errors, log lines,
/// results or a printed configuration, even when the server echoes it back.
@Suite struct APIKeySecrecyTests {
    @Test func keyNeverLeavesTheRequestHeader() async throws {
        let echo = "API key not valid: \(Remote.key)"
        let server = try ScriptedHTTPServer([
            .json(503, #"{"error":{"code":503,"message":"overloaded for key \#(Remote.key)","status":"UNAVAILABLE"}}"#),
            Remote.gemini("I see the key \(Remote.key) but no receipt"),
            Remote.gemini(Remote.goodAnswer.replacingOccurrences(of: "Shell Forecourt", with: "Shell")),
            .json(400, #"{"error":{"code":400,"message":"\#(echo)","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}"#),
            .json(429, #"{"error":{"code":429,"message":"quota for \#(Remote.key) per day","status":"RESOURCE_EXHAUSTED"}}"#),
        ])
        defer { server.stop() }
        let logs = LogCapture()
        let config = Remote.configuration(server, retries: 1, baseDelay: .milliseconds(10))
        let gemini = GeminiAnalyzer(configuration: config, prompts: try Remote.prompts(), logger: logs.logger)
        let auto = FallbackAnalyzer(primary: gemini, fallback: StubAnalyzer(), logger: logs.logger)

        var texts: [String] = []
        for _ in 0..<2 {                       // 503 then garbage; then a good answer
            do { texts.append(try await gemini.analyze(Remote.input(), options: AnalysisOptions()).json.serialized()) }
            catch { texts.append("\(error)"); texts.append(String(reflecting: error)) }
        }
        for _ in 0..<2 {                       // 400 with the key echoed, then a daily quota: both fall back
            texts.append(try await auto.analyze(Remote.input(), options: AnalysisOptions()).json.serialized())
        }
        texts += logs.lines
        texts.append("\(config)")
        texts.append(String(reflecting: config))
        texts.append(String(describing: config.apiKey))

        #expect(server.requests.count == 5)
        #expect(server.requests.allSatisfy { $0.headers["x-goog-api-key"] == Remote.key })
        #expect(texts.contains { $0.contains("<redacted>") })           // the echoes were there, and were removed
        #expect(texts.contains { $0.contains("rejected the API key") })
        for text in texts {
            #expect(!text.contains(Remote.key), "key leaked in: \(text)")
        }
    }
}
