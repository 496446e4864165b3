import ReceiptModel

/// The codes of remote analyzers.
extension ReceiptError.Code {
    /// A remote analyzer's server failed or refused.
    public static let remoteFailed = Self("remoteFailed")
    /// A remote analyzer answered with something that is not an analysis.
    public static let invalidResponse = Self("invalidResponse")
}

/// Remedies a program names in its own terms (its flags), appended by its `ErrorAdvice`. The
/// messages name the environment variables `RemoteAnalyzerSetup` reads; a program adds its own
/// ways to set the same thing.
extension ReceiptError.Hint {
    /// A key was needed or rejected: another key (`RemoteAnalyzerSetup.apiKeyFile`).
    public static let apiKey = Self("apiKey")
    /// The Gemini analyzer has no key at all.
    public static let geminiKey = Self("geminiKey")
    /// The server does not know the model: another model name or base URL.
    public static let modelNotFound = Self("modelNotFound")
    /// Only text was to be sent and OCR found none: send the image too.
    public static let sendImage = Self("sendImage")
    /// A prompt file is missing from the prompts folder.
    public static let promptsFolder = Self("promptsFolder")
    /// The prompts folder given does not exist.
    public static let promptsFolderNotFound = Self("promptsFolderNotFound")
    /// No prompts folder was given and none was found.
    public static let noPromptsFolder = Self("noPromptsFolder")
    /// `RemoteAnalyzerSetup.geminiBaseURL` / `openAIBaseURL` is not an http(s) URL.
    public static let geminiBaseURL = Self("geminiBaseURL")
    public static let openAIBaseURL = Self("openAIBaseURL")
    /// The OpenAI-compatible analyzer has no endpoint.
    public static let openAIEndpoint = Self("openAIEndpoint")
    /// The OpenAI-compatible analyzer has no model name.
    public static let model = Self("model")
    /// `RemoteAnalyzerSetup.timeout`, `retries`, `maxRequests` out of range.
    public static let timeout = Self("timeout")
    public static let retries = Self("retries")
    public static let maxRequests = Self("maxRequests")
}
