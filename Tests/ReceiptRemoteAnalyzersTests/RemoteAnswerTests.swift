import Foundation
import Testing
@testable import ReceiptKit
import ReceiptRemoteAnalyzers
@testable import TestSupport

/// What a model writes back, from clean JSON to prose, cut-off answers and blocks.
@Suite struct RemoteAnswerTests {
    private func run(_ reply: ScriptedHTTPServer.Reply, options: AnalysisOptions = AnalysisOptions())
        async throws -> (Result<ReceiptAnalysis, ReceiptError>, requests: Int) {
        let server = try ScriptedHTTPServer([reply])
        defer { server.stop() }
        let analyzer = GeminiAnalyzer(configuration: Remote.configuration(server), prompts: try Remote.prompts(),
                                      logger: LogCapture().logger)
        do {
            return (.success(try await analyzer.analyze(Remote.input(), options: options)), server.requests.count)
        } catch let error as ReceiptError {
            return (.failure(error), server.requests.count)
        }
    }

    @Test(arguments: [
        "```json\n\(Remote.goodAnswer)\n```",
        "Here is the receipt data you asked for:\n\(Remote.goodAnswer)\nLet me know if you need anything else.",
        "<think>the total is {maybe} 45.67</think>\n```\n\(Remote.goodAnswer)\n```",
    ])
    func jsonInFencesOrProseIsFound(answer: String) async throws {
        let (result, requests) = try await run(Remote.gemini(answer))
        let analysis = try result.get()
        #expect(requests == 1)
        #expect(analysis.json["total"]?.serialized() == "45.67")
        #expect(analysis.vendor == "Shell Forecourt")
    }

    @Test(arguments: ["I could not read this receipt, sorry.", "{\"vendor\": \"Shell\", \"total\": 45.6", "[1, 2, 3]"])
    func garbageIsAnInvalidResponseNamingTheReceipt(answer: String) async throws {
        let (result, requests) = try await run(Remote.gemini(answer))
        guard case .failure(let error) = result else { Issue.record("garbage accepted"); return }
        #expect(requests == 1)
        #expect(error.code == .invalidResponse)
        #expect(error.description.hasPrefix("\(Remote.source): the model's answer is not a JSON object"))
    }

    @Test func maxTokensWithNoPartsSaysSo() async throws {
        let (result, _) = try await run(Remote.gemini(nil, finishReason: "MAX_TOKENS"))
        guard case .failure(let error) = result else { Issue.record("accepted"); return }
        #expect(error.description == "\(Remote.source): Gemini reached its output token limit before writing an answer (finishReason MAX_TOKENS, no content)")
    }

    @Test func maxTokensWithACutOffAnswerSaysSo() async throws {
        let (result, _) = try await run(Remote.gemini(String(Remote.goodAnswer.prefix(60)), finishReason: "MAX_TOKENS"))
        guard case .failure(let error) = result else { Issue.record("accepted"); return }
        #expect(error.description.contains("cut off at its output token limit (finishReason MAX_TOKENS)"))
    }

    @Test func safetyFinishReasonIsAFailure() async throws {
        let (result, requests) = try await run(Remote.gemini(nil, finishReason: "SAFETY"))
        guard case .failure(let error) = result else { Issue.record("accepted"); return }
        #expect(requests == 1)
        #expect(error.code == .remoteFailed)
        #expect(error.description == "\(Remote.source): Gemini withheld its answer (finishReason SAFETY)")
    }

    @Test func blockedPromptIsAFailure() async throws {
        let body = #"{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT","safetyRatings":[]},"usageMetadata":{"promptTokenCount":300,"totalTokenCount":300}}"#
        let (result, _) = try await run(.json(200, body))
        guard case .failure(let error) = result else { Issue.record("accepted"); return }
        #expect(error.description == "\(Remote.source): Gemini blocked the request (promptFeedback.blockReason PROHIBITED_CONTENT)")
    }

    @Test func answersAreCheckedAndNormalized() async throws {
        let answer = """
            {"vendor":"  TESCO   Extra ","date":"12/03/2024","total":"£1,234.50","tax":2000.10,"currency":"pounds",
             "category":"groceries","lineItems":[{"description":"Milk","quantity":2,"unitPrice":"0.95","amount":1.90},{"description":""}],
             "confidence":{"vendor":0.9,"date":0.8,"total":0.9,"tax":0.7,"currency":0.5,"category":0.4}}
            """
        let (result, _) = try await run(Remote.gemini(answer), options: AnalysisOptions(defaultCurrency: "EUR"))
        let analysis = try result.get()
        #expect(analysis.vendor == "TESCO Extra")
        #expect(analysis.date == nil)                           // not ISO: dropped, not guessed
        #expect(analysis.json["total"]?.serialized() == "1234.50")
        #expect(analysis.tax == nil)                            // above the total
        #expect(analysis.currency == "EUR")                     // "pounds" is no code; the configured default
        #expect(analysis.category == "Other")                   // not in the taxonomy: its fallback
        #expect(analysis.lineItems.count == 1)
        #expect(analysis.lineItems[0].json.serialized() == #"{"description":"Milk","quantity":2,"unitPrice":0.95,"amount":1.90}"#)
        #expect(analysis.confidence.needsReview)
        #expect(analysis.confidence.total <= 0.3)
        let warnings = analysis.json["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(warnings.count == 4)
        #expect(warnings.contains { $0.hasPrefix("tax 2000.1 is above the total 1234.5") })
        #expect(warnings.contains { $0.hasPrefix("currency \"pounds\" is not an ISO 4217 code") })
    }

    @Test func codesAndNamesAreMadeCanonical() async throws {
        let answer = #"{"vendor":"DVLA","date":"2024-02-29","total":195,"tax":null,"currency":"gbp","category":"vehicle tax","lineItems":[],"confidence":{}}"#
        let (result, _) = try await run(Remote.gemini(answer))
        let analysis = try result.get()
        #expect(analysis.currency == "GBP")
        #expect(analysis.category == "Vehicle Tax")
        #expect(analysis.date?.description == "2024-02-29")
        #expect(analysis.json["total"]?.serialized() == "195.00")
        #expect(analysis.json["warnings"] == nil)
    }
}

@Suite struct ModelAnswerTests {
    @Test func amountsKeepTheirExactDigits() throws {
        let json = try #require(ModelAnswer.jsonObject(in: #"{"total": 23.449999999999999, "tax": 0.1}"#))
        let outcome = AnalysisNormalizer.normalize(json, analyzer: "gemini", options: AnalysisOptions())
        #expect(outcome.analysis.total == Decimal(string: "23.449999999999999"))
        #expect(outcome.analysis.json["tax"]?.serialized() == "0.10")
    }

    @Test func currencySymbolsAndImpossibleDates() {
        #expect(AnalysisNormalizer.currencyCode("€") == "EUR")
        #expect(AnalysisNormalizer.currencyCode("RM") == "MYR")
        #expect(AnalysisNormalizer.currencyCode("usd") == "USD")
        #expect(AnalysisNormalizer.currencyCode("XYZ") == nil)
        #expect(AnalysisNormalizer.currencyCode("$") == nil)          // ambiguous: never guessed
        #expect(AnalysisNormalizer.date(.string("2023-02-29")) == nil)
        #expect(AnalysisNormalizer.date(.string("2024-03-05T00:00:00Z"))?.description == "2024-03-05")
    }
}
