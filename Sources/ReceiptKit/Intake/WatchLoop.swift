import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The watcher's thread: waits for inotify events (or the next poll), scans, and reports files
/// that have been stable for the configured delay. Lives and dies on that one thread.
final class WatchLoop {
    private struct Candidate {
        var relativePath: String
        var signature: FileSignature
        /// The last time an event came for it or its size or mtime changed.
        var lastChange: ContinuousClock.Instant
    }

    private let configuration: FolderWatcher.Configuration
    private let once: Bool
    private let control: WatchControl
    private let logger: Logger
    private let report: (WatchedFile) -> Void
    /// Told after each pass: one more pass, the files waiting, the files reported during it.
    private let progress: (WatchProgress) -> Void
    private var reportedThisPass = 0
    private let root: String
    #if os(Linux)
    private var inotify: InotifyHandle?
    #endif
    /// Files seen changing, not yet reported.
    private var candidates: [String: Candidate] = [:]
    /// Files reported, with how they looked then: not reported again until they change.
    private var reported: [String: FileSignature] = [:]
    /// Names skipped for their extension, logged once each.
    private var skippedNoticed: Set<String> = []
    private var nextScan: ContinuousClock.Instant
    private var warnedMissingRoot = false
    private let clock = ContinuousClock()

    init(configuration: FolderWatcher.Configuration, once: Bool, control: WatchControl, logger: Logger,
         progress: @escaping (WatchProgress) -> Void = { _ in }, report: @escaping (WatchedFile) -> Void) {
        self.configuration = configuration
        self.once = once
        self.control = control
        self.logger = logger
        self.report = report
        self.progress = progress
        root = configuration.directory
        nextScan = clock.now
    }

    private var stabilityDelay: Duration { .milliseconds(Int64(configuration.stabilityDelay * 1000)) }

    /// How often stable-candidate checks run: a quarter of the delay, between 20 ms and 250 ms.
    private var tick: Duration { .milliseconds(Int64(min(250, max(20, configuration.stabilityDelay * 250)))) }

    /// Full scans: every poll interval when polling, every rescan interval as a safety net beside
    /// inotify, every 2 s at most when there are no events to rely on.
    private var scanInterval: Duration {
        var seconds = configuration.pollInterval ?? configuration.rescanInterval
        #if os(Linux)
        if configuration.pollInterval == nil && inotify == nil { seconds = min(seconds, 2) }
        #else
        if configuration.pollInterval == nil { seconds = min(seconds, 2) }
        #endif
        return .milliseconds(Int64(seconds * 1000))
    }

    func run() {
        startEvents()
        logger.debug("Watching folder", metadata: [
            "intake.folder": "\(root)", "intake.mode": "\(mode)", "intake.recursive": "\(configuration.recursive)",
            "intake.stable": "\(configuration.stabilityDelay)",
        ])
        scan()
        while !control.isStopped {
            waitForActivity()
            if control.isStopped { break }
            for path in control.takeForgotten() { reported[path] = nil }
            readEvents()
            if !once && clock.now >= nextScan { scan() }
            checkCandidates()
            endPass()
            if once && candidates.isEmpty { break }
        }
        logger.debug("Folder watch stopped", metadata: ["intake.folder": "\(root)"])
    }

    private var mode: String {
        if once { return "once" }
        if let poll = configuration.pollInterval { return "poll \(poll)s" }
        #if os(Linux)
        if inotify != nil { return "inotify" }
        #endif
        return "poll \(configuration.rescanInterval)s"
    }

    // MARK: Events

    private func startEvents() {
        #if os(Linux)
        guard !once && configuration.pollInterval == nil else { return }
        do {
            inotify = try InotifyHandle()
        } catch {
            logger.warning("Cannot use inotify; polling instead", metadata: ["error.message": "\(error)"])
        }
        #endif
    }

    /// Sleeps in `poll()` until an event, a wake-up, or the next tick or scan.
    private func waitForActivity() {
        let now = clock.now
        var wait = once ? tick : (candidates.isEmpty ? nextScan - now : min(tick, nextScan - now))
        wait = max(.zero, min(wait, .seconds(1)))
        let milliseconds = Int32(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
        var fds = [pollfd(fd: control.wake.readEnd, events: Int16(POLLIN), revents: 0)]
        #if os(Linux)
        if let inotify { fds.append(pollfd(fd: inotify.fd, events: Int16(POLLIN), revents: 0)) }
        #endif
        _ = poll(&fds, nfds_t(fds.count), milliseconds)
        if fds[0].revents != 0 { control.wake.drain() }
    }

    private func readEvents() {
        #if os(Linux)
        guard let inotify else { return }
        let now = clock.now
        for event in inotify.readEvents() {
            if event.isOverflow {
                logger.debug("Too many file events at once; rescanning", metadata: ["intake.folder": "\(root)"])
                nextScan = now
                continue
            }
            let path = event.path
            guard path != root, let relative = relativePath(of: path) else { continue }
            let name = (path as NSString).lastPathComponent
            if event.isFolder {
                if event.isGone {
                    inotify.unwatch(below: path)
                    forgetBelow(path)
                } else if event.isArrival, configuration.recursive, !ignoresFolder(name: name, relative: relative, path: path) {
                    // Files may land in a new folder before its watch is added: scan it now.
                    scanFolder(path, relative: relative)
                }
                continue
            }
            if event.isGone {
                candidates[path] = nil
                reported[path] = nil
                continue
            }
            consider(path, name: name, relative: relative, now: now)
        }
        #endif
    }

    // MARK: Scanning

    /// Walks the whole folder: files not reported yet become candidates, new folders are watched.
    private func scan() {
        nextScan = clock.now + scanInterval
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue else {
            if !warnedMissingRoot {
                logger.warning("Watched folder is missing; waiting for it", metadata: ["intake.folder": "\(root)"])
                warnedMissingRoot = true
            }
            return
        }
        warnedMissingRoot = false
        var seen: Set<String> = []
        walk(root, relative: "", seen: &seen)
        // Files reported earlier and gone since may come back (a new file under the same name).
        for path in reported.keys where !seen.contains(path) { reported[path] = nil }
        for path in candidates.keys where !seen.contains(path) { candidates[path] = nil }
    }

    private func scanFolder(_ folder: String, relative: String) {
        var seen: Set<String> = []
        walk(folder, relative: relative, seen: &seen)
    }

    private func walk(_ folder: String, relative: String, seen: inout Set<String>) {
        #if os(Linux)
        if let inotify, !inotify.isWatching(folder), let problem = inotify.watch(folder) {
            logger.warning("Cannot watch folder; it is only rescanned", metadata: [
                "intake.folder": "\(folder)", "error.message": "\(problem)",
                "intake.hint": "raise fs.inotify.max_user_watches, or watch by polling",
            ])
        }
        #endif
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            logger.warning("Cannot list folder", metadata: ["intake.folder": "\(folder)", "error.message": "\(error.localizedDescription)"])
            return
        }
        let now = clock.now
        for name in names.sorted() {
            let path = folder + "/" + name
            let childRelative = relative.isEmpty ? name : relative + "/" + name
            guard let (_, kind) = FileSignature.of(path) else { continue }
            switch kind {
            case .folder:
                if configuration.recursive, !FileSignature.isSymbolicLink(path),
                   !ignoresFolder(name: name, relative: childRelative, path: path) {
                    walk(path, relative: childRelative, seen: &seen)
                }
            case .file:
                seen.insert(path)
                consider(path, name: name, relative: childRelative, now: now, fromScan: true)
            case .other:
                continue
            }
        }
    }

    // MARK: Candidates

    /// Something happened to `path` (an event, or a scan found it).
    private func consider(_ path: String, name: String, relative: String, now: ContinuousClock.Instant, fromScan: Bool = false) {
        guard !ignoresFile(name: name, relative: relative, path: path) else { return }
        guard let (signature, kind) = FileSignature.of(path), kind == .file else {
            candidates[path] = nil
            return
        }
        if reported[path] == signature { return }
        if var candidate = candidates[path] {
            // A scan only notices changes; an event counts as activity by itself.
            if !fromScan || candidate.signature != signature {
                candidate.signature = signature
                candidate.lastChange = now
                candidates[path] = candidate
            }
        } else {
            candidates[path] = Candidate(relativePath: relative, signature: signature, lastChange: now)
        }
    }

    /// Reports candidates unchanged for the stability delay.
    private func checkCandidates() {
        let now = clock.now
        for (path, candidate) in candidates.sorted(by: { $0.key < $1.key }) {
            guard let (signature, kind) = FileSignature.of(path), kind == .file else {
                candidates[path] = nil
                continue
            }
            if signature != candidate.signature {
                candidates[path]?.signature = signature
                candidates[path]?.lastChange = now
                continue
            }
            guard now - candidate.lastChange >= stabilityDelay else { continue }
            candidates[path] = nil
            reported[path] = signature
            report(WatchedFile(path: path, relativePath: candidate.relativePath, signature: signature))
            reportedThisPass += 1
        }
    }

    private func endPass() {
        var pass = WatchProgress()
        pass.passes = 1
        pass.waiting = candidates.count
        pass.reported = reportedThisPass
        reportedThisPass = 0
        progress(pass)
    }

    private func forgetBelow(_ folder: String) {
        let prefix = folder + "/"
        for path in candidates.keys where path.hasPrefix(prefix) { candidates[path] = nil }
        for path in reported.keys where path.hasPrefix(prefix) { reported[path] = nil }
    }

    // MARK: Rules

    private func relativePath(of path: String) -> String? {
        guard path.hasPrefix(root + "/") else { return nil }
        return String(path.dropFirst(root.count + 1))
    }

    private func isExcluded(_ path: String) -> Bool {
        configuration.excludedPaths.contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    private func ignoresFolder(name: String, relative: String, path: String) -> Bool {
        isExcluded(path) || configuration.ignore.ignores(name: name, relativePath: relative)
    }

    private func ignoresFile(name: String, relative: String, path: String) -> Bool {
        if isExcluded(path) || configuration.ignore.ignores(name: name, relativePath: relative) { return true }
        // A file inside an ignored or excluded folder (reported by an event on a watched parent).
        var parent = (relative as NSString).deletingLastPathComponent
        while !parent.isEmpty {
            let parentName = (parent as NSString).lastPathComponent
            if configuration.ignore.ignores(name: parentName, relativePath: parent) { return true }
            parent = (parent as NSString).deletingLastPathComponent
        }
        if !configuration.recursive && relative.contains("/") { return true }
        if let extensions = configuration.extensions, !extensions.contains((name as NSString).pathExtension.lowercased()) {
            if skippedNoticed.insert(path).inserted {
                logger.info("File skipped: not a receipt image", metadata: [
                    "intake.file": "\(relative)", "intake.extensions": "\(extensions.sorted().joined(separator: " "))",
                ])
            }
            return true
        }
        return false
    }
}

@available(*, unavailable) extension WatchLoop: Sendable {}
