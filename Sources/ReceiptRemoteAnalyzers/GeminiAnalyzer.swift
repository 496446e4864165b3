import Foundation
import ReceiptAnalyzers
import ReceiptModel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

/// Reads receipts with a Gemini model (or any server speaking Gemini's `generateContent`).
///
/// One request per receipt: `POST {baseURL}/v1beta/models/{model}:generateContent` with the key in
/// `x-goog-api-key`, the system prompt as `systemInstruction`, the user prompt (taxonomy, OCR text)
/// and the image as `inlineData`, temperature 0 and the analysis JSON schema as
/// `responseJsonSchema`. The answer is checked and normalized (`AnalysisNormalizer`) before it is
/// returned; token counts, the model, the prompt files and the attempts go into `details`.
public final class GeminiAnalyzer: ReceiptAnalyzer {
    public let name = "gemini"
    public let configuration: RemoteAnalyzerConfiguration
    public let prompts: PromptTemplate
    private let client: RemoteClient
    private let logger: Logger

    /// MIME types Gemini accepts inline; others go through the image preparer.
    public static let acceptedImageTypes = ["image/jpeg", "image/png", "image/webp", "image/heic", "image/heif", "application/pdf"]

    public init(configuration: RemoteAnalyzerConfiguration = RemoteAnalyzerConfiguration(), prompts: PromptTemplate,
                logger: Logger) {
        self.configuration = configuration
        self.prompts = prompts
        self.logger = logger
        self.client = RemoteClient(
            provider: RemoteProvider(name: "gemini", displayName: "Gemini", keyHint: "GEMINI_API_KEY"),
            configuration: configuration, logger: logger)
    }

    /// `{baseURL}/v1beta/models/{model}:generateContent`.
    public func endpoint() throws -> URL {
        var model = configuration.model
        if model.hasPrefix("models/") { model.removeFirst("models/".count) }
        let escaped = model.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? model
        return try RemoteAnalysis.url(configuration.baseURL, appending: "/v1beta/models/\(escaped):generateContent")
    }

    public func analyze(_ input: AnalysisInput, options: AnalysisOptions) async throws -> ReceiptAnalysis {
        let choice = try await RemoteImage.choose(for: input, configuration: configuration,
                                                  accepted: Self.acceptedImageTypes, provider: "Gemini")
        try RemoteAnalysis.checkSomethingToSend(input, image: choice.image, send: configuration.send)
        let prompt = prompts.render(taxonomy: options.taxonomy,
                                    ocrText: RemoteAnalysis.ocrText(for: input, send: configuration.send),
                                    defaultCurrency: options.defaultCurrency)

        var parts: [JSONValue] = [.object([("text", .string(prompt.user))])]
        if let image = choice.image {
            parts.append(.object([("inlineData", .object([
                ("mimeType", .string(image.mimeType)),
                ("data", .string(image.data.base64EncodedString())),
            ]))]))
        }
        let body: JSONValue = .object([
            ("systemInstruction", .object([("parts", .array([.object([("text", .string(prompt.system))])]))])),
            ("contents", .array([.object([("role", .string("user")), ("parts", .array(parts))])])),
            ("generationConfig", .object([
                ("temperature", .number("0")),
                ("responseMimeType", .string("application/json")),
                ("responseJsonSchema", AnalysisSchema.json(for: options.taxonomy)),
            ])),
        ])

        var request = URLRequest(url: try endpoint())
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let key = configuration.apiKey { request.setValue(key.secret, forHTTPHeaderField: "x-goog-api-key") }
        request.httpBody = Data(body.serialized().utf8)

        let exchange = try await client.send(request, source: input.source)
        let answer = try Self.answerText(exchange.reply.body, source: input.source, redact: client.redact)

        let usage = exchange.reply.body.isEmpty ? nil : (try? JSONValue.parse(exchange.reply.body))?["usageMetadata"]
        var extra: [(String, JSONValue)] = []
        if let version = answer.modelVersion { extra.append(("modelVersion", .string(version))) }
        extra.append(("finishReason", .optionalString(answer.finishReason)))
        if let usage = RemoteAnalysis.usage([
            ("promptTokens", usage?["promptTokenCount"]), ("outputTokens", usage?["candidatesTokenCount"]),
            ("thoughtsTokens", usage?["thoughtsTokenCount"]), ("totalTokens", usage?["totalTokenCount"]),
        ]) { extra.append(("usage", usage)) }

        let analysis = try RemoteAnalysis.finish(
            text: answer.text, analyzer: name, input: input, options: options, configuration: configuration,
            prompts: prompts, image: .init(configured: configuration.send, choice: choice),
            attempts: exchange.attempts, extra: extra, redact: client.redact)
        logger.debug("remote analysis completed", metadata: [
            "receipt.source": "\(input.source)", "remote.provider": "gemini", "remote.attempts": "\(exchange.attempts)",
            "remote.totalTokens": "\(usage?["totalTokenCount"]?.serialized() ?? "-")",
        ])
        return analysis
    }

    package struct Answer {
        var text: String
        var finishReason: String?
        var modelVersion: String?
    }

    /// The text of the first candidate's non-thought parts, or an error saying why there is none.
    package static func answerText(_ body: Data, source: String, redact: (String) -> String) throws -> Answer {
        guard let json = try? JSONValue.parse(body) else {
            throw ReceiptError(.invalidResponse, "Gemini's reply is not JSON (\(body.count) bytes)", file: source)
        }
        if let reason = json["promptFeedback"]?["blockReason"]?.stringValue {
            let message = json["promptFeedback"]?["blockReasonMessage"]?.stringValue.map { ": \(redact($0))" } ?? ""
            // The same prompt and image are blocked again: not worth another request.
            throw ReceiptError(.remoteFailed, "Gemini blocked the request (promptFeedback.blockReason \(reason)\(message))",
                                file: source, retry: .never)
        }
        guard let candidate = json["candidates"]?.arrayValue?.first else {
            throw ReceiptError(.invalidResponse, "Gemini's reply has no candidates", file: source)
        }
        let finishReason = candidate["finishReason"]?.stringValue
        let parts = candidate["content"]?["parts"]?.arrayValue ?? []
        let text = parts.filter { $0["thought"]?.boolValue != true }.compactMap { $0["text"]?.stringValue }.joined()
        let answer = Answer(text: text, finishReason: finishReason, modelVersion: json["modelVersion"]?.stringValue)
        switch finishReason {
        case nil, "STOP", "FINISH_REASON_UNSPECIFIED":
            break
        case "MAX_TOKENS":
            if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                throw ReceiptError(.invalidResponse,
                    "Gemini reached its output token limit before writing an answer (finishReason MAX_TOKENS, no content)",
                    file: source)
            }
            if ModelAnswer.jsonObject(in: text) == nil {
                throw ReceiptError(.invalidResponse,
                    "Gemini's answer was cut off at its output token limit (finishReason MAX_TOKENS)", file: source)
            }
        case "SAFETY", "IMAGE_SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION":
            throw ReceiptError(.remoteFailed, "Gemini withheld its answer (finishReason \(finishReason!))", file: source,
                               retry: .never)
        default:
            if ModelAnswer.jsonObject(in: text) == nil {
                throw ReceiptError(.remoteFailed, "Gemini stopped without an answer (finishReason \(finishReason!))",
                                   file: source, retry: .never)
            }
        }
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ReceiptError(.invalidResponse, "Gemini's answer is empty", file: source)
        }
        return answer
    }
}
