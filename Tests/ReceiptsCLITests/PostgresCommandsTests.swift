import Foundation
import Testing
@testable import ReceiptKit
import ReceiptPostgres
@testable import TestHelpers
@testable import TestSupport

/// The `receipts` tool on a PostgreSQL store: real OCR read by `receipts worker` processes,
/// `receipts store migrate` from a store made by `receipts process`, and a password that never shows.
@Suite(.serialized, .enabled(if: PostgresTestServer.available, "PostgreSQL is not installed: see the message on stderr"),
       .enabled(if: FileManager.default.isExecutableFile(atPath: ReceiptsCLI.binary.path)))
struct PostgresCommandsTests {
    static let receipts = ["uk-fuel-unleaded.jpg", "uk-fuel-diesel.png", "scan-a4-pub.jpg", "de-tankstelle.jpg"]

    private func expectedTotal(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: ReceiptsCLI.testReceipt((name as NSString).deletingPathExtension + ".expected.json"))
        return try #require(try JSONValue.parse(String(decoding: Data(contentsOf: url), as: UTF8.self))["total"]?.stringValue)
    }

    private func startWorker(_ url: String) throws -> (Process, CapturedOutput) {
        let process = Process()
        let errors = try CapturedOutput()
        process.executableURL = ReceiptsCLI.binary
        process.environment = ReceiptsCLI.environment()
        process.arguments = ["worker", "--store", url, "--workers", "1", "-vv"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors.handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, errors)
    }

    @Test func realReceiptsSubmittedAnywhereAreReadByReceiptsWorkerProcessesThatStopCleanly() async throws {
        let server = try #require(await PostgresTestServer.shared())
        let url = try await server.freshDatabase()
        // Submitted through the library (no workers here): the images go into the database.
        let opened = try await OpenedStore.open(try StoreLocation(url), drivers: [PostgresStoreDriver()], logger: TestSupport.logger)
        defer { opened.close() }
        let pipeline = ReceiptPipeline(store: opened.store, images: opened.images, processor: ScriptedProcessor(),
                                       configuration: .init(workers: 1), logger: TestSupport.logger)
        var ids: [UUID: String] = [:]
        for name in Self.receipts {
            ids[try await pipeline.submit(imageAt: ReceiptsCLI.testReceipt(name), as: .admin).id] = name
        }

        let workers = try (0..<2).map { _ in try startWorker(url) }
        let deadline = Date().addingTimeInterval(180)
        while Date() < deadline, (try await opened.store.statusCounts(in: .everyone)[.completed] ?? 0) < Self.receipts.count {
            try await Task.sleep(for: .milliseconds(100))
        }
        for (process, _) in workers { kill(process.processIdentifier, SIGTERM) }
        for (process, _) in workers { try await OffPool.run { process.waitUntilExit() } }

        for (process, errors) in workers {
            #expect(process.terminationStatus == 0, "\(errors.text.suffix(800))")
            #expect(errors.text.hasPrefix("receipts worker: 1 workers on postgres://\(PostgresTestServer.user):***@127.0.0.1:\(server.port)/"))
            #expect(errors.text.contains("receipts worker: stopped"))
            #expect(!errors.text.contains(PostgresTestServer.password), "the password was printed")
        }
        // Each receipt read once, by one of the workers, with the right total.
        let logs = workers.map { $0.1.text }.joined()
        for (id, name) in ids {
            let receipt = try #require(try await opened.store.receipt(id: id, in: .everyone))
            #expect(receipt.ocrStatus == .completed, "\(name): \(receipt.lastError ?? "")")
            #expect(receipt.attempts == 1, "\(name) was read \(receipt.attempts) times")
            let expense = try #require(try await opened.store.expense(receiptId: id, in: .everyone))
            #expect(expense.amount == Decimal(string: try expectedTotal(name)), "\(name)")
            #expect(logs.contains(id.uuidString) || logs.contains(id.uuidString.lowercased()), "no worker logged \(name)")
        }
    }

    @Test func storeMigrateCopiesAProcessedSQLiteStoreSoListAndExpensesReadTheSame() async throws {
        let server = try #require(await PostgresTestServer.shared())
        let dir = try TemporaryDirectory()
        let sqlite = dir.storePath
        let files = Self.receipts.prefix(3).map(ReceiptsCLI.testReceipt) + [ReceiptsCLI.testReceipt("bad/truncated.jpg")]
        let processed = try await ReceiptsCLI.run(["process"] + files + ["--store", sqlite, "--format", "ndjson"],
                                                  environment: ["OMP_THREAD_LIMIT": "1"])
        #expect(processed.out.split(separator: "\n").count == 4)

        let url = try await server.freshDatabase()
        let migrated = try await ReceiptsCLI.run(["store", "migrate", "--from", sqlite, "--to", url])
        #expect(migrated.status == 0, "\(migrated.err)")
        #expect(migrated.err.contains("4 receipts copied"), "\(migrated.err)")
        #expect(!migrated.err.contains(PostgresTestServer.password))

        // (command, lines it prints: a CSV header and a row per receipt or expense, or one NDJSON record)
        let commands: [([String], Int)] = [(["list", "--format", "csv"], 5), (["expenses", "--format", "csv"], 4),
                                           (["list", "--status", "failed", "--format", "ndjson"], 1)]
        for (command, lines) in commands {
            let before = try await ReceiptsCLI.run(command + ["--store", sqlite])
            let after = try await ReceiptsCLI.run(command + ["--store", url])
            #expect(before.status == 0 && after.status == 0, "\(before.err) \(after.err)")
            #expect(before.out.split(whereSeparator: \.isNewline).count == lines, "\(command): \(before.out)")
            #expect(after.out == before.out, "\(command) differs after migrate")
        }

        // Again: nothing new is copied.
        let again = try await ReceiptsCLI.run(["store", "migrate", "--from", sqlite, "--to", url])
        #expect(again.status == 0)
        #expect(again.err.contains("0 receipts copied"), "\(again.err)")
        #expect(again.err.contains("4 already there"), "\(again.err)")

        // The images came along: the migrated store can read the failed receipt again.
        let opened = try await OpenedStore.open(try StoreLocation(url), drivers: [PostgresStoreDriver()], logger: TestSupport.logger)
        defer { opened.close() }
        for receipt in try await opened.store.receipts(ReceiptQuery(), in: .everyone) {
            let reference = try #require(try await opened.store.imagePath(ofReceipt: receipt.id, in: .everyone), "\(receipt.filePath)")
            let bytes = try await opened.images.load(reference)
            #expect(bytes == (try Data(contentsOf: URL(fileURLWithPath: receipt.filePath))), "\(receipt.filePath)")
        }
    }

    @Test func thePasswordNeverShowsInErrorsHelpOrLogs() async throws {
        let server = try #require(await PostgresTestServer.shared())
        let secret = "Wr0ng-pass-7731"
        let wrongPassword = "postgres://\(PostgresTestServer.user):\(secret)@127.0.0.1:\(server.port)/postgres?sslmode=disable"
        let refused = "postgres://\(PostgresTestServer.user):\(secret)@127.0.0.1:\(PostgresTestServer.freePort())/postgres?sslmode=disable"
        for (arguments, cause) in [(["list", "--store", wrongPassword], "password"),
                                   (["worker", "--store", refused, "-vv"], "refused"),
                                   (["store", "migrate", "--from", "/nonexistent/receipts.sqlite", "--to", wrongPassword], "no store")] {
            let result = try await ReceiptsCLI.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(!(result.out + result.err).contains(secret), "\(arguments[0]) printed the password: \(result.err)")
            #expect(result.err.localizedCaseInsensitiveContains(cause), "\(arguments[0]): \(result.err)")
        }
        // The environment's store is not echoed by --help either.
        let help = try await ReceiptsCLI.run(["worker", "--help"], environment: ["RECEIPTS_STORE": wrongPassword])
        #expect(help.status == 0)
        #expect(help.out.contains("--store"))
        #expect(!help.out.contains(secret))
    }
}
