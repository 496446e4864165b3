import Foundation
import GRDB
import Testing
@testable import ReceiptKit
@testable import TestHelpers

/// Kills a real process with SIGKILL in the middle of a batch, then runs the batch again.
@Suite struct CrashRecoveryTests {
    static var helper: URL { ReceiptsCLI.queueHelper }

    private func start(_ arguments: [String], output: CapturedOutput) throws -> Process {
        let process = Process()
        process.executableURL = Self.helper
        process.arguments = arguments
        process.standardOutput = output.handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    private static func counts(_ path: String) throws -> [String: Int] {
        let db = try DatabaseQueue(path: path, configuration: { var c = Configuration(); c.readonly = true; return c }())
        return try db.read { db in
            var result: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT ocrStatus, count(*) AS n FROM receipt GROUP BY ocrStatus") {
                result[row["ocrStatus"]] = row["n"]
            }
            return result
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.helper.path)))
    func aBatchKilledWithSIGKILLLosesNothingAndFinishesExactlyOnceOnTheNextRun() async throws {
        let dir = try TemporaryDirectory()
        let count = 40
        for i in 0..<count {
            try dir.write(String(format: "in/r%02d.jpg", i), Data("Vendor \(i);2024-04-\(String(format: "%02d", i % 28 + 1));\(i).99".utf8))
        }
        let store = dir.storePath
        // 0.8 s a receipt: the batch takes 16 s, so the kill lands mid-batch even when other tests
        // keep both cores busy and this test's polling runs late (at 0.4 s a whole batch once
        // finished before a loaded machine polled).
        let arguments = [store, dir.path("in"), "0.8", "2"]

        let firstOutput = try CapturedOutput()
        let first = try start(arguments, output: firstOutput)
        // Let it finish a few receipts, then kill it without warning while it holds some: wait for one
        // look that shows both, since a look just after a completion can fall in the moment before
        // the workers claim their next receipts.
        // The looks and the kill run on a thread of their own: on a loaded machine the cooperative
        // pool can be busy for longer than the whole batch, and a look or a kill that comes late
        // finds it finished.
        let pid = first.processIdentifier
        let looks = try await OffPool.run { [store] () -> [String] in
            let deadline = Date().addingTimeInterval(60)
            var looks: [String] = []
            while Date() < deadline {
                if FileManager.default.fileExists(atPath: store) {
                    do {
                        let now = try Self.counts(store)
                        if looks.last != "\(now)" { looks.append("\(now)") }
                        if (now["completed"] ?? 0) >= 6, (now["processing"] ?? 0) > 0 { break }
                    } catch {
                        if looks.last != "\(error)" { looks.append("\(error)") }
                    }
                }
                usleep(20_000)
            }
            kill(pid, SIGKILL)
            return looks
        }
        try await OffPool.run { first.waitUntilExit() }
        #expect(first.terminationReason == .uncaughtSignal)
        let atCrash = try Self.counts(store)
        #expect((atCrash["completed"] ?? 0) >= 6)
        #expect((atCrash["completed"] ?? 0) < count)
        #expect((atCrash["processing"] ?? 0) > 0, "the kill should catch receipts in hand: \(atCrash); what the test saw: \(looks.suffix(12))")

        let secondOutput = try CapturedOutput()
        let started = Date()
        let second = try start(arguments, output: secondOutput)
        try await OffPool.run { second.waitUntilExit() }
        let data = secondOutput.data
        #expect(second.terminationStatus == 0)
        // Receipts held by the killed process are taken back at once (its process is gone), not
        // after the 60 s lease.
        #expect(Date().timeIntervalSince(started) < 45)

        let records = try String(decoding: data, as: UTF8.self).split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(records.count == count)
        #expect(records.allSatisfy { $0["ocrStatus"] == .string("completed") })
        #expect(Set(records.compactMap { $0["receiptId"]?.stringValue }).count == count)

        let db = try DatabaseQueue(path: store)
        let (receipts, completed, expenses, distinctReceiptsWithExpense, mismatched) = try await db.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM receipt")!,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM receipt WHERE ocrStatus = 'completed'")!,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM expense")!,
             try Int.fetchOne(db, sql: "SELECT count(DISTINCT receiptId) FROM expense")!,
             try Int.fetchOne(db, sql: """
                SELECT count(*) FROM receipt r LEFT JOIN expense e ON e.receiptId = r.id
                WHERE e.id IS NULL OR r.expenseId != e.id
                """)!)
        }
        #expect(receipts == count)
        #expect(completed == count)
        #expect(expenses == count)
        #expect(distinctReceiptsWithExpense == count)
        #expect(mismatched == 0)
        // Nothing was flagged as a duplicate purchase: every receipt was drafted once.
        let flagged = try await db.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM expense WHERE possibleDuplicateOf IS NOT NULL")! }
        #expect(flagged == 0)
    }
}
