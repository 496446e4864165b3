import Foundation

/// The one error type of every layer: a code, the file concerned, a one-line message, the cause
/// and whether trying again can help.
///
/// `description` is one line, `<file>: <message> (<cause>)`: what a user sees in a result, a
/// sidecar or a log. Layers add codes (`ReceiptError.Code` is extensible, like a string enum
/// that any module may extend); they never add error types.
public struct ReceiptError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure. Extensible: `extension ReceiptError.Code { static let mine = Code("mine") }`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
    }

    /// Whether trying the same work again can succeed. Decided where the failure is best
    /// understood (the remote client knows a rejected key from a timeout) and read by the queue.
    public enum Retry: Sendable, Equatable {
        /// The same input will fail the same way: a broken file, a rejected key, a daily quota.
        case never
        /// A transient failure (timeouts, server errors, rate limits beyond what the client waited).
        case later
    }

    public var code: Code
    /// The file (image, database, folder) as the user named it, when there is one.
    public var file: String?
    /// What happened and, where it helps, what to do about it.
    public var message: String
    /// The underlying error (`strerror`, a library's message), for the end of the line.
    public var cause: String?
    public var retry: Retry

    /// `ReceiptError(.badImage, file: "a.jpg", "file is empty (0 bytes)")`.
    public init(_ code: Code, file: String?, _ message: String, cause: String? = nil, retry: Retry = .never) {
        self.code = code
        self.file = file
        self.message = message
        self.cause = cause
        self.retry = retry
    }

    /// `ReceiptError(.notFound, "no receipt with id …", file: storePath)`.
    public init(_ code: Code, _ message: String, file: String? = nil, cause: String? = nil, retry: Retry = .never) {
        self.init(code, file: file, message, cause: cause, retry: retry)
    }

    /// Trying again may succeed.
    public var isTransient: Bool { retry == .later }

    public var description: String {
        var text = message
        if let cause, !cause.isEmpty, !message.contains(cause) { text += " (\(cause))" }
        if let file, !text.hasPrefix(file + ":") { text = "\(file): \(text)" }
        return text.oneLine
    }

    /// This error, naming `file` when it named none.
    public func naming(_ file: String) -> ReceiptError {
        var copy = self
        if copy.file == nil { copy.file = file }
        return copy
    }

    /// Any error as a `ReceiptError` about `file`: a `ReceiptError` keeps its code and retry
    /// advice; anything else is a permanent `.internal` failure described in one line. The one
    /// place that decides what an unknown error means.
    public static func from(_ error: any Error, file: String) -> ReceiptError {
        if let error = error as? ReceiptError { return error.naming(file) }
        return ReceiptError(.internal, file: file, String(describing: error))
    }
}

extension ReceiptError.Code {
    // Reading a receipt image.
    /// The file does not exist, is a folder, or cannot be read.
    public static let unreadable = Self("unreadable")
    /// The bytes are not an image we can decode (empty, truncated, unknown or unsupported format).
    public static let badImage = Self("badImage")
    /// The image is larger than the configured pixel limit.
    public static let tooLarge = Self("tooLarge")
    // OCR.
    /// OCR failed on this image (the engine could not start, …).
    public static let ocrFailed = Self("ocrFailed")
    /// A Tesseract language's data is not installed.
    public static let languageNotInstalled = Self("languageNotInstalled")
    /// The OCR engine could not start.
    public static let engineInitFailed = Self("engineInitFailed")
    /// An OCR setting is out of range.
    public static let invalidConfiguration = Self("invalidConfiguration")
    // Analysis.
    /// The analyzer failed.
    public static let analysisFailed = Self("analysisFailed")
    /// There is nothing to analyze (no text, no image).
    public static let noText = Self("noText")
    /// A remote analyzer's server failed or refused.
    public static let remoteFailed = Self("remoteFailed")
    /// A remote analyzer answered with something that is not an analysis.
    public static let invalidResponse = Self("invalidResponse")
    /// An analyzer is set up wrongly (no key, a bad URL, a missing prompt file).
    public static let configuration = Self("configuration")
    // Store.
    /// The folder or the database file cannot be created or opened (permissions, missing parent…).
    public static let cannotOpen = Self("cannotOpen")
    /// The file is not a SQLite database, or it is damaged.
    public static let corrupt = Self("corrupt")
    /// Another process holds a lock on the database for longer than the busy timeout.
    public static let locked = Self("locked")
    /// The database was written by a newer version of receipts.
    public static let newerSchema = Self("newerSchema")
    /// A schema migration failed.
    public static let migrationFailed = Self("migrationFailed")
    /// No receipt or expense with that id.
    public static let notFound = Self("notFound")
    /// An id prefix that matches more than one receipt.
    public static let ambiguousId = Self("ambiguousId")
    /// The image cannot be stored or read back from the store's `images/` folder.
    public static let imageStorage = Self("imageStorage")
    /// The receipt is not in a state that allows this (e.g. retrying one that is not failed).
    public static let invalidState = Self("invalidState")
    /// The file is a SQLite database of some other program.
    public static let notAReceiptsStore = Self("notAReceiptsStore")
    /// Any other database failure.
    public static let database = Self("database")
    // Watched folders.
    /// The watched folder does not exist or is not a folder.
    public static let folderMissing = Self("folderMissing")
    /// The operating system refused to watch (no file descriptors left, no inotify instances).
    public static let watchFailed = Self("watchFailed")
    /// An output folder (processed, failed) cannot be created or written.
    public static let outputFolder = Self("outputFolder")
    /// A file could not be moved to its output folder or its sidecar could not be written.
    public static let filingFailed = Self("filingFailed")
    /// The `--keep` ledger cannot be read or written.
    public static let ledger = Self("ledger")
    // Values people and programs give.
    /// A value given for a field (an API body, a command's option) is not valid; the message
    /// names the field and says what is accepted.
    public static let invalidInput = Self("invalidInput")
    /// The record changed since the caller read it (an `If-Match` that no longer matches).
    public static let preconditionFailed = Self("preconditionFailed")
    /// A failure with no better description (an unexpected error from a library).
    public static let `internal` = Self("internal")
}

extension String {
    /// The text on one line: line breaks become spaces.
    public var oneLine: String {
        guard contains(where: \.isNewline) else { return self }
        return split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
