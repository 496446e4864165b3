import Foundation
import Synchronization
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Watches a folder and reports each file once it has stopped changing.
///
/// Detection: inotify on Linux (every subfolder, new ones as they appear), polling elsewhere or
/// when `pollInterval` is set (network shares, where events do not arrive), and a periodic full
/// rescan as a safety net. Files already there when watching starts are reported too. A file is
/// reported once no event came for it and its size and mtime stayed the same for
/// `stabilityDelay`; it is reported again only when it changes.
///
/// All waiting, reading of events and file system calls happen on one thread of the watcher's
/// own, never on Swift's cooperative threads.
public final class FolderWatcher: Sendable {
    public struct Configuration: Sendable {
        /// The folder watched (made absolute).
        public var directory: String
        public var recursive: Bool
        /// Seconds between full scans instead of inotify (nil: inotify where the system has it).
        public var pollInterval: TimeInterval?
        /// Seconds a file must stay unchanged, with no events, before it is reported.
        public var stabilityDelay: TimeInterval
        /// Seconds between full rescans while inotify is used (a safety net for missed events).
        public var rescanInterval: TimeInterval
        public var ignore: IgnoreRules
        /// Files and folders never entered or reported (output folders, a store kept inside).
        public var excludedPaths: [String]
        /// File name extensions reported (lowercase); nil reports every file.
        public var extensions: Set<String>?

        public init(directory: String, recursive: Bool = true, pollInterval: TimeInterval? = nil,
                    stabilityDelay: TimeInterval = 3, rescanInterval: TimeInterval = 60,
                    ignore: IgnoreRules = IgnoreRules(), excludedPaths: [String] = [],
                    extensions: Set<String>? = ReceiptFile.imageExtensions) {
            self.directory = FolderWatcher.absolute(directory)
            self.recursive = recursive
            self.pollInterval = pollInterval.map { max(0.05, $0) }
            self.stabilityDelay = max(0, stabilityDelay)
            self.rescanInterval = max(0.1, rescanInterval)
            self.ignore = ignore
            self.excludedPaths = excludedPaths.map(FolderWatcher.absolute)
            self.extensions = extensions
        }
    }

    public let configuration: Configuration
    private let logger: Logger
    private let runs = RunRegistry()
    private let passes = Mutex(WatchProgress())

    /// How far the watches of this watcher have got (passes and reports added up when several
    /// run; `waiting` as the last pass left it), for a program or a test that waits for the
    /// watcher rather than for time.
    public var progress: WatchProgress { passes.withLock { $0 } }

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Starts watching on a thread of its own. The stream reports each stable file; it ends after
    /// `stop()`, when its consumer stops iterating, or — with `once` — when every file present at
    /// the start has been reported (or has gone). Throws `ReceiptError` when the folder is missing
    /// or the system gives no file descriptor for the watcher.
    public func stableFiles(once: Bool = false) throws -> AsyncStream<WatchedFile> {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: configuration.directory, isDirectory: &isFolder), isFolder.boolValue else {
            throw ReceiptError(.folderMissing, file: configuration.directory, "no such folder; create it or name another")
        }
        let control = try WatchControl()
        let (stream, continuation) = AsyncStream.makeStream(of: WatchedFile.self)
        continuation.onTermination = { _ in control.stop() }
        runs.add(control)
        let configuration = self.configuration
        let logger = self.logger
        let runs = self.runs
        let record: @Sendable (WatchProgress) -> Void = { [self] pass in passes.withLock { $0.add(pass) } }
        let thread = Thread {
            let loop = WatchLoop(configuration: configuration, once: once, control: control, logger: logger,
                                 progress: record) {
                continuation.yield($0)
            }
            loop.run()
            continuation.finish()
            runs.remove(control)
        }
        thread.name = "receipts-watch"
        thread.start()
        return stream
    }

    /// Stops every watch started by this watcher; their streams end.
    public func stop() {
        for control in runs.all { control.stop() }
    }

    /// Forgets that `path` was reported, so the next rescan reports it again if it is still there
    /// (after a failure that left it in place and may not recur).
    public func forget(_ path: String) {
        for control in runs.all { control.forget(path) }
    }

    /// The absolute path with symbolic links resolved when it exists (standardized otherwise).
    static func absolute(_ path: String) -> String {
        let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
        if let resolved = realpath(standardized, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        return standardized.count > 1 && standardized.hasSuffix("/") ? String(standardized.dropLast()) : standardized
    }
}

/// How far a watch has got. Once `passes` has gone up twice since a change in the folder, the watcher
/// has read that change's events; a file it will report is then `waiting` or already `reported`.
public struct WatchProgress: Sendable, Equatable {
    /// Times the watcher has looked at the folder: read the events that came (scanned when due)
    /// and checked the files waiting to stay unchanged.
    public var passes = 0
    /// Files seen changing and not reported yet (waiting for `stabilityDelay`), at the last pass.
    public var waiting = 0
    /// Files reported so far.
    public var reported = 0

    public init() {}

    mutating func add(_ pass: WatchProgress) {
        passes += pass.passes
        waiting = pass.waiting
        reported += pass.reported
    }
}

/// What another thread may ask of a running watch: stop, or forget a path.
final class WatchControl: Sendable {
    private let state = Mutex((stopped: false, forgotten: [String]()))
    let wake: WakePipe

    init() throws { wake = try WakePipe() }

    var isStopped: Bool { state.withLock { $0.stopped } }

    func stop() {
        state.withLock { $0.stopped = true }
        wake.wake()
    }

    func forget(_ path: String) {
        state.withLock { $0.forgotten.append(path) }
        wake.wake()
    }

    func takeForgotten() -> [String] {
        state.withLock { s in
            defer { s.forgotten = [] }
            return s.forgotten
        }
    }
}

/// The watches a `FolderWatcher` has running.
final class RunRegistry: Sendable {
    private let controls = Mutex([ObjectIdentifier: WatchControl]())

    var all: [WatchControl] { controls.withLock { Array($0.values) } }
    func add(_ control: WatchControl) { controls.withLock { $0[ObjectIdentifier(control)] = control } }
    func remove(_ control: WatchControl) { controls.withLock { $0[ObjectIdentifier(control)] = nil } }
}
