import ReceiptModel

/// The codes of stores (SQLite here, PostgreSQL in ReceiptPostgres) and of the image store.
extension ReceiptError.Code {
    /// The folder or the database cannot be created or opened (permissions, missing parent…).
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
    /// The record changed since the caller read it (an `If-Match` that no longer matches).
    public static let preconditionFailed = Self("preconditionFailed")
}

/// Remedies a program names in its own terms (where its users name the store), appended by its
/// `ErrorAdvice`.
extension ReceiptError.Hint {
    /// A store opened read-only does not exist yet.
    public static let storeMissing = Self("storeMissing")
    /// The folder for a new SQLite store cannot be created.
    public static let storeFolder = Self("storeFolder")
    /// The SQLite file is another program's.
    public static let storeOfAnotherProgram = Self("storeOfAnotherProgram")
    /// SQLite cannot open the file (path, permissions).
    public static let storeUnopenable = Self("storeUnopenable")
}
