import ArgumentParser
import Foundation
import Logging
import ReceiptKit
import ReceiptRemoteAnalyzers

extension AnalyzerKind: ExpressibleByArgument {}
extension RemoteInput: ExpressibleByArgument {}

/// Flags choosing the analyzer and configuring the remote ones; used with `@OptionGroup`.
/// Precedence everywhere: flag > environment variable > default.
struct RemoteOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Analyzer: heuristic (local, offline), gemini, openai (an OpenAI-compatible server), or auto (the remote one, "
        + "falling back to heuristic on any failure). Default: heuristic, or auto when GEMINI_API_KEY, --api-key-file "
        + "or a base URL is configured.", valueName: "heuristic|gemini|openai|auto"))
    var analyzer: AnalyzerKind?

    @Option(name: .customLong("gemini-base-url"), help: ArgumentHelp(
        "Gemini endpoint (requests go to URL/v1beta/models/MODEL:generateContent). "
        + "Flag > $RECEIPTS_GEMINI_BASE_URL > https://generativelanguage.googleapis.com.", valueName: "URL"))
    var geminiBaseURL: String?

    @Option(name: .customLong("openai-base-url"), help: ArgumentHelp(
        "OpenAI-compatible endpoint: Ollama (http://127.0.0.1:11434), vLLM, llama.cpp's server, or Gemini's "
        + "https://generativelanguage.googleapis.com/v1beta/openai. Requests go to URL/v1/chat/completions, or "
        + "URL/chat/completions when URL has a path. Flag > $RECEIPTS_OPENAI_BASE_URL; no default.", valueName: "URL"))
    var openAIBaseURL: String?

    @Option(help: ArgumentHelp(
        "Model name. Flag > $RECEIPTS_MODEL > gemini-2.5-flash (Gemini); required for openai.", valueName: "NAME"))
    var model: String?

    @Option(name: .customLong("api-key-file"), help: ArgumentHelp(
        "File holding the API key (first line). Otherwise the key comes from $GEMINI_API_KEY (gemini) or "
        + "$OPENAI_API_KEY (openai, optional). There is no flag for the key itself, to keep it out of `ps`; "
        + "the key is never printed, logged or stored.", valueName: "FILE"))
    var apiKeyFile: String?

    @Option(help: ArgumentHelp(
        "What a remote analyzer sends: image, text (the OCR text; no image leaves the machine) or both. Default: both.",
        valueName: "image|text|both"))
    var send: RemoteInput?

    @Option(help: ArgumentHelp("Seconds to wait for one remote request. Default: 60.", valueName: "SECONDS"))
    var timeout: Double?

    @Option(help: ArgumentHelp(
        "Retries of a remote request after rate limits (waiting as long as the server asks), server errors, timeouts "
        + "and dropped connections (exponential backoff). Bad keys and unknown models are not retried. Default: 3.",
        valueName: "N"))
    var retries: Int?

    @Option(name: .customLong("max-requests"), help: ArgumentHelp(
        "Remote requests in flight at once. Default: 4.", valueName: "N"))
    var maxRequests: Int?

    @Option(help: ArgumentHelp(
        "Folder with receipt-system.txt and receipt-user.txt. Flag > $RECEIPTS_PROMPTS > prompts/ of the project "
        + "the executable was built in (or ../share/receipts/prompts, or ./prompts).", valueName: "DIR"))
    var prompts: String?

    func validate() throws {
        if let timeout, !(timeout > 0) { throw ValidationError("--timeout must be a positive number of seconds") }
        if let retries, retries < 0 { throw ValidationError("--retries must be 0 or more") }
        if let maxRequests, maxRequests < 1 { throw ValidationError("--max-requests must be 1 or more") }
    }

    var setup: RemoteAnalyzerSetup {
        RemoteAnalyzerSetup(analyzer: analyzer, geminiBaseURL: geminiBaseURL, openAIBaseURL: openAIBaseURL, model: model,
                            apiKeyFile: apiKeyFile, send: send, timeout: timeout, retries: retries,
                            maxRequests: maxRequests, promptsDirectory: prompts)
    }

    /// The analyzer chosen by these flags and the environment: `heuristic` itself, a remote
    /// analyzer, or (`auto`) a remote one falling back to `heuristic`. A configuration problem
    /// (missing key, endpoint, model or prompt file) becomes a `ValidationError` with one line.
    func makeAnalyzer(heuristic: any ReceiptAnalyzer, imagePreparer: ImagePreparer? = nil, logger: Logger,
                      environment: [String: String] = ProcessInfo.processInfo.environment) throws -> any ReceiptAnalyzer {
        do {
            return try setup.makeAnalyzer(
                heuristic: heuristic, environment: environment,
                executable: Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]),
                currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true),
                imagePreparer: imagePreparer, advice: .flags, logger: logger)
        } catch let error as ReceiptError {
            throw ValidationError(error.advised.description)
        }
    }
}
