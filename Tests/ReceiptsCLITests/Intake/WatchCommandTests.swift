import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers

/// The real `receipts watch` binary on real receipt images (TestReceipts/) in a temporary folder:
/// real Tesseract, a real SQLite store, real signals.
@Suite(.serialized) struct WatchCommandTests {
    static var binary: URL { ReceiptsCLI.binary }

    static var testReceipts: URL { ReceiptsCLI.repositoryRoot.appendingPathComponent("TestReceipts") }

    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: binary.path)
            && FileManager.default.fileExists(atPath: testReceipts.appendingPathComponent("us-diner.jpg").path)
    }

    static let images = ["uk-fuel-unleaded.jpg", "us-diner.jpg", "uk-parking.jpg", "de-tankstelle.jpg",
                         "us-auto-parts.jpg", "uk-insurance.jpg", "photo-lowres-carwash.jpg", "uk-supermarket.jpg"]

    struct Run {
        let process: Process
        let stderr: CapturedOutput
        func errorText() -> String { stderr.text }
    }

    private func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["watch"] + arguments
        process.environment = ReceiptsCLI.environment(environment)
        let err = try CapturedOutput()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err.handle
        try process.run()
        return Run(process: process, stderr: err)
    }

    /// Waits for the process to exit; false when it is still running after `timeout` seconds.
    private func exited(_ process: Process, within timeout: Double) async throws -> Bool {
        try await eventually(timeout: timeout) { !process.isRunning }
    }

    private func copy(_ names: [String], to inbox: String, as rename: [String: String] = [:]) throws {
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        for name in names {
            try FileManager.default.copyItem(at: Self.testReceipts.appendingPathComponent(name),
                                             to: URL(fileURLWithPath: inbox + "/" + (rename[name] ?? name)))
        }
    }

    private func storedReceipts(_ storePath: String) async throws -> [Receipt] {
        try await SQLiteReceiptStore(path: storePath).receipts(ReceiptQuery(), in: .everyone)
    }

    private func names(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test(.enabled(if: WatchCommandTests.available, "needs the receipts binary and TestReceipts/"))
    func onceFilesRealReceiptsADuplicateAndABrokenFileThenExitsWithOne() async throws {
        let dir = try TemporaryDirectory()
        let inbox = dir.path("inbox"), store = dir.storePath
        try copy(["uk-fuel-unleaded.jpg", "us-diner.jpg"], to: inbox)
        try copy(["us-diner.jpg"], to: inbox, as: ["us-diner.jpg": "zz-copy-of-diner.jpg"])
        try FileManager.default.copyItem(at: Self.testReceipts.appendingPathComponent("bad/truncated.jpg"),
                                         to: URL(fileURLWithPath: inbox + "/truncated.jpg"))
        let run = try start([inbox, "--store", store, "--once", "--stable", "0.3"])
        #expect(try await exited(run.process, within: 120))
        let log = run.errorText()
        #expect(run.process.terminationStatus == 1, "a failed file makes --once exit with 1")
        #expect(names(inbox) == ["failed", "processed"])
        #expect(names(inbox + "/processed") == ["uk-fuel-unleaded.jpg", "uk-fuel-unleaded.json", "us-diner.jpg", "us-diner.json",
                                                "zz-copy-of-diner.jpg", "zz-copy-of-diner.json"])
        #expect(names(inbox + "/failed") == ["truncated.error.txt", "truncated.jpg"])
        let error = try String(contentsOfFile: inbox + "/failed/truncated.error.txt", encoding: .utf8)
        #expect(error.hasPrefix(inbox + "/truncated.jpg: "))
        #expect(error.split(separator: "\n").count == 1)

        let diner = try JSONValue.parse(String(contentsOfFile: inbox + "/processed/us-diner.json", encoding: .utf8))
        let copy = try JSONValue.parse(String(contentsOfFile: inbox + "/processed/zz-copy-of-diner.json", encoding: .utf8))
        #expect(diner["ocrStatus"]?.stringValue == "completed")
        #expect(diner["expense"]?["receiptId"] == diner["receiptId"])
        #expect([diner, copy].filter { $0["duplicate"]?.boolValue == true }.count == 1)
        #expect(copy["receiptId"] == diner["receiptId"])
        #expect(log.components(separatedBy: "Receipt filed").count - 1 == 4, "\(log)")
        #expect(log.contains("receipt.status=duplicate"))

        let receipts = try await storedReceipts(store)
        #expect(receipts.count == 3, "the duplicate was stored again")
        #expect(receipts.filter { $0.ocrStatus == .completed }.count == 2)
    }

    @Test(.enabled(if: WatchCommandTests.available, "needs the receipts binary and TestReceipts/"))
    func anIPhonePhotoInHEICAndAnEmailedPDFAreTakenAndFiledWithTheirExpenses() async throws {
        let dir = try TemporaryDirectory()
        let inbox = dir.path("inbox")
        try copy(["iphone-autospares.heic", "email-fuel-card.pdf"], to: inbox, as: ["iphone-autospares.heic": "IMG_0042.HEIC"])
        let run = try start([inbox, "--store", dir.storePath, "--once", "--stable", "0.3"])
        #expect(try await exited(run.process, within: 120))
        #expect(run.process.terminationStatus == 0, "\(run.errorText())")
        #expect(names(inbox + "/processed") == ["IMG_0042.HEIC", "IMG_0042.json", "email-fuel-card.json", "email-fuel-card.pdf"])
        let photo = try JSONValue.parse(String(contentsOfFile: inbox + "/processed/IMG_0042.json", encoding: .utf8))
        #expect(photo["ocrStatus"]?.stringValue == "completed")
        #expect(photo["analysis"]?["vendor"]?.stringValue == "NORTHGATE AUTOSPARES")
        #expect(photo["expense"]?["amount"]?.doubleValue == 45.45)
        let pdf = try JSONValue.parse(String(contentsOfFile: inbox + "/processed/email-fuel-card.json", encoding: .utf8))
        #expect(pdf["expense"]?["amount"]?.doubleValue == 63.00)
        #expect(pdf["expense"]?["category"]?.stringValue == "Fuel")
    }

    @Test(.enabled(if: WatchCommandTests.available, "needs the receipts binary and TestReceipts/"))
    func sigtermDuringProcessingThenARestartProcessesEachFileOnce() async throws {
        try await stopMidwayThenRestart(signal: SIGTERM)
    }

    @Test(.enabled(if: WatchCommandTests.available, "needs the receipts binary and TestReceipts/"))
    func sigkillDuringProcessingThenARestartProcessesEachFileOnce() async throws {
        try await stopMidwayThenRestart(signal: SIGKILL)
    }

    private func stopMidwayThenRestart(signal: Int32) async throws {
        let dir = try TemporaryDirectory()
        let inbox = dir.path("inbox"), store = dir.storePath
        try copy(Self.images, to: inbox)
        let first = try start([inbox, "--store", store, "--stable", "0.2", "--workers", "1"])
        #expect(try await eventually(timeout: 120) { !names(inbox + "/processed").isEmpty })
        kill(first.process.processIdentifier, signal)
        // It stops once the receipt being read is done (a few seconds; more on a loaded machine).
        let stopped = try await exited(first.process, within: 30)
        #expect(stopped, "did not stop once the receipt it was reading was done")
        if !stopped { kill(first.process.processIdentifier, SIGKILL); first.process.waitUntilExit() }
        if signal == SIGTERM && stopped {
            #expect(first.process.terminationStatus == 0, "\(first.errorText())")
        }
        let left = names(inbox).filter { $0.hasSuffix(".jpg") }
        #expect(!left.isEmpty, "everything was done before the signal; the test proves nothing")
        // Nothing half-written: each image filed has its sidecar (or, after SIGKILL, at most one
        // image is still waiting in the inbox beside its sidecar).
        for name in names(inbox + "/processed") where name.hasSuffix(".jpg") {
            #expect(FileManager.default.fileExists(atPath: inbox + "/processed/" + name.dropLast(4) + ".json"))
        }

        let second = try start([inbox, "--store", store, "--stable", "0.2", "--once"])
        #expect(try await exited(second.process, within: 180))
        #expect(second.process.terminationStatus == 0, "\(second.errorText())")
        #expect(names(inbox) == ["failed", "processed"])
        let expected = Self.images.flatMap { [$0, String($0.dropLast(4)) + ".json"] }.sorted()
        #expect(names(inbox + "/processed") == expected, "a file was filed twice or lost")
        let receipts = try await storedReceipts(store)
        #expect(receipts.count == Self.images.count)
        #expect(receipts.allSatisfy { $0.ocrStatus == .completed })
        if signal == SIGTERM {
            #expect(receipts.allSatisfy { $0.attempts == 1 }, "a receipt was read twice: \(receipts.map(\.attempts))")
        }
        for image in Self.images {
            let record = try JSONValue.parse(String(contentsOfFile: inbox + "/processed/" + image.dropLast(4) + ".json", encoding: .utf8))
            #expect(record["duplicate"]?.boolValue == false)
            #expect(record["file"]?.stringValue == FolderWatcher.absolute(inbox) + "/processed/" + image)
        }
    }

    @Test(.enabled(if: WatchCommandTests.available, "needs the receipts binary"))
    func aMissingFolderIsAUsageError() throws {
        let dir = try TemporaryDirectory()
        let run = try start([dir.path("nowhere"), "--store", dir.storePath, "--once"])
        run.process.waitUntilExit()
        #expect(run.process.terminationStatus == 2)
        #expect(run.errorText().contains("nowhere: no such folder"))
    }
}
