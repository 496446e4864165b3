// Test support is built for the tests only (debug builds, where @testable imports work):
// `swift build -c release` builds every regular target, this one included, and gets it empty.
#if DEBUG
import CTestLifeline
import Foundation
import ReceiptKit
@testable import TestHelpers
#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server of the tests' own: `initdb` in a temporary folder (as the `postgres`
/// user when the tests run as root, since initdb refuses root), listening on a random port of
/// 127.0.0.1 with password (SCRAM) logins. One cluster serves the whole test process (`shared`),
/// each test taking a database of its own (`freshDatabase`); a test that stops or restarts its
/// server, or listens elsewhere, starts one of its own (`started`). Without PostgreSQL's
/// programs, `shared` says why and the PostgreSQL tests skip.
///
/// `postgres` runs in the foreground under `receipts-test-launcher` (`LaunchedProcess`), not
/// daemonized by pg_ctl: it ends with the test process even when that is killed by SIGKILL.
final class PostgresTestServer: @unchecked Sendable {
    static let user = "receipts_test"
    static let password = "pg-Secret-9f3k"

    let port: Int
    let dataDirectory: String
    let binDirectory: String
    let listenAddresses: [String]
    private let runAs: String?
    /// The running postmaster (through its launcher), nil while paused or stopped.
    private let running = NSLockedValue<LaunchedProcess?>(nil)

    /// The server for the whole test process, started on first use; nil when it cannot start (the
    /// reason on stderr). initdb and the start take seconds: they run off the cooperative pool
    /// (`OffPool`), since a pool thread blocked in a static initializer stalled every other test.
    static func shared() async -> PostgresTestServer? { await startup.value }

    private static let startup = Task<PostgresTestServer?, Never> {
        do {
            let server = try await OffPool.run { try PostgresTestServer.start() }
            atexit { PostgresTestServer.stopAll() }
            return server
        } catch {
            FileHandle.standardError.write(Data("PostgreSQL tests skipped: \(error)\n".utf8))
            return nil
        }
    }

    /// Whether PostgreSQL can run here (its programs installed and, as root, the postgres user to
    /// run them as), decided without starting it: for `.enabled(if:)` and test arguments.
    static var available: Bool { findBinDirectory() != nil && (getuid() != 0 || getpwnam("postgres") != nil) }

    nonisolated(unsafe) private static var started: [PostgresTestServer] = []
    private static let lock = NSLock()

    static func stopAll() {
        let servers = lock.withLock { started }
        for server in servers { server.stop() }
    }

    /// The newest installed PostgreSQL's programs (Debian: /usr/lib/postgresql/N/bin).
    static func findBinDirectory() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root))?.compactMap(Int.init).sorted() ?? []
        for version in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        for dir in ["/usr/local/bin", "/usr/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/initdb") {
            return dir
        }
        return nil
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private init(port: Int, dataDirectory: String, binDirectory: String, listenAddresses: [String], runAs: String?) {
        self.port = port
        self.dataDirectory = dataDirectory
        self.binDirectory = binDirectory
        self.listenAddresses = listenAddresses
        self.runAs = runAs
    }

    /// Starts a new server (its own data folder and port).
    static func start(listenAddresses: [String] = ["127.0.0.1"]) throws -> PostgresTestServer {
        guard let bin = findBinDirectory() else {
            throw Failure(description: "no initdb found (install Debian's postgresql package: make test does)")
        }
        let runAs: String? = getuid() == 0 ? "postgres" : nil
        if runAs != nil, getpwnam("postgres") == nil {
            throw Failure(description: "running as root and there is no postgres user to run initdb as")
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-pg-\(UUID().uuidString.prefix(8))").path
        let data = root + "/data"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data(password.utf8).write(to: URL(fileURLWithPath: root + "/pwfile"))
        if let runAs {
            _ = try run("/bin/chown", ["-R", runAs, root])
        }
        let port = freePort()
        let server = PostgresTestServer(port: port, dataDirectory: data, binDirectory: bin, listenAddresses: listenAddresses, runAs: runAs)
        try server.postgresProgram("initdb", ["-D", data, "-U", user, "--pwfile", root + "/pwfile", "--auth-local=trust",
                                              "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
        let hba = listenAddresses.map { "host all all \($0)/32 scram-sha-256" } + ["host all all 10.0.0.0/8 scram-sha-256"]
        try server.append(hba.joined(separator: "\n") + "\n", to: data + "/pg_hba.conf")
        try server.append("""
            listen_addresses = '\(listenAddresses.joined(separator: ","))'
            port = \(port)
            unix_socket_directories = '\(root)'
            fsync = off
            max_connections = 200
            shared_buffers = 64MB

            """, to: data + "/postgresql.conf")
        try server.startServer()
        lock.withLock { started.append(server) }
        return server
    }

    private func append(_ text: String, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(text.utf8))
        try handle.close()
    }

    /// Starts `postgres` (through `receipts-test-launcher`) and waits until it accepts connections:
    /// until its postmaster.pid says `ready`, as `pg_ctl -w` does. The limit only guards against
    /// hanging; a server that exits (a port taken, a bad setting) fails at once with its log.
    func startServer() throws {
        let root = (dataDirectory as NSString).deletingLastPathComponent
        let server = try LaunchedProcess(binDirectory + "/postgres", ["-D", dataDirectory], user: runAs, logPath: root + "/server.log")
        running.withLock { $0 = server }
        let deadline = Date().addingTimeInterval(300 * testTimeScale)
        while Date() < deadline {
            if !server.isRunning {
                running.withLock { $0 = nil }
                throw Failure(description: "postgres exited (\(server.exitStatus ?? -1)) before accepting connections: \(server.logTail())")
            }
            // postmaster.pid's eighth line is the server's state (PostgreSQL 10+).
            let lines = ((try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8)) ?? "").split(separator: "\n")
            if lines.count >= 8, lines[7].trimmingCharacters(in: .whitespaces) == "ready", lines[0] != "" { return }
            usleep(20_000)
        }
        server.signal(SIGQUIT)
        throw Failure(description: "postgres did not become ready: \(server.logTail())")
    }

    /// Stops the postmaster with `signal` (SIGTERM smart, SIGINT fast, SIGQUIT immediate) and waits
    /// until it and its launcher have ended.
    private func stopServer(_ signal: Int32) {
        guard let server = running.withLock({ current -> LaunchedProcess? in defer { current = nil }; return current }) else { return }
        server.signal(signal)
        if !server.waitUntilEnded() { kill(server.pid, SIGKILL) }
    }

    /// Stops the server at once (as a crash would, or `pg_ctl -m immediate`) and removes its files.
    func stop() {
        stopServer(SIGQUIT)
        try? FileManager.default.removeItem(atPath: (dataDirectory as NSString).deletingLastPathComponent)
    }

    // The async methods below wait for PostgreSQL's programs off the cooperative pool (`OffPool`):
    // blocking one of its two threads here would stall every other test's timers.

    /// Starts a server of the caller's own (see `start(listenAddresses:)`).
    static func started(listenAddresses: [String] = ["127.0.0.1"]) async throws -> PostgresTestServer {
        try await OffPool.run { try start(listenAddresses: listenAddresses) }
    }

    /// Stops the server (fast shutdown: every connection is cut) and leaves it down, files kept.
    func pause() async throws {
        try await OffPool.run { self.stopServer(SIGINT) }
    }

    /// Starts a paused server again.
    func resume() async throws {
        try await OffPool.run { try self.startServer() }
    }

    /// Restarts the server (fast shutdown: every connection is cut), as an operator's restart would.
    func restart() async throws {
        try await OffPool.run {
            self.stopServer(SIGINT)
            try self.startServer()
        }
    }

    /// A new, empty database; its URL holds the password (as a user's would).
    /// `scaledTimeouts` false: the store's default connection and probe limits even under a sanitizer.
    func freshDatabase(host: String = "127.0.0.1", scaledTimeouts: Bool = true) async throws -> String {
        let name = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        try await OffPool.run {
            try self.postgresProgram("createdb", ["-h", (self.dataDirectory as NSString).deletingLastPathComponent, "-p", "\(self.port)", "-U", Self.user, name])
        }
        return url(database: name, host: host, scaledTimeouts: scaledTimeouts)
    }

    /// The suite runs OCR processes beside PostgreSQL on a shared machine: connecting may take far
    /// longer than the store's default. The URL says so with `connect_timeout`, as a user with a
    /// loaded server would: 120 s, a limit that only guards against hanging (10 s failed 18 tests
    /// at once at a load average of 22, issue 61); `scaledTimeouts` false keeps the defaults.
    func url(database: String, host: String = "127.0.0.1", scaledTimeouts: Bool = true) -> String {
        let timeout = scaledTimeouts ? "&connect_timeout=\(Int(120 * max(1, testTimeScale)))" : ""
        return "postgres://\(Self.user):\(Self.password)@\(host):\(port)/\(database)?sslmode=disable\(timeout)"
    }

    /// Runs one of PostgreSQL's programs (as the postgres user when root).
    @discardableResult
    func postgresProgram(_ name: String, _ arguments: [String]) throws -> String {
        if let runAs {
            return try Self.run("/sbin/runuser", ["-u", runAs, "--", binDirectory + "/" + name] + arguments)
        }
        return try Self.run(binDirectory + "/" + name, arguments)
    }

    /// Runs SQL as the superuser through psql, returning its unaligned output.
    @discardableResult
    func psql(_ database: String, _ sql: String) async throws -> String {
        try await OffPool.run {
            try self.postgresProgram("psql", ["-h", (self.dataDirectory as NSString).deletingLastPathComponent, "-p", "\(self.port)",
                                              "-U", Self.user, "-d", database, "-v", "ON_ERROR_STOP=1", "-A", "-t", "-c", sql])
        }
    }

    /// Runs a program to its end with posix_spawn and waitpid (not Foundation's Process, whose
    /// exit monitoring stalled when first used from this static initializer). Output goes to a
    /// file, not a pipe: the server that pg_ctl starts would hold a pipe open for its whole life.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-pg-out-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of this process's is inherited (see LaunchedProcess.init: Foundation's Process).
        receipts_spawn_close_from(&actions, 3)
        // Through sh to start in /tmp: the postgres user may not read the caller's folder.
        let command = ["/bin/sh", "-c", "cd /tmp && exec \"$0\" \"$@\"", executable] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The program starts with no signal blocked and SIGTERM, SIGINT and SIGHUP at their defaults:
        // a test thread's blocked signals would otherwise be inherited, and a daemon started so
        // (Dovecot) never sees the SIGTERM that stops it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var unblocked = sigset_t(), defaults = sigset_t()
        sigemptyset(&unblocked)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw Failure(description: "cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exited = (status & 0x7f) == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            throw Failure(description: "\((executable as NSString).lastPathComponent) \(arguments.first ?? "") failed (status \(status)): \(text.suffix(400))")
        }
        return text
    }

    /// A TCP port nobody listens on now.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

#endif
