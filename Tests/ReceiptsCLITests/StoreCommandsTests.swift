import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// Runs the real `receipts` binary's store commands on a store filled through the pipeline.
@Suite struct StoreCommandsTests {
    private func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, out: String, err: String) {
        let result = try await ReceiptsCLI.run(arguments, environment: environment)
        return (result.status, result.out, result.err)
    }

    private func filledStore(_ dir: TemporaryDirectory) async throws -> [ReceiptOutcome] {
        let pipeline = try TestSupport.pipeline(dir)
        let files = [
            try dir.write("a.jpg", ScriptedProcessor.image(vendor: "Smith, \"Jones\" & Co", date: "2024-04-10", total: "0.10",
                                                           category: "Maintenance")),
            try dir.write("b.jpg", ScriptedProcessor.image(vendor: "Shell", date: "2024-05-01", total: "1234.56")),
            try dir.write("c.jpg", Data("junk".utf8)),
        ]
        var outcomes: [ReceiptOutcome] = []
        for try await outcome in pipeline.process(files: files, as: .admin) { outcomes.append(outcome) }
        return outcomes.sorted { $0.source < $1.source }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: ReceiptsCLI.binary.path)))
    func listExpensesExportShowAndRetryWorkOnTheStore() async throws {
        let dir = try TemporaryDirectory()
        let outcomes = try await filledStore(dir)
        let store = ["--store", dir.storePath]

        let list = try await run(["list", "--format", "ndjson"] + store)
        #expect(list.status == 0)
        let records = try list.out.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(records.count == 3)
        #expect(records.allSatisfy { r in ["id", "filePath", "contentHash", "ocrStatus", "lastError"].allSatisfy { r[$0] != nil } })
        let failed = try await run(["list", "--status", "failed", "--format", "json"] + store)
        #expect(try JSONValue.parse(failed.out).arrayValue?.count == 1)

        let expenses = try await run(["expenses", "--from", "2024-04-01", "--to", "2024-04-30", "--format", "ndjson"] + store)
        let expenseRecords = try expenses.out.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(expenseRecords.count == 1)
        #expect(expenseRecords[0]["receiptId"]?.stringValue == outcomes[0].receipt.id.uuidString.lowercased())
        #expect(expenseRecords[0]["amount"] == .number("0.1"))

        let csv = try await run(["export", "--format", "csv"] + store)
        #expect(csv.status == 0)
        let lines = csv.out.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("date,vendor,category,amount,currency,taxAmount"))
        // Money by the currency's minor units (issue 29, item 4).
        #expect(lines[1].hasPrefix("2024-04-10,\"Smith, \"\"Jones\"\" & Co\",Maintenance,0.10,GBP"))
        #expect(lines[2].contains(",1234.56,"))
        #expect(lines[2].contains(outcomes[1].source))

        let prefix = String(outcomes[2].receipt.id.uuidString.lowercased().prefix(8))
        let show = try await run(["show", prefix] + store)
        let shown = try JSONValue.parse(show.out)
        #expect(shown["ocrStatus"] == .string("failed"))
        #expect(shown["lastError"]?.stringValue?.contains("c.jpg") == true)

        let notFailed = try await run(["retry", String(outcomes[0].receipt.id.uuidString.prefix(8))] + store)
        #expect(notFailed.status != 0)
        #expect(notFailed.err.contains("not failed"))
        let retry = try await run(["retry", "--failed"] + store)
        #expect(retry.status == 0)
        #expect(retry.out.trimmingCharacters(in: .whitespacesAndNewlines) == outcomes[2].receipt.id.uuidString.lowercased())
        let pending = try await run(["list", "--status", "pending", "--format", "csv"] + store)
        #expect(pending.out.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 2)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: ReceiptsCLI.binary.path)))
    func theStoreLocationFollowsFlagThenEnvironmentThenXDG() async throws {
        let dir = try TemporaryDirectory()
        _ = try await run(["list"], environment: ["XDG_DATA_HOME": dir.path("xdg"), "HOME": dir.path("home")])
        #expect(FileManager.default.fileExists(atPath: dir.path("xdg/receipts/receipts.sqlite")))
        _ = try await run(["list"], environment: ["HOME": dir.path("home"), "XDG_DATA_HOME": ""])
        #expect(FileManager.default.fileExists(atPath: dir.path("home/.local/share/receipts/receipts.sqlite")))
        _ = try await run(["list"], environment: ["RECEIPTS_STORE": dir.path("env.sqlite"), "XDG_DATA_HOME": dir.path("xdg2")])
        #expect(FileManager.default.fileExists(atPath: dir.path("env.sqlite")))
        #expect(!FileManager.default.fileExists(atPath: dir.path("xdg2")))
        _ = try await run(["list", "--store", dir.path("flag.sqlite")], environment: ["RECEIPTS_STORE": dir.path("env2.sqlite")])
        #expect(FileManager.default.fileExists(atPath: dir.path("flag.sqlite")))
        #expect(!FileManager.default.fileExists(atPath: dir.path("env2.sqlite")))

        let help = try await run(["list", "--help"])
        #expect(help.out.contains("RECEIPTS_STORE"))
        #expect(help.out.contains("XDG_DATA_HOME"))

        let corrupt = try dir.write("bad.sqlite", Data(repeating: 7, count: 2048))
        let failure = try await run(["list", "--store", corrupt])
        #expect(failure.status != 0)
        #expect(failure.err.contains(corrupt))
        #expect(failure.err.contains("move it aside"))
    }
}
