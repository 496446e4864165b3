// Test support is built for the tests only (debug builds, where @testable imports work).
#if DEBUG
import CTestLifeline
import Foundation
@testable import TestHelpers
#if canImport(Glibc)
import Glibc
#endif

/// A server the tests start that is not `receipts` (PostgreSQL, Dovecot), run in the foreground
/// through `receipts-test-launcher`: in a process group of its own that is killed when this test
/// process ends, whether it exits, is stopped by SIGINT or is killed by SIGKILL. Signals sent with
/// `signal(_:)` reach the program through the launcher; `exitStatus` is the launcher's (the
/// program's status, or 128 + the signal that ended it).
///
/// Started with posix_spawn, not Foundation's Process (whose exit monitoring stalled when first
/// used from a static initializer), with no signal blocked; a thread of its own waits for it.
final class LaunchedProcess: @unchecked Sendable {
    /// The launcher's process id.
    let pid: pid_t
    /// Where the program's stdout and stderr go.
    let logPath: String
    private let state = NSLockedValue<Int32?>(nil)
    private let ended = NSCondition()

    /// `receipts-test-launcher`, built beside the `receipts` binary (`swift build --build-tests`).
    static var launcher: String {
        ReceiptsCLI.binary.deletingLastPathComponent().appendingPathComponent("receipts-test-launcher").path
    }

    /// Runs `program ARGS` as `user` (nil: as this process) in `directory`, output appended to `logPath`.
    init(_ program: String, _ arguments: [String], user: String? = nil, directory: String = "/tmp", logPath: String) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.launcher) else {
            throw PostgresTestServer.Failure(description: "no \(Self.launcher): build it with `swift build --build-tests`")
        }
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of this process's is inherited: Foundation's Process learns that a child
        // ended when the socket it gave that child closes, and a launcher spawned on another thread
        // in that instant kept a copy open as long as PostgreSQL ran, so that `receipts --help`,
        // long ended, was waited for until the test process was killed (swift-corelibs-foundation
        // issue 4795; seen 2026-12-06 in NewUserEdgesTests).
        receipts_spawn_close_from(&actions, 3)
        if let user {
            // The program's log is written by it, as `user`.
            if let account = getpwnam(user) {
                FileManager.default.createFile(atPath: logPath, contents: nil)
                chown(logPath, account.pointee.pw_uid, account.pointee.pw_gid)
            }
        }
        let command = [Self.launcher] + (user.map { ["--user", $0] } ?? []) + ["--cwd", directory, "\(getpid())", program] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // No signal blocked and SIGTERM, SIGINT and SIGHUP at their defaults: a test thread's
        // blocked signals would otherwise be inherited, and a server never sees what stops it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var unblocked = sigset_t(), defaults = sigset_t()
        sigemptyset(&unblocked)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, Self.launcher, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw PostgresTestServer.Failure(description: "cannot start \(program): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        let launched = pid
        let thread = Thread { [state, ended] in
            var status: Int32 = 0
            while waitpid(launched, &status, 0) == -1 && errno == EINTR {}
            let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            ended.lock()
            state.withLock { $0 = code }
            ended.broadcast()
            ended.unlock()
        }
        thread.name = "launched \((program as NSString).lastPathComponent)"
        thread.start()
    }

    /// The launcher's exit status once it has ended, else nil.
    var exitStatus: Int32? { state.withLock { $0 } }
    var isRunning: Bool { exitStatus == nil }

    /// Sends `signal` to the program (through the launcher).
    func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits until the launcher has ended; false when it still runs after `limit` seconds (a
    /// guard against hanging only: a stop takes milliseconds). Blocks: call it off the pool.
    @discardableResult
    func waitUntilEnded(limit: Double = 120) -> Bool {
        let deadline = Date().addingTimeInterval(limit * testTimeScale)
        ended.lock()
        defer { ended.unlock() }
        while state.withLock({ $0 }) == nil {
            if !ended.wait(until: deadline) { return state.withLock { $0 } != nil }
        }
        return true
    }

    /// The last `count` characters of the program's output.
    func logTail(_ count: Int = 600) -> String {
        String(((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").suffix(count))
    }
}
#endif
