import Foundation

/// What can go wrong with a watched folder. `description` is one line: the folder or file concerned,
/// what happened and what to do about it.
public struct IntakeError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        /// The watched folder does not exist or is not a folder.
        case folderMissing
        /// The operating system refused to watch (no file descriptors left, no inotify instances).
        case watchFailed
        /// An output folder (processed, failed) cannot be created or written.
        case outputFolder
        /// A file could not be moved to its output folder or its sidecar could not be written.
        case filingFailed
        /// The `--keep` ledger cannot be read or written.
        case ledger
    }

    public var code: Code
    /// The folder or file concerned.
    public var file: String
    /// What happened and how to fix it.
    public var message: String
    /// The underlying error (`strerror`, Foundation's description), for logs.
    public var cause: String?

    public init(_ code: Code, file: String, _ message: String, cause: String? = nil) {
        self.code = code
        self.file = file
        self.message = message
        self.cause = cause
    }

    public var description: String {
        var text = "\(file): \(message)"
        if let cause, !message.contains(cause) { text += " (\(cause))" }
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
