import Foundation

/// The one error type of every layer: a code, the file concerned, a one-line message, the cause
/// and whether trying again can help.
///
/// `description` is one line, `<file>: <message> (<cause>)`: what a user sees in a result, a
/// sidecar or a log. Layers add codes (`ReceiptError.Code` is extensible, like a string enum
/// that any module may extend); they never add error types.
///
/// A library says what is wrong in its own terms. Where the remedy is a setting only the program
/// in front knows how to spell (the CLI's `--max-pixels`), the error carries a `hint`, and that
/// program appends its advice (`ErrorAdvice`) where the error becomes text someone reads.
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
    /// What the program in front may add in its own terms (see `ErrorAdvice`); nil once added.
    public var hint: Hint?

    /// Names a remedy that only the program in front of the library can spell (a flag, a command).
    /// Extensible like `Code`, and declared by the layer that raises it:
    /// `extension ReceiptError.Hint { static let maxPixels = Hint("maxPixels") }`.
    public struct Hint: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
    }

    /// `ReceiptError(.badImage, file: "a.jpg", "file is empty (0 bytes)")`.
    public init(_ code: Code, file: String?, _ message: String, cause: String? = nil, retry: Retry = .never,
                hint: Hint? = nil) {
        self.code = code
        self.file = file
        self.message = message
        self.cause = cause
        self.retry = retry
        self.hint = hint
    }

    /// `ReceiptError(.notFound, "no receipt with id …", file: storePath)`.
    public init(_ code: Code, _ message: String, file: String? = nil, cause: String? = nil, retry: Retry = .never,
                hint: Hint? = nil) {
        self.init(code, file: file, message, cause: cause, retry: retry, hint: hint)
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

/// The codes every layer may raise. Each layer declares its own codes beside the code that raises
/// them (`ReceiptError+OCR.swift` in ReceiptOCR, `ReceiptError+Store.swift` in ReceiptStorage, …);
/// only the ones shared by layers that do not depend on each other are declared here.
extension ReceiptError.Code {
    /// The file does not exist, is a folder, or cannot be read.
    public static let unreadable = Self("unreadable")
    /// There is nothing to analyze (no text, no image).
    public static let noText = Self("noText")
    /// A setting is out of range or malformed (an OCR setting, a store's name, an address to listen on).
    public static let invalidConfiguration = Self("invalidConfiguration")
    /// A value given for a field (an API body, a command's option) is not valid; the message
    /// names the field and says what is accepted.
    public static let invalidInput = Self("invalidInput")
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
