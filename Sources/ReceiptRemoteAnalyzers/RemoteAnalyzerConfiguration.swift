import Foundation
import ReceiptModel

/// What a remote analyzer sends to the model.
public enum RemoteInput: String, Sendable, CaseIterable {
    /// The receipt image only (the prompt says no OCR text was sent).
    case image
    /// The OCR text only (no image leaves the machine).
    case text
    /// Both: the model reads the image and can use the OCR text as a hint.
    case both

    package var sendsImage: Bool { self != .text }
    package var sendsText: Bool { self != .image }
}

/// Settings of one remote analyzer. Every value has a default; the `receipts` executable fills
/// them from flags, the environment and files (flag > environment > default).
public struct RemoteAnalyzerConfiguration: Sendable {
    public static let geminiBaseURL = URL(string: "https://generativelanguage.googleapis.com")!
    public static let defaultModel = "gemini-2.5-flash"

    /// Sent as `x-goog-api-key` (Gemini) or `Authorization: Bearer` (OpenAI-compatible); optional
    /// for self-hosted servers.
    public var apiKey: APIKey?
    /// Gemini: requests go to `{baseURL}/v1beta/models/{model}:generateContent`. OpenAI-compatible:
    /// to `{baseURL}/v1/chat/completions` when the URL has no path, else `{baseURL}/chat/completions`.
    public var baseURL: URL
    public var model: String
    /// Longest wait for one HTTP attempt (whole seconds on Linux, rounded up).
    public var timeout: Duration
    /// Retries after the first attempt for rate limits, server errors, timeouts and dropped connections.
    public var maxRetries: Int
    /// First backoff delay; it doubles on each retry (with jitter) up to `maxRetryDelay`.
    public var baseRetryDelay: Duration
    /// Longest wait between two attempts. A server asking for a longer wait fails the receipt instead.
    public var maxRetryDelay: Duration
    /// Requests in flight at once, across all receipts analysed by one analyzer.
    public var maxConcurrentRequests: Int
    public var send: RemoteInput
    /// Largest image sent as is. Base64 adds a third, and Gemini refuses inline data above 20 MB per
    /// request, so the default stays well below.
    public var maxInlineImageBytes: Int
    /// Images larger than this on their long side (per the OCR's source size) are downscaled
    /// when an `imagePreparer` is set; the model reads receipts well at this size.
    public var maxImageDimension: Int
    /// Re-encodes images that are too big or in a format the API does not take. Without it such
    /// an image is refused (`send: .image`) or left out, with a note in `details` (`send: .both`).
    public var imagePreparer: ImagePreparer?
    /// OpenAI-compatible only: send the JSON schema as `response_format` (some servers lack it;
    /// when one answers 400 about `response_format`, the request is repeated once without it).
    public var useResponseSchema: Bool

    public init(
        apiKey: APIKey? = nil,
        baseURL: URL = RemoteAnalyzerConfiguration.geminiBaseURL,
        model: String = RemoteAnalyzerConfiguration.defaultModel,
        timeout: Duration = .seconds(60),
        maxRetries: Int = 3,
        baseRetryDelay: Duration = .seconds(1),
        maxRetryDelay: Duration = .seconds(60),
        maxConcurrentRequests: Int = 4,
        send: RemoteInput = .both,
        maxInlineImageBytes: Int = 7_000_000,
        maxImageDimension: Int = 3072,
        imagePreparer: ImagePreparer? = nil,
        useResponseSchema: Bool = true
    ) {
        self.apiKey = apiKey
        self.baseURL = baseURL
        self.model = model
        self.timeout = timeout
        self.maxRetries = max(0, maxRetries)
        self.baseRetryDelay = baseRetryDelay
        self.maxRetryDelay = maxRetryDelay
        self.maxConcurrentRequests = max(1, maxConcurrentRequests)
        self.send = send
        self.maxInlineImageBytes = maxInlineImageBytes
        self.maxImageDimension = maxImageDimension
        self.imagePreparer = imagePreparer
        self.useResponseSchema = useResponseSchema
    }
}

extension Duration {
    package var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}
