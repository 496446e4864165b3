import Foundation
import Testing
@testable import ReceiptKit
import ReceiptPostgres
@testable import TestHelpers
@testable import TestSupport

/// Several worker processes on one PostgreSQL database, as several hosts would run them: real
/// processes (the queue helper with a stand-in processor, and `receipts worker` with real OCR),
/// a real PostgreSQL the tests start, SIGKILL and a server restart in the middle of a batch.
@Suite(.serialized, .enabled(if: PostgresTestServer.available, "PostgreSQL is not installed: see the message on stderr"))
struct PostgresWorkersTests {
    static var helperAvailable: Bool { FileManager.default.isExecutableFile(atPath: ReceiptsCLI.queueHelper.path) }

    /// One helper process: `--work URL DELAY WORKERS LEASE`.
    final class Worker: @unchecked Sendable {
        let process = Process()
        let output: CapturedOutput
        let errors: CapturedOutput

        init(_ url: String, delay: Double, workers: Int, lease: Double, wrapper: [String] = []) throws {
            output = try CapturedOutput()
            errors = try CapturedOutput()
            let command = [ReceiptsCLI.queueHelper.path, "--work", url, "\(delay)", "\(workers)", "\(lease)"]
            process.executableURL = URL(fileURLWithPath: wrapper.first ?? command[0])
            process.arguments = Array((wrapper + command).dropFirst())
            process.standardOutput = output.handle
            process.standardError = errors.handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        /// Waits for the process to end; one still running after `timeout` is killed and the test fails.
        func wait(timeout: TimeInterval = 120) async throws {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning, Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            if process.isRunning {
                Issue.record("a worker was still running after \(Int(timeout)) s: \(errors.text.suffix(500))")
                kill(process.processIdentifier, SIGKILL)
            }
            let process = self.process
            try await OffPool.run { process.waitUntilExit() }
        }

        /// (event, time, file) for each `start`/`end` line printed so far.
        var events: [(kind: String, time: Double, file: String)] {
            output.text.split(separator: "\n").compactMap { line in
                let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
                guard parts.count == 3, let time = Double(parts[1]) else { return nil }
                return (parts[0], time, parts[2])
            }
        }
    }

    /// Submits `count` stand-in receipts (`vendor;date;total`); every `badEvery`-th cannot be read.
    private func submit(_ count: Int, to url: String, badEvery: Int = 0) async throws -> Set<String> {
        let opened = try await OpenedStore.open(try StoreLocation(url), drivers: [PostgresStoreDriver()], logger: TestSupport.logger)
        defer { opened.close() }
        let pipeline = ReceiptPipeline(store: opened.store, images: opened.images, processor: ScriptedProcessor(),
                                       configuration: .init(workers: 1), logger: TestSupport.logger)
        var names: Set<String> = []
        for i in 0..<count {
            let name = String(format: "r%03d.jpg", i)
            let bytes = badEvery > 0 && i % badEvery == badEvery - 1
                ? "unreadable \(i)" : "Vendor \(i);2024-05-\(String(format: "%02d", i % 28 + 1));\(i).25"
            // A transient failure (a loaded server's answer past the store's limit) is tried again,
            // as the watched folder and the queue do; anything else fails the test.
            for attempt in 1... {
                do {
                    _ = try await pipeline.submit(imageData: Data(bytes.utf8), filename: name, as: .admin)
                    break
                } catch let error as ReceiptError where error.isTransient && attempt < 5 {
                    continue
                }
            }
            names.insert(name)
        }
        return names
    }

    /// Counts straight from the database, through psql (not through the code under test).
    private func counts(_ server: PostgresTestServer, _ url: String) async throws -> (statuses: [String: Int], expenses: Int, receiptsWithExpense: Int, mismatched: Int) {
        let database = String(url.split(separator: "/").last!.split(separator: "?").first!)
        var statuses: [String: Int] = [:]
        for line in try await server.psql(database, "SELECT ocr_status, count(*) FROM receipts.receipt GROUP BY ocr_status").split(separator: "\n") {
            let parts = line.split(separator: "|")
            if parts.count == 2, let n = Int(parts[1]) { statuses[String(parts[0])] = n }
        }
        let row = try await server.psql(database, """
            SELECT (SELECT count(*) FROM receipts.expense),
                   (SELECT count(DISTINCT receipt_id) FROM receipts.expense),
                   (SELECT count(*) FROM receipts.receipt r LEFT JOIN receipts.expense e ON e.receipt_id = r.id
                     WHERE r.ocr_status = 'completed' AND (e.id IS NULL OR r.expense_id IS DISTINCT FROM e.id))
            """).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").compactMap { Int($0) }
        return (statuses, row[0], row[1], row[2])
    }

    private func waitUntil(_ timeout: TimeInterval, _ condition: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if (try? condition()) == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("condition not met within \(timeout) s")
    }

    /// No receipt was in two workers' hands at once: per file, the [start, end] spans (a killed
    /// worker's unfinished one running to `killedAt`) do not overlap.
    private func expectNoOverlap(_ workers: [Worker], killed: Worker? = nil, killedAt: Double = .infinity) {
        var spans: [String: [(Double, Double)]] = [:]
        for worker in workers {
            var open: [String: Double] = [:]
            for event in worker.events {
                if event.kind == "start" { open[event.file] = event.time }
                if event.kind == "end", let start = open.removeValue(forKey: event.file) {
                    spans[event.file, default: []].append((start, event.time))
                }
            }
            for (file, start) in open {
                spans[file, default: []].append((start, worker === killed ? killedAt : .infinity))
            }
        }
        for (file, list) in spans {
            let sorted = list.sorted { $0.0 < $1.0 }
            for (a, b) in zip(sorted, sorted.dropFirst()) {
                #expect(a.1 <= b.0, "\(file) was in two workers' hands at once: \(sorted)")
            }
        }
    }

    @Test(.enabled(if: PostgresWorkersTests.helperAvailable))
    func threeWorkerProcessesShareOneQueueAndFinishEveryReceiptExactlyOnce() async throws {
        let server = try #require(await PostgresTestServer.shared())
        let url = try await server.freshDatabase()
        let names = try await submit(200, to: url, badEvery: 40)
        let workers = try (0..<3).map { _ in try Worker(url, delay: 0.05, workers: 2, lease: 30) }
        for worker in workers { try await worker.wait() }
        for worker in workers {
            #expect(worker.process.terminationStatus == 0, "worker failed: \(worker.errors.text.suffix(500))")
        }

        let result = try await counts(server, url)
        #expect(result.statuses == ["completed": 195, "failed": 5])
        #expect(result.expenses == 195)
        #expect(result.receiptsWithExpense == 195)
        #expect(result.mismatched == 0)
        // Each receipt was begun exactly once across the three processes, and the work was shared.
        let starts = workers.flatMap { $0.events.filter { $0.kind == "start" }.map(\.file) }
        #expect(starts.count == 200)
        #expect(Set(starts) == names)
        #expect(workers.filter { $0.events.contains { $0.kind == "start" } }.count >= 2,
                "one process took all 200: \(workers.map { $0.events.count })")
        expectNoOverlap(workers)
    }

    @Test(.enabled(if: PostgresWorkersTests.helperAvailable))
    func aWorkerKilledWithSIGKILLLeavesItsReceiptsToTheOthersAndNothingIsLostOrDoubled() async throws {
        let server = try #require(await PostgresTestServer.shared())
        let url = try await server.freshDatabase()
        let names = try await submit(200, to: url)
        // 2 s leases: the killed worker's receipts come back 2 s after its last renewal.
        let workers = try (0..<3).map { _ in try Worker(url, delay: 0.1, workers: 2, lease: 2) }
        let victim = workers[0]
        // Kill it while it holds a receipt: after five finished, at a moment one is begun and not ended.
        try await waitUntil(60) {
            let events = victim.events
            let open = Set(events.filter { $0.kind == "start" }.map(\.file)).subtracting(events.filter { $0.kind == "end" }.map(\.file))
            return events.filter { $0.kind == "end" }.count >= 5 && !open.isEmpty
        }
        kill(victim.process.processIdentifier, SIGKILL)
        let killedAt = Date().timeIntervalSince1970
        try await victim.wait()
        #expect(victim.process.terminationReason == .uncaughtSignal)
        let victimEvents = victim.events
        let inHand = Set(victimEvents.filter { $0.kind == "start" }.map(\.file))
            .subtracting(victimEvents.filter { $0.kind == "end" }.map(\.file))
        #expect(!inHand.isEmpty, "the kill should catch receipts in the victim's hands")

        for worker in workers.dropFirst() { try await worker.wait() }
        for worker in workers.dropFirst() {
            #expect(worker.process.terminationStatus == 0, "worker failed: \(worker.errors.text.suffix(500))")
        }
        let result = try await counts(server, url)
        #expect(result.statuses == ["completed": 200])
        #expect(result.expenses == 200)
        #expect(result.receiptsWithExpense == 200)
        #expect(result.mismatched == 0)
        // The survivors finished what the victim held.
        let survivorsStarted = Set(workers.dropFirst().flatMap { $0.events.filter { $0.kind == "start" }.map(\.file) })
        #expect(inHand.isSubset(of: survivorsStarted))
        #expect(survivorsStarted.union(victimEvents.map(\.file)) == names)
        expectNoOverlap(workers, killed: victim, killedAt: killedAt)
    }

    @Test(.enabled(if: PostgresWorkersTests.helperAvailable))
    func workersCarryOnWhenPostgreSQLRestartsMidBatch() async throws {
        // A server of this test's own: restarting the shared one would cut the other tests' connections.
        let server = try await PostgresTestServer.started()
        defer { server.stop() }
        let url = try await server.freshDatabase()
        _ = try await submit(200, to: url)
        let workers = try (0..<2).map { _ in try Worker(url, delay: 0.05, workers: 2, lease: 10) }
        try await waitUntil(60) { workers.map { $0.events.filter { $0.kind == "end" }.count }.reduce(0, +) >= 40 }
        try await server.restart()
        let afterRestart = workers.map { $0.events.count }
        for worker in workers { try await worker.wait() }
        for worker in workers {
            #expect(worker.process.terminationStatus == 0, "worker failed: \(worker.errors.text.suffix(500))")
        }
        // They went on working after the restart, and the result is whole.
        #expect(zip(workers, afterRestart).map { $0.events.count - $1 }.reduce(0, +) > 0)
        let result = try await counts(server, url)
        #expect(result.statuses == ["completed": 200])
        #expect(result.expenses == 200)
        #expect(result.receiptsWithExpense == 200)
        #expect(result.mismatched == 0)
        expectNoOverlap(workers)
    }

    @Test(.enabled(if: PostgresWorkersTests.helperAvailable),
          .enabled(if: NetworkNamespace.permitted, "this machine does not allow network namespaces (ip netns): two-host test skipped"))
    func workersOnTwoHostsReachPostgreSQLOverAVirtualLink() async throws {
        // Two "hosts": network namespaces of their own, each joined to this one by a veth pair, and
        // a server listening only on this side's ends of the links (not on their loopback).
        let octet = Int.random(in: 16...250)
        let hosts = try await OffPool.run {
            try [0, 1].map { try NetworkNamespace(name: "receipts-\(getpid())-\($0)", subnet: "10.\(octet).\($0)") }
        }
        defer { hosts.forEach { $0.remove() } }
        let server = try await PostgresTestServer.started(listenAddresses: hosts.map(\.hostAddress))
        defer { server.stop() }
        let database = try await server.freshDatabase(host: hosts[0].hostAddress)
        let names = try await submit(120, to: database)
        let workers = try hosts.map { host in
            try Worker(server.url(database: String(database.split(separator: "/").last!.split(separator: "?").first!), host: host.hostAddress),
                       delay: 0.05, workers: 2, lease: 30, wrapper: ["/usr/sbin/ip", "netns", "exec", host.name])
        }
        for worker in workers { try await worker.wait() }
        for worker in workers {
            #expect(worker.process.terminationStatus == 0, "worker failed: \(worker.errors.text.suffix(500))")
        }
        let result = try await counts(server, database)
        #expect(result.statuses == ["completed": 120])
        #expect(result.expenses == 120)
        let starts = workers.map { $0.events.filter { $0.kind == "start" }.map(\.file) }
        #expect(starts.joined().count == 120)
        #expect(Set(starts.joined()) == names)
        #expect(starts.allSatisfy { !$0.isEmpty }, "both hosts should have worked: \(starts.map(\.count))")
        expectNoOverlap(workers)
    }
}

/// A network namespace joined to the test's own by a veth pair: `subnet.1` on this side,
/// `subnet.2` inside. Needs root (CAP_NET_ADMIN); `permitted` says whether this machine allows it.
final class NetworkNamespace: Sendable {
    let name: String
    let hostAddress: String
    let innerAddress: String

    static let permitted: Bool = {
        let name = "receipts-probe-\(getpid())"
        guard (try? PostgresTestServer.run("/usr/sbin/ip", ["netns", "add", name])) != nil else { return false }
        _ = try? PostgresTestServer.run("/usr/sbin/ip", ["netns", "del", name])
        return true
    }()

    init(name: String, subnet: String) throws {
        self.name = name
        hostAddress = subnet + ".1"
        innerAddress = subnet + ".2"
        let outside = "rv\(abs(name.hashValue) % 100_000)h", inside = "rv\(abs(name.hashValue) % 100_000)n"
        let ip = "/usr/sbin/ip"
        try PostgresTestServer.run(ip, ["netns", "add", name])
        do {
            try PostgresTestServer.run(ip, ["link", "add", outside, "type", "veth", "peer", "name", inside])
            try PostgresTestServer.run(ip, ["link", "set", inside, "netns", name])
            try PostgresTestServer.run(ip, ["addr", "add", hostAddress + "/24", "dev", outside])
            try PostgresTestServer.run(ip, ["link", "set", outside, "up"])
            try PostgresTestServer.run(ip, ["netns", "exec", name, ip, "addr", "add", innerAddress + "/24", "dev", inside])
            try PostgresTestServer.run(ip, ["netns", "exec", name, ip, "link", "set", inside, "up"])
            try PostgresTestServer.run(ip, ["netns", "exec", name, ip, "link", "set", "lo", "up"])
        } catch {
            remove()
            throw error
        }
    }

    /// Deletes the namespace (and with it the veth pair).
    func remove() {
        _ = try? PostgresTestServer.run("/usr/sbin/ip", ["netns", "del", name])
    }
}
