import Foundation
import Testing
@testable import ReceiptKit
import ReceiptRemoteAnalyzers
@testable import TestHelpers
@testable import TestSupport

@Suite struct GeminiRequestTests {
    @Test func aPDFIsSentAsItIsForGeminiReadsPDFs() async throws {
        let server = try ScriptedHTTPServer([Remote.gemini(Remote.goodAnswer)])
        defer { server.stop() }
        let analyzer = GeminiAnalyzer(configuration: Remote.configuration(server), prompts: try Remote.prompts(),
                                      logger: LogCapture().logger)
        let pdf = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("email-fuel-card.pdf")))
        // A text PDF's "size" is its page at 300 dpi, larger than any picture limit: it is sent all the same.
        _ = try await analyzer.analyze(Remote.input(image: pdf, sourceSize: 5000), options: AnalysisOptions(defaultCurrency: "GBP"))
        let inline = try #require(server.requests.first?.json?["contents"]?.arrayValue?.first?["parts"]?.arrayValue?.last?["inlineData"])
        #expect(inline["mimeType"]?.stringValue == "application/pdf")
        #expect(Data(base64Encoded: inline["data"]?.stringValue ?? "") == pdf)
    }

    @Test func requestCarriesPromptImageSchemaAndKeyHeader() async throws {
        let server = try ScriptedHTTPServer([Remote.gemini(Remote.goodAnswer, thought: "Let me think {\"total\": 1}")])
        defer { server.stop() }
        let analyzer = GeminiAnalyzer(configuration: Remote.configuration(server), prompts: try Remote.prompts(),
                                      logger: LogCapture().logger)
        let result = try await analyzer.analyze(Remote.input(), options: AnalysisOptions(defaultCurrency: "GBP"))

        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(request.method == "POST")
        #expect(request.path == "/v1beta/models/gemini-2.5-flash:generateContent")
        #expect(request.headers["x-goog-api-key"] == Remote.key)
        #expect(request.headers["content-type"] == "application/json")

        let body = try #require(request.json)
        let system = try #require(body["systemInstruction"]?["parts"]?.arrayValue?.first?["text"]?.stringValue)
        #expect(system.contains("Fuel, Insurance, Maintenance, Vehicle Tax, Other"))
        #expect(system.contains("GBP (use it when the receipt shows no currency)"))
        #expect(!system.contains("{{"))
        let content = try #require(body["contents"]?.arrayValue?.first)
        #expect(content["role"]?.stringValue == "user")
        let parts = try #require(content["parts"]?.arrayValue)
        #expect(parts.count == 2)
        #expect(parts[0]["text"]?.stringValue?.contains("PUMP 4 UNLEADED 32.10 L") == true)
        let inline = try #require(parts[1]["inlineData"])
        #expect(inline["mimeType"]?.stringValue == "image/png")
        let base64 = try #require(inline["data"]?.stringValue)
        #expect(Data(base64Encoded: base64) == Remote.pngBytes)

        let generation = try #require(body["generationConfig"])
        #expect(generation["temperature"]?.decimalValue == 0)
        #expect(generation["responseMimeType"]?.stringValue == "application/json")
        let schema = try #require(generation["responseJsonSchema"])
        #expect(schema["properties"]?.objectValue?.map(\.0) == AnalysisField.all.map(\.key))
        #expect(schema["properties"]?["category"]?["enum"]?.arrayValue?.compactMap(\.stringValue) == Taxonomy.default.names)

        // The answer, read exactly; the thought part is not part of it.
        #expect(result.analyzer == "gemini")
        #expect(result.json["total"]?.serialized() == "45.67")
        #expect(result.json["tax"]?.serialized() == "7.61")
        #expect(result.date?.description == "2024-03-12")
        #expect(result.vendor == "Shell Forecourt")
        #expect(result.currency == "GBP")
        #expect(result.category == "Fuel")
        #expect(result.lineItems.first?.unitPrice == Decimal(string: "1.4227"))
        #expect(result.confidence.total == 0.99)
        #expect(result.confidence.needsReview == false)
        let details = result.json
        #expect(details["prompt"]?["system"]?.stringValue == "receipt-system.txt")
        #expect(details["prompt"]?["user"]?.stringValue == "receipt-user.txt")
        #expect(details["prompt"]?["fingerprint"]?.stringValue?.count == 16)
        #expect(details["usage"]?["promptTokens"]?.serialized() == "812")
        #expect(details["usage"]?["outputTokens"]?.serialized() == "96")
        #expect(details["usage"]?["thoughtsTokens"]?.serialized() == "40")
        #expect(details["usage"]?["totalTokens"]?.serialized() == "948")
        #expect(details["model"]?.stringValue == "gemini-2.5-flash")
        #expect(details["sent"]?.stringValue == "both")
        #expect(details["attempts"]?.serialized() == "1")
        #expect(details["finishReason"]?.stringValue == "STOP")
    }

    @Test func textOnlySendsNoImage() async throws {
        let server = try ScriptedHTTPServer([Remote.gemini(Remote.goodAnswer)])
        defer { server.stop() }
        let analyzer = GeminiAnalyzer(configuration: Remote.configuration(server, send: .text), prompts: try Remote.prompts(),
                                      logger: LogCapture().logger)
        let result = try await analyzer.analyze(Remote.input(), options: AnalysisOptions())
        let parts = try #require(server.requests.first?.json?["contents"]?.arrayValue?.first?["parts"]?.arrayValue)
        #expect(parts.count == 1)
        #expect(parts[0]["inlineData"] == nil)
        #expect(parts[0]["text"]?.stringValue?.contains("TOTAL £ 45.67") == true)
        #expect(result.json["sent"]?.stringValue == "text")
    }

    @Test func imageOnlySendsNoOCRText() async throws {
        let server = try ScriptedHTTPServer([Remote.gemini(Remote.goodAnswer)])
        defer { server.stop() }
        let analyzer = GeminiAnalyzer(configuration: Remote.configuration(server, send: .image), prompts: try Remote.prompts(),
                                      logger: LogCapture().logger)
        _ = try await analyzer.analyze(Remote.input(), options: AnalysisOptions())
        let parts = try #require(server.requests.first?.json?["contents"]?.arrayValue?.first?["parts"]?.arrayValue)
        #expect(parts.count == 2)
        #expect(parts[0]["text"]?.stringValue?.contains("UNLEADED") == false)
        #expect(parts[0]["text"]?.stringValue?.contains("read the receipt from the image") == true)
        #expect(parts[1]["inlineData"] != nil)
    }

    @Test func oversizedImageIsRefusedBeforeAnyRequest() async throws {
        let server = try ScriptedHTTPServer([Remote.gemini(Remote.goodAnswer)])
        defer { server.stop() }
        let config = Remote.configuration(server, send: .image, maxInlineImageBytes: 100)
        let analyzer = GeminiAnalyzer(configuration: config, prompts: try Remote.prompts(), logger: LogCapture().logger)
        let error = try #require(await ReceiptError.caught {
            _ = try await analyzer.analyze(Remote.input(), options: AnalysisOptions())
        })
        #expect(error.file == Remote.source)
        #expect(error.description.contains("above the 0.0 MB sent inline"))
        #expect(server.requests.isEmpty)
    }

    @Test func oversizedImageGoesThroughTheImagePreparer() async throws {
        let server = try ScriptedHTTPServer([Remote.gemini(Remote.goodAnswer)])
        defer { server.stop() }
        let small = Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 4])
        let config = Remote.configuration(server, maxInlineImageBytes: 100) { request in
            #expect(request.maxBytes == 100)
            #expect(request.mimeType == "image/png")
            return InlineImage(data: small, mimeType: "image/jpeg")
        }
        let analyzer = GeminiAnalyzer(configuration: config, prompts: try Remote.prompts(), logger: LogCapture().logger)
        _ = try await analyzer.analyze(Remote.input(), options: AnalysisOptions())
        let inline = try #require(server.requests.first?.json?["contents"]?.arrayValue?.first?["parts"]?.arrayValue?.last?["inlineData"])
        #expect(inline["mimeType"]?.stringValue == "image/jpeg")
        #expect(inline["data"]?.stringValue.flatMap { Data(base64Encoded: $0) } == small)
    }

    @Test func unsupportedImageTypeIsLeftOutWithAReasonWhenSendingBoth() async throws {
        let server = try ScriptedHTTPServer([Remote.gemini(Remote.goodAnswer)])
        defer { server.stop() }
        let tiff = Data([0x49, 0x49, 0x2A, 0x00] + [UInt8](repeating: 7, count: 64))
        let analyzer = GeminiAnalyzer(configuration: Remote.configuration(server), prompts: try Remote.prompts(),
                                      logger: LogCapture().logger)
        let result = try await analyzer.analyze(Remote.input(image: tiff), options: AnalysisOptions())
        let parts = try #require(server.requests.first?.json?["contents"]?.arrayValue?.first?["parts"]?.arrayValue)
        #expect(parts.count == 1)
        #expect(result.json["sent"]?.stringValue == "text")
        #expect(result.json["imageOmitted"]?.stringValue?.contains("image/tiff") == true)
    }

    @Test func modelPrefixAndBaseURLPathAreKept() async throws {
        let server = try ScriptedHTTPServer([Remote.gemini(Remote.goodAnswer)])
        defer { server.stop() }
        var config = Remote.configuration(server, model: "models/gemini-2.5-pro")
        config.baseURL = server.baseURL.appendingPathComponent("proxy/")
        let analyzer = GeminiAnalyzer(configuration: config, prompts: try Remote.prompts(), logger: LogCapture().logger)
        _ = try await analyzer.analyze(Remote.input(), options: AnalysisOptions())
        #expect(server.requests.first?.path == "/proxy/v1beta/models/gemini-2.5-pro:generateContent")
    }
}
