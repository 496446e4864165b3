// Test support is built for the tests only (debug builds, where @testable imports work):
// `swift build -c release` builds every regular target, this one included, and gets it empty.
#if DEBUG
import Foundation
import InMemoryLogging
import Logging
@testable import ReceiptKit
@testable import TestHelpers
import ReceiptRemoteAnalyzers

/// Shared pieces of the remote analyzer tests.
enum Remote {
    /// A key that must never show up anywhere but in a request header.
    static let key = "AIzaSy-TEST-SECRET-9f8e7d6c5b4a"

    static let source = "receipts/shell-fuel.png"

    /// PNG signature followed by arbitrary bytes: enough for type sniffing and base64 checks.
    static let pngBytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<600).map { UInt8(($0 * 37 + 11) % 256) })

    static let ocrText = """
        SHELL FORECOURT
        12 HIGH STREET
        PUMP 4 UNLEADED 32.10 L
        TOTAL £ 45.67
        VAT 20% 7.61
        12/03/2024 14:02
        """

    static var promptsDirectory: URL {
        ReceiptsCLI.repositoryRoot.appendingPathComponent("prompts")
    }

    static func prompts() throws -> PromptTemplate {
        try PromptTemplate(directory: promptsDirectory)
    }

    static func input(image: Data? = pngBytes, source: String = source, text: String = ocrText,
                      sourceSize: Int = 1200) -> AnalysisInput {
        let ocr = OCRResult(text: text, lines: [], meanConfidence: 90, imageWidth: 1000, imageHeight: 2000,
                            sourceWidth: sourceSize / 2, sourceHeight: sourceSize)
        return AnalysisInput(source: source, ocr: ocr, imageData: image)
    }

    /// Short delays so retry tests take a fraction of a second.
    static func configuration(_ server: ScriptedHTTPServer, key: String? = Remote.key, retries: Int = 3,
                              baseDelay: Duration = .milliseconds(100), timeout: Duration = .seconds(5),
                              send: RemoteInput = .both, model: String = "gemini-2.5-flash",
                              maxConcurrent: Int = 4, maxInlineImageBytes: Int = 7_000_000,
                              imagePreparer: ImagePreparer? = nil) -> RemoteAnalyzerConfiguration {
        RemoteAnalyzerConfiguration(apiKey: key.flatMap(APIKey.init), baseURL: server.baseURL, model: model, timeout: timeout,
                                    maxRetries: retries, baseRetryDelay: baseDelay, maxRetryDelay: .seconds(5),
                                    maxConcurrentRequests: maxConcurrent, send: send,
                                    maxInlineImageBytes: maxInlineImageBytes, imagePreparer: imagePreparer)
    }

    static let goodAnswer = """
        {"vendor":"Shell Forecourt","date":"2024-03-12","total":45.67,"tax":7.61,"currency":"GBP","category":"Fuel",
         "lineItems":[{"description":"Unleaded","quantity":32.10,"unitPrice":1.4227,"amount":45.67}],
         "confidence":{"vendor":0.95,"date":0.9,"total":0.99,"tax":0.9,"currency":0.97,"category":0.9}}
        """

    /// A `generateContent` reply whose answer text is `answer` (JSON-escaped into a text part).
    static func gemini(_ answer: String?, finishReason: String? = "STOP", thought: String? = nil,
                       promptTokens: Int = 812, outputTokens: Int = 96) -> ScriptedHTTPServer.Reply {
        var parts: [JSONValue] = []
        if let thought { parts.append(.object([("text", .string(thought)), ("thought", .bool(true))])) }
        if let answer { parts.append(.object([("text", .string(answer))])) }
        var candidate: [(String, JSONValue)] = [("content", .object([("parts", .array(parts)), ("role", .string("model"))]))]
        if answer == nil && thought == nil { candidate = [("content", .object([("role", .string("model"))]))] }
        if let finishReason { candidate.append(("finishReason", .string(finishReason))) }
        let body: JSONValue = .object([
            ("candidates", .array([.object(candidate)])),
            ("usageMetadata", .object([
                ("promptTokenCount", .int(promptTokens)), ("candidatesTokenCount", .int(outputTokens)),
                ("thoughtsTokenCount", .int(40)), ("totalTokenCount", .int(promptTokens + outputTokens + 40)),
            ])),
            ("modelVersion", .string("gemini-2.5-flash")),
        ])
        return .json(200, body.serialized())
    }

    /// A chat completions reply.
    static func openAI(_ answer: String, finishReason: String = "stop") -> ScriptedHTTPServer.Reply {
        let body: JSONValue = .object([
            ("id", .string("chatcmpl-1")), ("object", .string("chat.completion")), ("model", .string("llava:13b")),
            ("choices", .array([.object([
                ("index", .int(0)),
                ("message", .object([("role", .string("assistant")), ("content", .string(answer))])),
                ("finish_reason", .string(finishReason)),
            ])])),
            ("usage", .object([("prompt_tokens", .int(700)), ("completion_tokens", .int(90)), ("total_tokens", .int(790))])),
        ])
        return .json(200, body.serialized())
    }

    static func googleError(_ code: Int, status: String, message: String, details: String = "") -> ScriptedHTTPServer.Reply {
        .json(code, #"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)","details":[\#(details)]}}"#)
    }

    /// Gemini's answer to a key it does not know: HTTP 400 with `google.rpc.ErrorInfo` `API_KEY_INVALID`.
    static let keyRejected = googleError(
        400, status: "INVALID_ARGUMENT", message: "API key not valid. Please pass a valid API key.",
        details: #"{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}"#)

    /// Gemini's answer once the free tier's requests for the day are used up: HTTP 429 with a
    /// per-day `google.rpc.QuotaFailure` (and, as Gemini sends it, a short `RetryInfo` that waiting
    /// would not honour).
    static let dailyQuotaExhausted = googleError(
        429, status: "RESOURCE_EXHAUSTED", message: "You exceeded your current quota.",
        details: #"{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier","quotaValue":"250"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0.1s"}"#)

    /// Runs the real `receipts process FILES --analyzer gemini` against `server` with the test key,
    /// on the store at `store`, printing NDJSON. `more` adds flags (`--retries 0`).
    static func process(_ files: [String], server: ScriptedHTTPServer, store: String,
                        _ more: [String] = []) async throws -> ReceiptsCLI.Result {
        try await ReceiptsCLI.run(["process"] + files + [
            "--analyzer", "gemini", "--gemini-base-url", server.baseURL.absoluteString,
            "--store", store, "--format", "ndjson",
        ] + more, environment: ["GEMINI_API_KEY": key])
    }
}

/// Captures what a library logs, at every level.
struct LogCapture {
    let handler = InMemoryLogHandler()
    var logger: Logger {
        var handler = self.handler
        handler.logLevel = .trace
        return Logger(label: "receipts.test") { _ in handler }
    }

    /// Every message and metadata value, as one text per entry.
    var lines: [String] {
        handler.entries.map { entry in
            "\(entry.level) \(entry.message) " + entry.metadata.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        }
    }
}

/// Stands in for the heuristic analyzer: returns a fixed analysis and counts its calls.
final class StubAnalyzer: ReceiptAnalyzer, @unchecked Sendable {
    // Invariant: `count` is only touched with `lock` held.
    private let lock = NSLock()
    private var count = 0
    let name = "heuristic"

    var calls: Int { lock.withLock { count } }

    func analyze(_ input: AnalysisInput, options: AnalysisOptions) async throws -> ReceiptAnalysis {
        lock.withLock { count += 1 }
        return ReceiptAnalysis(vendor: "SHELL", total: Decimal(string: "45.67"), currency: "GBP", category: "Fuel",
                               analyzer: name)
    }
}

extension ReceiptError {
    /// Runs `body` and returns the `ReceiptError` it throws (nil when it throws nothing or something else).
    static func caught(_ body: () async throws -> Void) async -> ReceiptError? {
        do { try await body(); return nil } catch let error as ReceiptError { return error } catch { return nil }
    }
}

#endif
