import Foundation
import ReceiptAnalyzers
import ReceiptModel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

/// Reads receipts with a model behind an OpenAI-compatible chat completions endpoint: Ollama,
/// vLLM, llama.cpp's server, Gemini's own OpenAI endpoint.
///
/// `POST {baseURL}/v1/chat/completions` (or `{baseURL}/chat/completions` when the base URL already
/// has a path such as `/v1` or `/v1beta/openai`), `Authorization: Bearer` when a key is set, the
/// image as a `data:` URL, temperature 0 and the analysis schema as a strict `json_schema`
/// `response_format`. A server that answers 400 about `response_format` is asked once more without
/// it. Validation, retries and errors are those of `GeminiAnalyzer`.
public final class OpenAICompatibleAnalyzer: ReceiptAnalyzer {
    public let name = "openai"
    public let configuration: RemoteAnalyzerConfiguration
    public let prompts: PromptTemplate
    private let client: RemoteClient
    private let logger: Logger

    public static let acceptedImageTypes = ["image/jpeg", "image/png", "image/webp", "image/gif"]

    public init(configuration: RemoteAnalyzerConfiguration, prompts: PromptTemplate, logger: Logger) {
        self.configuration = configuration
        self.prompts = prompts
        self.logger = logger
        self.client = RemoteClient(
            provider: RemoteProvider(name: "openai", displayName: "the OpenAI-compatible server",
                                     keyHint: "OPENAI_API_KEY"),
            configuration: configuration, logger: logger)
    }

    public func endpoint() throws -> URL {
        let path = configuration.baseURL.path
        let suffix = (path.isEmpty || path == "/") ? "/v1/chat/completions" : "/chat/completions"
        return try RemoteAnalysis.url(configuration.baseURL, appending: suffix)
    }

    public func analyze(_ input: AnalysisInput, options: AnalysisOptions) async throws -> ReceiptAnalysis {
        let choice = try await RemoteImage.choose(for: input, configuration: configuration,
                                                  accepted: Self.acceptedImageTypes, provider: "the OpenAI-compatible server")
        try RemoteAnalysis.checkSomethingToSend(input, image: choice.image, send: configuration.send)
        let prompt = prompts.render(taxonomy: options.taxonomy,
                                    ocrText: RemoteAnalysis.ocrText(for: input, send: configuration.send),
                                    defaultCurrency: options.defaultCurrency)

        let userContent: JSONValue
        if let image = choice.image {
            let dataURL = "data:\(image.mimeType);base64,\(image.data.base64EncodedString())"
            userContent = .array([
                .object([("type", .string("text")), ("text", .string(prompt.user))]),
                .object([("type", .string("image_url")), ("image_url", .object([("url", .string(dataURL))]))]),
            ])
        } else {
            userContent = .string(prompt.user)       // plain text: understood by every server
        }
        var pairs: [(String, JSONValue)] = [
            ("model", .string(configuration.model)),
            ("temperature", .number("0")),
            ("messages", .array([
                .object([("role", .string("system")), ("content", .string(prompt.system))]),
                .object([("role", .string("user")), ("content", userContent)]),
            ])),
        ]
        let withoutSchema = JSONValue.object(pairs)
        if configuration.useResponseSchema {
            pairs.append(("response_format", .object([
                ("type", .string("json_schema")),
                ("json_schema", .object([
                    ("name", .string("receipt_analysis")),
                    ("strict", .bool(true)),
                    ("schema", AnalysisSchema.json(for: options.taxonomy)),
                ])),
            ])))
        }

        var request = URLRequest(url: try endpoint())
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let key = configuration.apiKey { request.setValue("Bearer \(key.secret)", forHTTPHeaderField: "Authorization") }
        request.httpBody = Data(JSONValue.object(pairs).serialized().utf8)

        let retryWithoutSchema: ((RemoteErrorAnswer) -> URLRequest?)? = configuration.useResponseSchema ? { answer in
            let text = (answer.message ?? "").lowercased()
            guard text.contains("response_format") || text.contains("json_schema") else { return nil }
            var plain = request
            plain.httpBody = Data(withoutSchema.serialized().utf8)
            return plain
        } : nil
        let exchange = try await client.send(request, source: input.source, onBadRequest: retryWithoutSchema)
        let answer = try Self.answerText(exchange.reply.body, source: input.source, redact: client.redact)

        let usage = (try? JSONValue.parse(exchange.reply.body))?["usage"]
        var extra: [(String, JSONValue)] = []
        if let model = answer.model { extra.append(("modelVersion", .string(model))) }
        extra.append(("finishReason", .optionalString(answer.finishReason)))
        if exchange.requestChanged { extra.append(("responseSchema", .string("not supported by the server; sent without it"))) }
        if let usage = RemoteAnalysis.usage([
            ("promptTokens", usage?["prompt_tokens"]), ("outputTokens", usage?["completion_tokens"]),
            ("thoughtsTokens", usage?["completion_tokens_details"]?["reasoning_tokens"]), ("totalTokens", usage?["total_tokens"]),
        ]) { extra.append(("usage", usage)) }

        let analysis = try RemoteAnalysis.finish(
            text: answer.text, analyzer: name, input: input, options: options, configuration: configuration,
            prompts: prompts, image: .init(configured: configuration.send, choice: choice),
            attempts: exchange.attempts, extra: extra, redact: client.redact)
        logger.debug("remote analysis completed", metadata: [
            "receipt.source": "\(input.source)", "remote.provider": "openai", "remote.attempts": "\(exchange.attempts)",
        ])
        return analysis
    }

    package struct Answer {
        var text: String
        var finishReason: String?
        var model: String?
    }

    package static func answerText(_ body: Data, source: String, redact: (String) -> String) throws -> Answer {
        let server = "the OpenAI-compatible server"
        guard let json = try? JSONValue.parse(body) else {
            throw ReceiptError(.invalidResponse, "\(server)'s reply is not JSON (\(body.count) bytes)", file: source)
        }
        guard let choice = json["choices"]?.arrayValue?.first else {
            throw ReceiptError(.invalidResponse, "\(server)'s reply has no choices", file: source)
        }
        let message = choice["message"]
        if let refusal = message?["refusal"]?.stringValue, !refusal.isEmpty {
            throw ReceiptError(.remoteFailed, "the model refused: \(redact(String(refusal.prefix(200))))", file: source,
                               retry: .never)
        }
        var text = message?["content"]?.stringValue ?? ""
        if let parts = message?["content"]?.arrayValue {       // some servers return content parts
            text = parts.compactMap { $0["text"]?.stringValue }.joined()
        }
        let finishReason = choice["finish_reason"]?.stringValue
        switch finishReason {
        case "length":
            if ModelAnswer.jsonObject(in: text) == nil {
                throw ReceiptError(.invalidResponse,
                    text.isEmpty ? "the model reached its output token limit before writing an answer (finish_reason length)"
                                 : "the model's answer was cut off at its output token limit (finish_reason length)",
                    file: source)
            }
        case "content_filter":
            throw ReceiptError(.remoteFailed, "the server's content filter withheld the answer (finish_reason content_filter)",
                                file: source, retry: .never)
        default:
            break
        }
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ReceiptError(.invalidResponse, "the model's answer is empty", file: source)
        }
        return Answer(text: text, finishReason: finishReason, model: json["model"]?.stringValue)
    }
}
