import ReceiptKit
import ReceiptRemoteAnalyzers
import ReceiptServer

extension ErrorAdvice {
    /// What `receipts` adds to the libraries' errors: the flag (or command) that changes what went
    /// wrong. The libraries say what is wrong in their own terms and name the remedy with a hint.
    static let flags = ErrorAdvice([
        // OCR (ReceiptOCR)
        .maxPixels: " (--max-pixels)",
        .maxPDFPages: " (--max-pdf-pages)",
        .tessdata: " or pass --tessdata DIR",
        // The store (ReceiptStorage)
        .storeMissing: "; run `receipts process` first or pass --store PATH",
        .storeFolder: " or pass --store PATH",
        .storeOfAnotherProgram: "; pass --store with another path",
        .storeUnopenable: ", or pass --store PATH",
        // Watched folders (ReceiptKit)
        .poll: " or use --poll",
        .keepLedger: " (--keep)",
        // Remote analyzers (ReceiptRemoteAnalyzers)
        .apiKey: " or --api-key-file",
        .geminiKey: " or use --api-key-file FILE",
        .modelNotFound: "; check --model and the base URL",
        .sendImage: " (try --send both)",
        .promptsFolder: " (set it with --prompts DIR)",
        .promptsFolderNotFound: " (--prompts / \(RemoteAnalyzerSetup.Variable.prompts))",
        .noPromptsFolder: "; pass --prompts DIR (a folder with \(PromptTemplate.systemFileName) and \(PromptTemplate.userFileName))",
        .geminiBaseURL: " (--gemini-base-url / \(RemoteAnalyzerSetup.Variable.geminiBaseURL))",
        .openAIBaseURL: " (--openai-base-url / \(RemoteAnalyzerSetup.Variable.openAIBaseURL))",
        .openAIEndpoint: " or --openai-base-url",
        .model: " or --model",
        .timeout: " (--timeout)",
        .retries: " (--retries)",
        .maxRequests: " (--max-requests)",
        // `receipts serve` (ReceiptServer)
        .maxUploadSize: " (--max-upload-mb)",
        .maxPending: " (--max-pending)",
        .apiTokens: ": invite someone (`receipts user invite NAME`) or create an API token (`receipts token create --name NAME`), or listen on 127.0.0.1",
        .portInUse: " or pass another --port",
        .portPrivileged: "; pass another --port",
        .hostAddress: "; pass another --host",
    ])
}

/// Prints an error as `receipts` shows them: a library's `ReceiptError` with the flag that changes
/// what went wrong (`ErrorAdvice.flags`).
func printError(_ error: any Error) {
    printError("\(ErrorAdvice.flags.apply(to: error))")
}

extension ReceiptError {
    /// This error as `receipts` shows it: with the flag that changes what went wrong.
    var advised: ReceiptError { ErrorAdvice.flags.apply(to: self) }
}

extension ReceiptPipeline.Configuration {
    /// This configuration, naming `receipts`' flags in the errors of the receipts that fail.
    var advised: Self {
        var configuration = self
        configuration.advice = .flags
        return configuration
    }
}
