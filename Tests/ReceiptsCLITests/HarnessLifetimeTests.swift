import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Nothing a test starts outlives its test process (issue 61: a killed `swift test` left seven
/// `receipts serve` and two PostgreSQL servers running). A test process of its own (this test
/// binary, filtered to `aTestProcessWithEveryKindOfChild`) starts what the tests start — `receipts
/// serve`, `receipts watch`, the PostgreSQL cluster with a database, a Dovecot — and says so; then
/// it, or the process that started it (as `swift test` starts this one), is killed or interrupted,
/// and every process it had started must end.
@Suite(.serialized) struct HarnessLifetimeTests {
    /// Where the inner test process writes its pid once everything runs; set only for it.
    static let reportVariable = "RECEIPTS_HARNESS_LIFETIME_REPORT"
    static let report = ProcessInfo.processInfo.environment[reportVariable]

    /// What the test below runs in a test process of its own; skipped in an ordinary run.
    @Test(.enabled(if: report != nil, "runs only inside nothingATestStartedOutlivesIt"))
    func aTestProcessWithEveryKindOfChild() async throws {
        let report = try #require(Self.report)
        let dir = try TemporaryDirectory()
        let server = try await ServeCommandTests.Server(store: dir.storePath)
        let inbox = dir.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let watch = Process()
        watch.executableURL = ReceiptsCLI.binary
        watch.arguments = ["watch", inbox, "--store", dir.path("watch/receipts.sqlite")]
        watch.environment = ReceiptsCLI.environment()
        watch.standardOutput = FileHandle.nullDevice
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        var started = ["receipts serve", "receipts watch"]
        if PostgresTestServer.available, let postgres = await PostgresTestServer.shared() {
            _ = try await postgres.freshDatabase()
            started.append("postgres")
        }
        if DovecotTestServer.available {
            _ = try await DovecotTestServer.started()
            started.append("dovecot")
        }
        try "\(getpid()) \(started.joined(separator: ","))\n".write(toFile: report, atomically: true, encoding: .utf8)
        // Killed here by the test below (or, should that test fail first, when it ends).
        try await Task.sleep(for: .seconds(3600))
        withExtendedLifetime(server) {}
    }

    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        /// The test process is killed with SIGKILL.
        case killed
        /// The test process is stopped with SIGINT.
        case interrupted
        /// The process that started the test process (`swift test`'s place) is killed with SIGKILL.
        case parentKilled

        var testDescription: String { rawValue }
    }

    /// A server the tests launch inherits no descriptor of the test process but its standard ones.
    /// Foundation's Process learns that a child ended when a socket only that child holds closes; a
    /// launcher spawned in that instant on another thread kept a copy open as long as PostgreSQL
    /// ran, and a `receipts --help` long ended was waited for until the run was killed (2026-12-06).
    @Test func aLaunchedServerInheritsNoDescriptorOfTheTestProcess() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)  // without O_CLOEXEC, as the socket Foundation gives a child
        defer { close(ends[0]); close(ends[1]) }
        func target(_ path: String) -> String? { try? FileManager.default.destinationOfSymbolicLink(atPath: path) }
        let piped = try #require(target("/proc/self/fd/\(ends[1])"))
        let dir = try TemporaryDirectory()
        let launched = try LaunchedProcess("/bin/sleep", ["600"], logPath: dir.path("sleep.log"))
        defer {
            launched.signal(SIGTERM)
            launched.waitUntilEnded()
        }
        // posix_spawn returns once the launcher runs its own image, with its descriptors as spawned.
        let held = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(launched.pid)/fd")) ?? [])
            .compactMap { target("/proc/\(launched.pid)/fd/\($0)") }
        #expect(!held.isEmpty, "the launcher's descriptors could not be read")
        #expect(!held.contains(piped), "the launcher holds the test process's \(piped): \(held)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: ReceiptsCLI.binary.path)), arguments: Ending.allCases)
    func nothingATestStartedOutlivesIt(_ ending: Ending) async throws {
        let dir = try TemporaryDirectory()
        let report = dir.path("report")
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let inner = [testBinary, "--testing-library", "swift-testing", "--filter", "HarnessLifetimeTests/aTestProcessWithEveryKindOfChild"]
        let starter = Process()
        // For `parentKilled`, a shell stands where `swift test` stands: it starts the test process and waits.
        starter.executableURL = URL(fileURLWithPath: ending == .parentKilled ? "/bin/sh" : testBinary)
        starter.arguments = ending == .parentKilled ? ["-c", "\"$@\"; exit $?", "sh"] + inner : Array(inner.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment[Self.reportVariable] = report
        starter.environment = environment
        let output = try CapturedOutput()
        starter.standardOutput = output.handle
        starter.standardError = output.handle
        try starter.run()
        defer { if starter.isRunning { kill(starter.processIdentifier, SIGKILL) } }

        // The inner test process says when all it starts is running (the limit only guards against hanging).
        var said = ""
        let ready = try await eventually(timeout: 600) {
            said = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
            return said.hasSuffix("\n") || !starter.isRunning
        }
        try #require(ready && said.hasSuffix("\n"), "the inner test process never said it was ready: \(output.text.suffix(2000))")
        let fields = said.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        let testProcess = try #require(fields.first.flatMap { pid_t($0) })
        let kinds = fields.dropFirst().first.map { $0.split(separator: ",").map(String.init) } ?? []

        let before = RunningProcess.descendants(of: testProcess)
        let names = Set(before.map(\.name))
        #expect(before.filter { $0.name == "receipts" }.count >= 2, "serve and watch: \(before)")
        if kinds.contains("postgres") { #expect(names.contains("postgres"), "\(before)") }
        if kinds.contains("dovecot") { #expect(names.contains("dovecot"), "\(before)") }
        #expect(names.contains("receipts-test-l"), "PostgreSQL and Dovecot run under the launcher: \(before)")

        switch ending {
        case .killed: kill(testProcess, SIGKILL)
        case .interrupted: kill(testProcess, SIGINT)
        case .parentKilled: kill(starter.processIdentifier, SIGKILL)
        }
        let all = before + [RunningProcess(pid: testProcess)].compactMap { $0 }
        var left: [RunningProcess] = all
        let gone = try await eventually(timeout: 120) {
            left = all.filter(\.isRunning)
            return left.isEmpty
        }
        #expect(gone, "still running after the test process ended (\(ending)): \(left)")
    }
}

/// A process as /proc shows it: its id, its start time (so a reused id is not taken for it) and
/// its name (`comm`, at most 15 characters).
struct RunningProcess: CustomStringConvertible {
    let pid: pid_t
    let startTime: String
    let name: String
    let parent: pid_t

    init?(pid: pid_t) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
        // After the name: state, ppid, …; the start time is the 22nd field of the whole line.
        let rest = stat[stat.index(after: close)...].split(separator: " ")
        guard rest.count > 19, let parent = pid_t(rest[1]) else { return nil }
        self.pid = pid
        name = String(stat[stat.index(after: open)..<close])
        self.parent = parent
        startTime = String(rest[19])
    }

    /// Whether this very process (not another given its id since) is still running (a zombie is not).
    var isRunning: Bool {
        guard let now = RunningProcess(pid: pid), now.startTime == startTime,
              let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(after: close)...].hasPrefix(" Z")
    }

    /// Every process below `root` (children, theirs, …).
    static func descendants(of root: pid_t) -> [RunningProcess] {
        let all = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid_t($0) }.compactMap { RunningProcess(pid: $0) }
        var below: [RunningProcess] = []
        var frontier: Set<pid_t> = [root]
        while !frontier.isEmpty {
            let next = all.filter { frontier.contains($0.parent) }
            below += next
            frontier = Set(next.map(\.pid))
        }
        return below
    }

    var description: String { "\(name)[\(pid)]" }
}
