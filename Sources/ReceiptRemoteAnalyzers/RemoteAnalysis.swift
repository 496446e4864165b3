import Foundation
import ReceiptAnalyzers
import ReceiptModel

/// What the two remote analyzers share once the HTTP exchange is done.
package enum RemoteAnalysis {
    /// The OCR text to put into the prompt (nil when text is not sent).
    package static func ocrText(for input: AnalysisInput, send: RemoteInput) -> String? {
        guard send.sendsText else { return nil }
        let text = input.ocr.text.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "(OCR found no text)" : text
    }

    /// Refuses a request that would carry nothing to read.
    package static func checkSomethingToSend(_ input: AnalysisInput, image: InlineImage?, send: RemoteInput) throws {
        let hasText = send.sendsText && !input.ocr.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        if image == nil && !hasText {
            throw ReceiptError(.noText, send == .text ? "OCR found no text to send" : "OCR found no text and no image could be sent",
                               file: input.source, hint: send == .text ? .sendImage : nil)
        }
    }

    /// Turns the model's text into the analysis, with the facts every remote result records.
    package static func finish(text: String, analyzer: String, input: AnalysisInput, options: AnalysisOptions,
                       configuration: RemoteAnalyzerConfiguration, prompts: PromptTemplate, image: ImageFacts,
                       attempts: Int, extra: [(String, JSONValue)], redact: (String) -> String) throws -> ReceiptAnalysis {
        guard let json = ModelAnswer.jsonObject(in: text) else {
            let line = text.oneLine
            let preview = line.count > 80 ? line.prefix(80) + "…" : Substring(line)
            throw ReceiptError(.invalidResponse, "the model's answer is not a JSON object: \"\(redact(String(preview)))\"",
                                file: input.source)
        }
        let outcome = AnalysisNormalizer.normalize(json, analyzer: analyzer, options: options)
        var analysis = outcome.analysis
        var details: [(String, JSONValue)] = [
            ("model", .string(configuration.model)),
            ("prompt", prompts.detailsJSON),
            ("sent", .string(image.sent.rawValue)),
        ]
        if let reason = image.omittedReason { details.append(("imageOmitted", .string(reason))) }
        details.append(("attempts", .int(attempts)))
        details += extra
        if !outcome.warnings.isEmpty { details.append(("warnings", .array(outcome.warnings.map { .string(redact($0)) }))) }
        analysis.details = details
        return analysis
    }

    package struct ImageFacts {
        /// What actually went out: `both`, `text` or `image`.
        var sent: RemoteInput
        var omittedReason: String?

        init(configured: RemoteInput, choice: RemoteImage.Choice) {
            omittedReason = choice.omittedReason
            switch (configured, choice.image) {
            case (.text, _), (.both, nil): sent = .text
            case (.image, _): sent = .image
            case (.both, _): sent = .both
            }
        }
    }

    /// `{baseURL}` + `path`, keeping any path the base URL already has.
    package static func url(_ base: URL, appending path: String) throws -> URL {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text + path), url.scheme == "http" || url.scheme == "https" else {
            throw ReceiptError(.configuration, "invalid endpoint URL \(text + path): the base URL must start with http:// or https://")
        }
        return url
    }

    package static func usage(_ pairs: [(String, JSONValue?)]) -> JSONValue? {
        let present = pairs.compactMap { key, value in value.flatMap { $0.isNull ? nil : (key, $0) } }
        return present.isEmpty ? nil : .object(present)
    }
}
