import Foundation

/// Everything that can go wrong with the receipt store and its queue. `description` is one line
/// saying what happened, the file concerned and what to do about it.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        /// The folder or the database file cannot be created or opened (permissions, missing parent…).
        case cannotOpen
        /// The file is not a SQLite database, or it is damaged.
        case corrupt
        /// Another process holds a lock on the database for longer than the busy timeout.
        case locked
        /// The database was written by a newer version of receipts.
        case newerSchema
        /// A schema migration failed.
        case migrationFailed
        /// No receipt or expense with that id.
        case notFound
        /// An id prefix that matches more than one receipt.
        case ambiguousId
        /// The image cannot be stored or read back from the store's `images/` folder.
        case imageStorage
        /// The receipt is not in a state that allows this (e.g. retrying one that is not failed).
        case invalidState
        /// The file is a SQLite database of some other program.
        case notAReceiptsStore
        /// Any other database failure.
        case database
    }

    public var code: Code
    /// What happened and how to fix it.
    public var message: String
    /// The database file (or image file) concerned.
    public var file: String?
    /// The underlying error, for logs.
    public var cause: String?

    public init(_ code: Code, _ message: String, file: String? = nil, cause: String? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.cause = cause
    }

    public var description: String {
        var text = file.map { "\($0): \(message)" } ?? message
        if let cause, !message.contains(cause) { text += " (\(cause))" }
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
