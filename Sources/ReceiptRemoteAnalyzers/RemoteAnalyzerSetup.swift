import Foundation
import ReceiptAnalyzers
import ReceiptModel
import Logging

/// The analyzer a run uses.
public enum AnalyzerKind: String, Sendable, CaseIterable {
    /// The local heuristic analyzer (offline).
    case heuristic
    /// Gemini's `generateContent`; a failure fails the receipt.
    case gemini
    /// An OpenAI-compatible chat completions server; a failure fails the receipt.
    case openai
    /// The configured remote analyzer, falling back to the heuristic one on any failure.
    case auto
}

/// Remote analyzer settings as the user gave them (nil: not given), turned into analyzers with the
/// precedence flag > environment > default. The `receipts` executable fills it from its flags and
/// passes the process environment; nothing here reads the environment by itself.
///
/// Environment: `GEMINI_API_KEY`, `OPENAI_API_KEY`, `RECEIPTS_GEMINI_BASE_URL`,
/// `RECEIPTS_OPENAI_BASE_URL`, `RECEIPTS_MODEL`, `RECEIPTS_PROMPTS`. The API key is never a
/// flag value (it would show in `ps`): it comes from the environment or from `apiKeyFile`.
public struct RemoteAnalyzerSetup: Sendable {
    public var analyzer: AnalyzerKind?
    public var geminiBaseURL: String?
    public var openAIBaseURL: String?
    public var model: String?
    /// A file holding the key (first line; whitespace trimmed). Wins over the environment.
    public var apiKeyFile: String?
    public var send: RemoteInput?
    /// Seconds per HTTP attempt.
    public var timeout: Double?
    public var retries: Int?
    public var maxRequests: Int?
    public var promptsDirectory: String?

    public init(analyzer: AnalyzerKind? = nil, geminiBaseURL: String? = nil, openAIBaseURL: String? = nil,
                model: String? = nil, apiKeyFile: String? = nil, send: RemoteInput? = nil, timeout: Double? = nil,
                retries: Int? = nil, maxRequests: Int? = nil, promptsDirectory: String? = nil) {
        self.analyzer = analyzer
        self.geminiBaseURL = geminiBaseURL
        self.openAIBaseURL = openAIBaseURL
        self.model = model
        self.apiKeyFile = apiKeyFile
        self.send = send
        self.timeout = timeout
        self.retries = retries
        self.maxRequests = maxRequests
        self.promptsDirectory = promptsDirectory
    }

    public enum Variable {
        public static let geminiKey = "GEMINI_API_KEY"
        public static let openAIKey = "OPENAI_API_KEY"
        public static let geminiBaseURL = "RECEIPTS_GEMINI_BASE_URL"
        public static let openAIBaseURL = "RECEIPTS_OPENAI_BASE_URL"
        public static let model = "RECEIPTS_MODEL"
        public static let prompts = "RECEIPTS_PROMPTS"
    }

    public static let defaultTimeout = 60.0
    public static let defaultRetries = 3
    public static let defaultMaxRequests = 4

    private func value(_ flag: String?, _ variable: String, _ environment: [String: String]) -> String? {
        if let flag, !flag.isEmpty { return flag }
        if let env = environment[variable], !env.trimmingCharacters(in: .whitespaces).isEmpty { return env }
        return nil
    }

    private func geminiConfigured(_ environment: [String: String]) -> Bool {
        value(nil, Variable.geminiKey, environment) != nil || value(geminiBaseURL, Variable.geminiBaseURL, environment) != nil
    }

    private func openAIConfigured(_ environment: [String: String]) -> Bool {
        value(openAIBaseURL, Variable.openAIBaseURL, environment) != nil
    }

    /// The flag, else `auto` when a Gemini key, a key file or an endpoint is configured, else `heuristic`.
    public func resolvedKind(environment: [String: String]) -> AnalyzerKind {
        if let analyzer { return analyzer }
        let configured = geminiConfigured(environment) || openAIConfigured(environment) || apiKeyFile != nil
        return configured ? .auto : .heuristic
    }

    /// The remote analyzer `auto` uses: OpenAI-compatible when only its endpoint is configured,
    /// else Gemini.
    public func remoteKind(environment: [String: String]) -> AnalyzerKind {
        openAIConfigured(environment) && !geminiConfigured(environment) ? .openai : .gemini
    }

    /// The configuration of the Gemini (`.gemini`) or OpenAI-compatible (`.openai`) analyzer.
    public func configuration(for kind: AnalyzerKind, environment: [String: String],
                              imagePreparer: ImagePreparer? = nil) throws -> RemoteAnalyzerConfiguration {
        precondition(kind == .gemini || kind == .openai, "configuration(for:) takes .gemini or .openai")
        let isGemini = kind == .gemini
        let keyVariable = isGemini ? Variable.geminiKey : Variable.openAIKey
        let key: APIKey?
        if let apiKeyFile {
            let text: String
            do { text = try String(contentsOfFile: apiKeyFile, encoding: .utf8) } catch {
                throw ReceiptError(.configuration, "cannot read the API key file (\(error.localizedDescription))", file: apiKeyFile)
            }
            guard let fromFile = APIKey(text.split(whereSeparator: \.isNewline).first.map(String.init) ?? "") else {
                throw ReceiptError(.configuration, "the API key file is empty", file: apiKeyFile)
            }
            key = fromFile
        } else {
            key = environment[keyVariable].flatMap(APIKey.init)
        }

        let urlFlag = isGemini ? geminiBaseURL : openAIBaseURL
        let urlVariable = isGemini ? Variable.geminiBaseURL : Variable.openAIBaseURL
        let baseURL: URL
        if let text = value(urlFlag, urlVariable, environment) {
            guard let url = URL(string: text.trimmingCharacters(in: .whitespaces)), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", url.host != nil else {
                throw ReceiptError(.configuration, "the \(isGemini ? "Gemini" : "OpenAI-compatible") base URL '\(text)' is not an http(s) URL",
                                   hint: isGemini ? .geminiBaseURL : .openAIBaseURL)
            }
            baseURL = url
        } else if isGemini {
            baseURL = RemoteAnalyzerConfiguration.geminiBaseURL
        } else {
            throw ReceiptError(.configuration,
                "the OpenAI-compatible analyzer needs an endpoint (e.g. http://127.0.0.1:11434 for Ollama, "
                + "http://127.0.0.1:8080 for llama.cpp's server): set \(urlVariable)", hint: .openAIEndpoint)
        }
        if isGemini, key == nil, baseURL == RemoteAnalyzerConfiguration.geminiBaseURL {
            throw ReceiptError(.configuration,
                "the Gemini analyzer needs an API key: set \(Variable.geminiKey)", hint: .geminiKey)
        }

        let model: String
        if let given = value(self.model, Variable.model, environment) {
            model = given
        } else if isGemini {
            model = RemoteAnalyzerConfiguration.defaultModel
        } else {
            throw ReceiptError(.configuration,
                "the OpenAI-compatible analyzer needs a model name (e.g. llama3.2-vision): set \(Variable.model)", hint: .model)
        }

        let timeout = self.timeout ?? Self.defaultTimeout
        guard timeout > 0, timeout.isFinite else {
            throw ReceiptError(.configuration, "the timeout must be a positive number of seconds", hint: .timeout)
        }
        let retries = self.retries ?? Self.defaultRetries
        guard retries >= 0 else { throw ReceiptError(.configuration, "retries must be 0 or more", hint: .retries) }
        let maxRequests = self.maxRequests ?? Self.defaultMaxRequests
        guard maxRequests >= 1 else {
            throw ReceiptError(.configuration, "the requests in flight at once must be 1 or more", hint: .maxRequests)
        }

        return RemoteAnalyzerConfiguration(
            apiKey: key, baseURL: baseURL, model: model, timeout: .milliseconds(Int64(timeout * 1000)),
            maxRetries: retries, maxConcurrentRequests: maxRequests, send: send ?? .both, imagePreparer: imagePreparer)
    }

    /// The prompts folder: the flag, else `RECEIPTS_PROMPTS`, else `PromptTemplate.defaultDirectory`.
    public func prompts(environment: [String: String], executable: URL?, currentDirectory: URL) throws -> PromptTemplate {
        if let dir = value(promptsDirectory, Variable.prompts, environment) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ReceiptError(.configuration, "prompts folder not found", file: dir, hint: .promptsFolderNotFound)
            }
            return try PromptTemplate(directory: URL(fileURLWithPath: dir, isDirectory: true))
        }
        guard let dir = PromptTemplate.defaultDirectory(executable: executable, currentDirectory: currentDirectory) else {
            throw ReceiptError(.configuration,
                "no prompts folder found beside the executable, in its parent folders or in the current folder",
                hint: .noPromptsFolder)
        }
        return try PromptTemplate(directory: dir)
    }

    /// The analyzer to run: `heuristic` itself, a remote analyzer, or for `auto` the remote analyzer
    /// with `heuristic` as its fallback (whose `fallbackReason` gets `advice`). Throws
    /// `ReceiptError` (code `configuration`) for a missing key, endpoint, model or prompt file; the
    /// message never contains the key.
    public func makeAnalyzer(heuristic: any ReceiptAnalyzer, environment: [String: String], executable: URL?,
                             currentDirectory: URL, imagePreparer: ImagePreparer? = nil, advice: ErrorAdvice = .none,
                             logger: Logger) throws -> any ReceiptAnalyzer {
        let kind = resolvedKind(environment: environment)
        func remote(_ kind: AnalyzerKind) throws -> any ReceiptAnalyzer {
            let configuration = try configuration(for: kind, environment: environment, imagePreparer: imagePreparer)
            let prompts = try prompts(environment: environment, executable: executable, currentDirectory: currentDirectory)
            if kind == .gemini { return GeminiAnalyzer(configuration: configuration, prompts: prompts, logger: logger) }
            return OpenAICompatibleAnalyzer(configuration: configuration, prompts: prompts, logger: logger)
        }
        switch kind {
        case .heuristic:
            return heuristic
        case .gemini, .openai:
            return try remote(kind)
        case .auto:
            return FallbackAnalyzer(primary: try remote(remoteKind(environment: environment)), fallback: heuristic, advice: advice,
                                    logger: logger)
        }
    }
}
