import Foundation
import Testing
@testable import ReceiptKit
import ReceiptRemoteAnalyzers
@testable import TestSupport

@Suite struct AnalysisSchemaTests {
    @Test func schemaFieldsAreTheAnalysisContractsFields() throws {
        // `review` is decided from the confidences (ReviewDecision), not asked of a remote analyzer;
        // nor is the shop's identity (tax id, phone, address…), which the local analyzer reads for
        // the memory of shops and a remote analyzer's record leaves null.
        let local = Set(["analyzer", "review", "vendorTaxIdScheme"] + ShopIdentity.fieldNames)
        let contractKeys = try #require(ReceiptAnalysis(analyzer: "x").json.objectValue).map(\.0).filter { !local.contains($0) }
        #expect(AnalysisField.all.map(\.key) == contractKeys)
        let itemKeys = try #require(LineItem(description: "x").json.objectValue).map(\.0)
        #expect(AnalysisField.lineItemFields.map(\.key) == itemKeys)
        let confidenceKeys = try #require(FieldConfidence().json.objectValue).map(\.0).filter { $0 != "needsReview" }
        #expect(AnalysisField.scalars.map(\.key) == confidenceKeys)
    }

    @Test func schemaIsStrictAndFollowsTheTaxonomy() throws {
        let taxonomy = Taxonomy(categories: [.init(name: "Travel"), .init(name: "Meals"), .init(name: "Misc")])
        let schema = AnalysisSchema.json(for: taxonomy)
        #expect(schema["additionalProperties"]?.boolValue == false)
        #expect(schema["required"]?.arrayValue?.compactMap(\.stringValue) == AnalysisField.all.map(\.key))
        #expect(schema["properties"]?["category"]?["enum"]?.arrayValue?.compactMap(\.stringValue) == ["Travel", "Meals", "Misc"])
        #expect(schema["properties"]?["total"]?["type"] == .array([.string("number"), .string("null")]))
        let item = try #require(schema["properties"]?["lineItems"]?["items"])
        #expect(item["required"]?.arrayValue?.count == 4)
        #expect(item["additionalProperties"]?.boolValue == false)
    }
}

@Suite struct PromptTemplateTests {
    @Test func projectPromptsLoadAndRender() throws {
        let prompts = try Remote.prompts()
        let rendered = prompts.render(taxonomy: .default, ocrText: "TOTAL {{taxonomy}} 9.99", defaultCurrency: nil)
        #expect(rendered.system.contains("- Fuel: fuel, unleaded"))
        #expect(rendered.system.contains("- Other (use when no other category fits)"))
        #expect(rendered.system.contains("none (use null when the receipt shows no currency)"))
        #expect(rendered.user.contains("TOTAL {{taxonomy}} 9.99"))       // OCR text is inserted as it is
        #expect(!rendered.system.contains("{{"))
    }

    @Test func missingFileIsAClearError() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("prompts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "You read receipts. {{taxonomy}}".write(to: dir.appendingPathComponent("receipt-system.txt"), atomically: true, encoding: .utf8)
        #expect(throws: ReceiptError.self) { try PromptTemplate(directory: dir) }
        do { _ = try PromptTemplate(directory: dir) } catch let error as ReceiptError {
            #expect(error.file == dir.appendingPathComponent("receipt-user.txt").path)
            #expect(error.message.contains("prompt file missing"))
            #expect(error.hint == .promptsFolder, "the program in front says how to name the folder (the CLI: --prompts DIR)")
            #expect(!error.message.contains("--"))
        }
    }

    @Test func unknownPlaceholderIsRejected() {
        #expect {
            try PromptTemplate(system: "Categories: {{categorys}}", user: "{{ocr_text}}")
        } throws: { error in
            (error as? ReceiptError)?.description.contains("unknown placeholder {{categorys}}") == true
        }
    }

    @Test func editedPromptChangesTheFingerprint() throws {
        let a = try PromptTemplate(system: "A {{taxonomy}}", user: "{{ocr_text}}")
        let b = try PromptTemplate(system: "B {{taxonomy}}", user: "{{ocr_text}}")
        #expect(a.fingerprint != b.fingerprint)
        #expect(a.fingerprint == (try PromptTemplate(system: "A {{taxonomy}}", user: "{{ocr_text}}")).fingerprint)
    }

    @Test func defaultDirectoryIsFoundAboveTheExecutable() {
        let exe = Remote.promptsDirectory.deletingLastPathComponent().appendingPathComponent(".build/debug/receipts")
        let found = PromptTemplate.defaultDirectory(executable: exe, currentDirectory: URL(fileURLWithPath: "/"))
        #expect(found?.standardizedFileURL.path == Remote.promptsDirectory.standardizedFileURL.path)
    }
}

@Suite struct RemoteAnalyzerSetupTests {
    private let heuristic = StubAnalyzer()
    private let cwd = URL(fileURLWithPath: "/")

    private func make(_ setup: RemoteAnalyzerSetup, _ environment: [String: String]) throws -> any ReceiptAnalyzer {
        var setup = setup
        setup.promptsDirectory = setup.promptsDirectory ?? Remote.promptsDirectory.path
        return try setup.makeAnalyzer(heuristic: heuristic, environment: environment, executable: nil, currentDirectory: cwd,
                                      logger: LogCapture().logger)
    }

    @Test func heuristicUnlessSomethingRemoteIsConfigured() throws {
        #expect(try make(RemoteAnalyzerSetup(), [:]).name == "heuristic")
        #expect(try make(RemoteAnalyzerSetup(), ["OPENAI_API_KEY": "sk-other-tool"]).name == "heuristic")
        let auto = try #require(try make(RemoteAnalyzerSetup(), ["GEMINI_API_KEY": Remote.key]) as? FallbackAnalyzer)
        #expect(auto.primary.name == "gemini")
        let local = try #require(try make(RemoteAnalyzerSetup(), ["RECEIPTS_OPENAI_BASE_URL": "http://127.0.0.1:11434",
                                                                  "RECEIPTS_MODEL": "llava"]) as? FallbackAnalyzer)
        #expect(local.primary.name == "openai")
        #expect(try make(RemoteAnalyzerSetup(analyzer: .heuristic), ["GEMINI_API_KEY": Remote.key]).name == "heuristic")
    }

    @Test func flagBeatsEnvironmentBeatsDefault() throws {
        let env = ["GEMINI_API_KEY": Remote.key, "RECEIPTS_GEMINI_BASE_URL": "http://127.0.0.1:9/env", "RECEIPTS_MODEL": "env-model"]
        let fromEnv = try RemoteAnalyzerSetup().configuration(for: .gemini, environment: env)
        #expect(fromEnv.baseURL.absoluteString == "http://127.0.0.1:9/env")
        #expect(fromEnv.model == "env-model")
        #expect(fromEnv.apiKey?.secret == Remote.key)
        let fromFlags = try RemoteAnalyzerSetup(geminiBaseURL: "http://127.0.0.1:9/flag", model: "flag-model", send: .text,
                                                timeout: 5, retries: 0, maxRequests: 1).configuration(for: .gemini, environment: env)
        #expect(fromFlags.baseURL.absoluteString == "http://127.0.0.1:9/flag")
        #expect(fromFlags.model == "flag-model")
        #expect(fromFlags.send == .text && fromFlags.maxRetries == 0 && fromFlags.maxConcurrentRequests == 1)
        #expect(fromFlags.timeout == .seconds(5))
        let defaults = try RemoteAnalyzerSetup().configuration(for: .gemini, environment: ["GEMINI_API_KEY": Remote.key])
        #expect(defaults.baseURL.absoluteString == "https://generativelanguage.googleapis.com")
        #expect(defaults.model == "gemini-2.5-flash")
        #expect(defaults.send == .both)
    }

    @Test func keyFileWinsOverTheEnvironment() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString)")
        try "  file-key-123\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let config = try RemoteAnalyzerSetup(apiKeyFile: file.path).configuration(for: .gemini, environment: ["GEMINI_API_KEY": "env"])
        #expect(config.apiKey?.secret == "file-key-123")
        #expect(try make(RemoteAnalyzerSetup(apiKeyFile: file.path), [:]).name == "auto")
    }

    @Test func missingPiecesAreClearErrorsWithoutTheKey() throws {
        func message(_ setup: RemoteAnalyzerSetup, _ env: [String: String]) -> String {
            do { _ = try make(setup, env); return "" } catch { return "\(error)" }
        }
        #expect(message(RemoteAnalyzerSetup(analyzer: .gemini), [:]).hasSuffix("needs an API key: set GEMINI_API_KEY"))
        #expect(message(RemoteAnalyzerSetup(analyzer: .openai), [:]).contains("needs an endpoint"))
        #expect(message(RemoteAnalyzerSetup(analyzer: .openai), [:]).hasSuffix("set RECEIPTS_OPENAI_BASE_URL"))
        #expect(message(RemoteAnalyzerSetup(analyzer: .openai, openAIBaseURL: "http://127.0.0.1:1"), [:]).contains("needs a model name"))
        #expect(message(RemoteAnalyzerSetup(analyzer: .gemini, apiKeyFile: "/nonexistent/key"), [:]).hasPrefix("/nonexistent/key: cannot read the API key file"))
        #expect(message(RemoteAnalyzerSetup(geminiBaseURL: "ftp://x"), ["GEMINI_API_KEY": Remote.key]).contains("is not an http(s) URL"))
        let badPrompts = message(RemoteAnalyzerSetup(promptsDirectory: "/nonexistent/prompts"), ["GEMINI_API_KEY": Remote.key])
        #expect(badPrompts.hasPrefix("/nonexistent/prompts: prompts folder not found"))
        #expect(!badPrompts.contains(Remote.key))
    }
}
