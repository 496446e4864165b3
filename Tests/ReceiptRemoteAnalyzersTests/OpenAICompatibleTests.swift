import Foundation
import Testing
@testable import ReceiptKit
import ReceiptRemoteAnalyzers
@testable import TestSupport

@Suite struct OpenAICompatibleTests {
    private func analyzer(_ server: ScriptedHTTPServer, baseURL: URL? = nil, key: String? = Remote.key,
                          logs: LogCapture = LogCapture()) throws -> OpenAICompatibleAnalyzer {
        var config = Remote.configuration(server, key: key, model: "llava:13b")
        if let baseURL { config.baseURL = baseURL }
        return OpenAICompatibleAnalyzer(configuration: config, prompts: try Remote.prompts(), logger: logs.logger)
    }

    @Test func requestCarriesBearerKeyDataURLAndSchema() async throws {
        let server = try ScriptedHTTPServer([Remote.openAI("```json\n\(Remote.goodAnswer)\n```")])
        defer { server.stop() }
        let result = try await analyzer(server).analyze(Remote.input(), options: AnalysisOptions())

        let request = try #require(server.requests.first)
        #expect(request.path == "/v1/chat/completions")
        #expect(request.headers["authorization"] == "Bearer \(Remote.key)")
        let body = try #require(request.json)
        #expect(body["model"]?.stringValue == "llava:13b")
        #expect(body["temperature"]?.decimalValue == 0)
        let messages = try #require(body["messages"]?.arrayValue)
        #expect(messages[0]["role"]?.stringValue == "system")
        #expect(messages[0]["content"]?.stringValue?.contains("Vehicle Tax") == true)
        let content = try #require(messages[1]["content"]?.arrayValue)
        #expect(content[0]["text"]?.stringValue?.contains("PUMP 4 UNLEADED") == true)
        let url = try #require(content[1]["image_url"]?["url"]?.stringValue)
        #expect(url.hasPrefix("data:image/png;base64,"))
        #expect(Data(base64Encoded: String(url.dropFirst("data:image/png;base64,".count))) == Remote.pngBytes)
        let format = try #require(body["response_format"])
        #expect(format["type"]?.stringValue == "json_schema")
        #expect(format["json_schema"]?["strict"]?.boolValue == true)
        #expect(format["json_schema"]?["schema"] == AnalysisSchema.json(for: .default))

        #expect(result.analyzer == "openai")
        #expect(result.json["total"]?.serialized() == "45.67")
        #expect(result.json["usage"]?["totalTokens"]?.serialized() == "790")
        #expect(result.json["prompt"]?["user"]?.stringValue == "receipt-user.txt")
    }

    @Test(arguments: [("/v1beta/openai", "/v1beta/openai/chat/completions"), ("/v1", "/v1/chat/completions"),
                      ("/", "/v1/chat/completions")])
    func endpointFollowsTheBaseURLsPath(path: String, expected: String) async throws {
        let server = try ScriptedHTTPServer([Remote.openAI(Remote.goodAnswer)])
        defer { server.stop() }
        let base = URL(string: "http://127.0.0.1:\(server.port)\(path)")!
        _ = try await analyzer(server, baseURL: base, key: nil).analyze(Remote.input(), options: AnalysisOptions())
        #expect(server.requests.first?.path == expected)
        #expect(server.requests.first?.headers["authorization"] == nil)
    }

    @Test func rateLimitHonoursRetryAfter() async throws {
        let server = try ScriptedHTTPServer([
            .json(429, #"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
                  headers: ["Retry-After": "1"]),
            Remote.openAI(Remote.goodAnswer),
        ])
        defer { server.stop() }
        _ = try await analyzer(server).analyze(Remote.input(), options: AnalysisOptions())
        #expect(server.requests.count == 2)
        #expect(try #require(server.gaps.first) >= 1.0)
    }

    @Test func serverWithoutResponseFormatIsAskedAgainWithoutIt() async throws {
        let server = try ScriptedHTTPServer([
            .json(400, #"{"error":{"code":400,"message":"'response_format' of type 'json_schema' is not supported","type":"invalid_request_error"}}"#),
            Remote.openAI("Sure! " + Remote.goodAnswer),
        ])
        defer { server.stop() }
        let result = try await analyzer(server).analyze(Remote.input(), options: AnalysisOptions())
        #expect(server.requests.count == 2)
        #expect(server.requests[0].json?["response_format"] != nil)
        #expect(server.requests[1].json?["response_format"] == nil)
        #expect(result.json["attempts"]?.serialized() == "1")
        #expect(result.json["responseSchema"] != nil)
    }

    @Test func ollamaStyleErrorForUnknownModel() async throws {
        let server = try ScriptedHTTPServer([.json(404, #"{"error":"model \"llava:13b\" not found, try pulling it first"}"#)])
        defer { server.stop() }
        let analyzer = try analyzer(server)
        let error = try #require(await ReceiptError.caught { _ = try await analyzer.analyze(Remote.input(), options: AnalysisOptions()) })
        #expect(server.requests.count == 1)
        #expect(error.description == "\(Remote.source): model 'llava:13b' not found at http://127.0.0.1:\(server.port) (HTTP 404: model \"llava:13b\" not found, try pulling it first)")
        #expect(error.hint == .modelNotFound, "the program in front adds how to change the model (the CLI: --model)")
    }

    @Test(arguments: [("length", "output token limit"), ("content_filter", "content filter")])
    func stoppedAnswersAreFailures(reason: String, message: String) async throws {
        let server = try ScriptedHTTPServer([Remote.openAI("", finishReason: reason)])
        defer { server.stop() }
        let analyzer = try analyzer(server)
        let error = try #require(await ReceiptError.caught { _ = try await analyzer.analyze(Remote.input(), options: AnalysisOptions()) })
        #expect(error.description.contains(message))
        #expect(error.file == Remote.source)
    }

    @Test func textOnlySendsPlainStringContent() async throws {
        let server = try ScriptedHTTPServer([Remote.openAI(Remote.goodAnswer)])
        defer { server.stop() }
        var config = Remote.configuration(server, send: .text, model: "qwen2.5")
        config.useResponseSchema = false
        let analyzer = OpenAICompatibleAnalyzer(configuration: config, prompts: try Remote.prompts(), logger: LogCapture().logger)
        _ = try await analyzer.analyze(Remote.input(), options: AnalysisOptions())
        let body = try #require(server.requests.first?.json)
        #expect(body["messages"]?.arrayValue?[1]["content"]?.stringValue?.contains("TOTAL £ 45.67") == true)
        #expect(body["response_format"] == nil)
    }
}
