import Foundation
import Logging

/// How `IntakeService` watches a folder and where handled files go.
public struct IntakeConfiguration: Sendable {
    /// The watched folder.
    public var directory: String
    /// Where completed images and their `<name>.json` go (default: `processed/` in the watched folder).
    public var processedDirectory: String
    /// Where failed images and their `<name>.error.txt` go (default: `failed/` in the watched folder).
    public var failedDirectory: String
    /// Leave images where they are (sidecars are still written) and remember them by content.
    public var keep: Bool
    public var recursive: Bool
    /// Seconds between scans instead of inotify (network shares, where events do not arrive).
    public var pollInterval: TimeInterval?
    /// Seconds a file must stay unchanged, with no events, before it is taken.
    public var stabilityDelay: TimeInterval
    /// Seconds between full rescans beside inotify.
    public var rescanInterval: TimeInterval
    /// Extra glob patterns of names to ignore.
    public var ignorePatterns: [String]
    /// Other paths never taken (a store kept inside the watched folder, for example).
    public var excludedPaths: [String]
    /// Take what is there, then return from `run()`.
    public var once: Bool
    /// Files handled at once (read, submitted, waited for, filed). Keeps shutdown quick and memory bounded.
    public var maxInFlight: Int
    /// On graceful shutdown, how long to wait for receipts in flight before leaving them for the
    /// next start (their files stay in the watched folder; nothing is lost).
    public var shutdownGrace: TimeInterval
    /// The level of the line logged for each receipt filed: `.debug` (a library logs its
    /// successes there); `receipts watch` shows it at `.info`.
    public var receiptLogLevel: Logger.Level
    /// The level of the line logged for a receipt that failed (filed in the failed folder):
    /// `.debug` by default (a library leaves the level to its caller); `receipts watch` logs it at
    /// `.error`, so `-q` still shows it.
    public var failureLogLevel: Logger.Level
    /// Whose the receipts filed from the folder are (`receipts watch --user`): one person's folder
    /// files as them.
    public var ownership: Ownership
    /// Pictures named `NAME-1.jpg`, `NAME-2.jpg`… (the same NAME and folder) that arrive within
    /// this many seconds of each other are read together, and are one receipt when each overlaps
    /// the one before; receipts of their own otherwise (nil: every file is a receipt of its own).
    /// `receipts watch` joins within 10 s unless `--no-join`.
    public var joinPictures: TimeInterval?

    public init(directory: String, processedDirectory: String? = nil, failedDirectory: String? = nil, keep: Bool = false,
                recursive: Bool = true, pollInterval: TimeInterval? = nil, stabilityDelay: TimeInterval = 3,
                rescanInterval: TimeInterval = 60, ignorePatterns: [String] = [], excludedPaths: [String] = [],
                once: Bool = false, maxInFlight: Int = 8, shutdownGrace: TimeInterval = 3,
                receiptLogLevel: Logger.Level = .debug, failureLogLevel: Logger.Level = .debug, ownership: Ownership = .admin) {
        self.ownership = ownership
        let directory = FolderWatcher.absolute(directory)
        self.directory = directory
        self.processedDirectory = FolderWatcher.absolute(processedDirectory ?? directory + "/processed")
        self.failedDirectory = FolderWatcher.absolute(failedDirectory ?? directory + "/failed")
        self.keep = keep
        self.recursive = recursive
        self.pollInterval = pollInterval
        self.stabilityDelay = stabilityDelay
        self.rescanInterval = rescanInterval
        self.ignorePatterns = ignorePatterns
        self.excludedPaths = excludedPaths
        self.once = once
        self.maxInFlight = max(1, maxInFlight)
        self.shutdownGrace = max(0, shutdownGrace)
        self.receiptLogLevel = receiptLogLevel
        self.failureLogLevel = failureLogLevel
    }

    /// The watcher's configuration: output folders are excluded.
    var watcher: FolderWatcher.Configuration {
        FolderWatcher.Configuration(
            directory: directory, recursive: recursive, pollInterval: pollInterval, stabilityDelay: stabilityDelay,
            rescanInterval: rescanInterval, ignore: IgnoreRules(patterns: ignorePatterns),
            excludedPaths: [processedDirectory, failedDirectory] + excludedPaths)
    }
}

/// What an intake run did so far.
public struct IntakeSummary: Sendable, Equatable {
    /// Completed receipts filed in the processed folder (duplicates included).
    public var completed = 0
    /// Of those, files whose bytes were already known (not read again).
    public var duplicates = 0
    /// Files filed in the failed folder.
    public var failed = 0
    /// Files that could not be filed (left in place; an error was logged).
    public var notFiled = 0

    public init() {}
}
