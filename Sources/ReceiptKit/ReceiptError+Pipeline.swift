import ReceiptModel

/// The codes of the pipeline and of watched folders.
extension ReceiptError.Code {
    /// The analyzer failed.
    public static let analysisFailed = Self("analysisFailed")
    // Watched folders.
    /// The watched folder does not exist or is not a folder.
    public static let folderMissing = Self("folderMissing")
    /// The operating system refused to watch (no file descriptors left, no inotify instances).
    public static let watchFailed = Self("watchFailed")
    /// An output folder (processed, failed) cannot be created or written.
    public static let outputFolder = Self("outputFolder")
    /// A file could not be moved to its output folder or its sidecar could not be written.
    public static let filingFailed = Self("filingFailed")
    /// The `keep` ledger cannot be read or written.
    public static let ledger = Self("ledger")
}

/// Remedies a program names in its own terms (its flags), appended by its `ErrorAdvice`.
extension ReceiptError.Hint {
    /// inotify cannot watch: watch by polling (`IntakeConfiguration.pollInterval`).
    public static let poll = Self("poll")
    /// The ledger of files kept in place (`IntakeConfiguration.keep`) cannot be read or written.
    public static let keepLedger = Self("keepLedger")
}
