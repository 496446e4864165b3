import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// Stopping, crashing and starting again: every file is filed exactly once and read at most once.
@Suite struct IntakeRestartTests {
    @Test func gracefulShutdownDuringProcessingThenRestartFilesEachFileOnce() async throws {
        let h = try IntakeHarness()
        var contents: [Data] = []
        for index in 0..<12 {
            let data = ScriptedProcessor.image(vendor: "Slow \(index)", delay: 0.4)
            contents.append(data)
            try h.drop("slow-\(index).jpg", data)
        }
        let first = try h.start(workers: 2) { $0.maxInFlight = 4; $0.shutdownGrace = 0.2 }
        #expect(try await eventually { h.names(in: "processed").count >= 2 })
        let stopped = ContinuousClock.now
        try await first.stop()
        // Reading the rest would take 2.4 s more and a hang forever; the bound leaves room for a
        // loaded machine (whether the stop waited for everything is the next check's).
        #expect(ContinuousClock.now - stopped < .seconds(15 * testTimeScale), "shutdown took too long")
        let filedBefore = h.names(in: "processed").count / 2
        #expect(filedBefore < 12, "everything was done before the stop; the test proves nothing")
        // Nothing half-written: every image filed has its sidecar, the rest are still in the inbox.
        #expect(h.names(in: "").filter { $0.hasSuffix(".jpg") }.count + filedBefore == 12)

        let second = try h.start(workers: 2)
        #expect(try await eventually(timeout: 30) { h.names(in: "processed").count == 24 })
        try await second.stop()
        let expected = (0..<12).flatMap { ["slow-\($0).jpg", "slow-\($0).json"] }.sorted()
        #expect(h.names(in: "processed") == expected, "a file was filed twice, or under another name")
        for data in contents { #expect(h.processor.calls(for: data) == 1, "a receipt was read twice") }
        let receipts = try await second.pipeline.scoped(to: .administrator()).receipts()
        #expect(receipts.count == 12)
        #expect(receipts.allSatisfy { $0.ocrStatus == .completed })
    }

    @Test func receiptsStuckInFlightDoNotHoldUpAStopAndStayPendingWithTheirFiles() async throws {
        let h = try IntakeHarness()
        for index in 0..<3 { try h.drop("stuck-\(index).jpg", ScriptedProcessor.image(vendor: "Stuck \(index)", delay: 60)) }
        let capture = LogCapture()
        let running = try h.start(workers: 2, logger: capture.logger, shutdownLimit: .seconds(3)) {
            $0.maxInFlight = 2
            $0.shutdownGrace = 0.5
        }
        #expect(try await eventually { h.processor.totalCalls == 2 })
        let stopped = ContinuousClock.now
        let stopping = Task { try await running.stop() }
        // The intake lets go after its grace (0.5 s), though every slot waits on a receipt that takes
        // a minute (the bound leaves room for a loaded machine's late timers, far below the minute)…
        #expect(try await eventually(timeout: 20) { capture.lines.contains { $0.contains("Intake stopped") } })
        // … and the workers are cancelled at the group's limit: the receipts go back to pending.
        try await stopping.value
        // The stuck receipts take a minute; the group's limit is 3 s (room left for a loaded machine).
        #expect(ContinuousClock.now - stopped < .seconds(30), "a stuck receipt held up the stop")
        #expect(h.names(in: "") == ["failed", "processed", "stuck-0.jpg", "stuck-1.jpg", "stuck-2.jpg"])
        let receipts = try await running.pipeline.scoped(to: .administrator()).receipts()
        #expect(receipts.count == 2)
        #expect(receipts.allSatisfy { $0.ocrStatus == .pending }, "\(receipts.map(\.ocrStatus))")
    }

    @Test func aCrashAfterCompletionBeforeTheMoveIsFiledOnTheNextStartWithoutReadingAgain() async throws {
        let h = try IntakeHarness()
        let bytes = ScriptedProcessor.image(vendor: "Completed Before Crash", total: "8.80")
        let path = try h.drop("crash.jpg", bytes)
        let sidecarBytes = ScriptedProcessor.image(vendor: "Sidecar Written", total: "1.10")
        let withSidecar = try h.drop("half.jpg", sidecarBytes)
        // A run that completed both receipts and died before moving them (and, for half.jpg,
        // after writing its sidecar).
        let earlier = try TestSupport.pipeline(h.dir, processor: h.processor)
        var outcomes: [ReceiptOutcome] = []
        for try await outcome in earlier.process(files: [path, withSidecar], as: .admin) { outcomes.append(outcome) }
        #expect(outcomes.allSatisfy { $0.receipt.ocrStatus == .completed })
        let half = try #require(outcomes.first { $0.source == withSidecar })
        try FileManager.default.createDirectory(atPath: h.processed, withIntermediateDirectories: true)
        let filing = IntakeService.filing(half, file: WatchedFile(path: withSidecar, relativePath: "half.jpg",
                                                                 signature: FileSignature(size: 0, modified: 0, inode: 0)))
        guard case let .processed(halfRecord, _) = filing else { Issue.record("not filed as processed"); return }
        try Data((halfRecord.serialized() + "\n").utf8).write(to: URL(fileURLWithPath: h.processed + "/half.json"))
        #expect(h.processor.totalCalls == 2)

        let running = try h.start()
        #expect(try await eventually { h.names(in: "processed") == ["crash.jpg", "crash.json", "half.jpg", "half.json"] })
        try await running.stop()
        #expect(h.processor.totalCalls == 2, "a receipt completed before the crash was read again")
        let record = try h.sidecar(h.processed + "/crash.json")
        #expect(record["duplicate"]?.boolValue == false)
        #expect(record["analysis"]?["vendor"]?.stringValue == "Completed Before Crash")
        #expect(try h.sidecar(h.processed + "/half.json")["analysis"]?["vendor"]?.stringValue == "Sidecar Written")
        #expect(try await running.pipeline.scoped(to: .administrator()).receipts().count == 2)
    }

    @Test func aMoveCutShortBetweenLinkAndUnlinkIsFinishedOnTheNextStart() async throws {
        let h = try IntakeHarness()
        let bytes = ScriptedProcessor.image(vendor: "Linked Twice")
        let path = try h.drop("linked.jpg", bytes)
        let earlier = try TestSupport.pipeline(h.dir, processor: h.processor)
        var outcomes: [ReceiptOutcome] = []
        for try await outcome in earlier.process(files: [path], as: .admin) { outcomes.append(outcome) }
        let outcome = try #require(outcomes.first)
        // The earlier run wrote the sidecar, linked the image into processed/ and died before the unlink.
        let file = WatchedFile(path: path, relativePath: "linked.jpg", signature: FileSignature(size: 0, modified: 0, inode: 0))
        guard case let .processed(record, _) = IntakeService.filing(outcome, file: file) else { Issue.record("not processed"); return }
        try FileManager.default.createDirectory(atPath: h.processed, withIntermediateDirectories: true)
        try Data((record.serialized() + "\n").utf8).write(to: URL(fileURLWithPath: h.processed + "/linked.json"))
        #expect(link(path, h.processed + "/linked.jpg") == 0)

        let running = try h.start()
        #expect(try await eventually { !FileManager.default.fileExists(atPath: path) })
        #expect(try await running.settled())
        try await running.stop()
        #expect(h.names(in: "processed") == ["linked.jpg", "linked.json"])
        #expect(try h.sidecar(h.processed + "/linked.json")["duplicate"]?.boolValue == false)
        #expect(h.processor.calls(for: bytes) == 1)
    }

    @Test func keepLeavesFilesInPlaceAndARestartDoesNotFileThemAgain() async throws {
        let h = try IntakeHarness()
        try h.drop("kept.jpg", ScriptedProcessor.image(vendor: "Kept"))
        try h.drop("also.jpg", ScriptedProcessor.image(vendor: "Kept"))  // same script, other id: other bytes
        try h.drop("bad.jpg", Data("junk".utf8))
        let capture = LogCapture()
        let first = try h.start(logger: capture.logger) { $0.keep = true }
        #expect(try await eventually { h.names(in: "processed").count == 2 && h.names(in: "failed").count == 1 })
        try await first.stop()
        #expect(h.names(in: "") == ["also.jpg", "bad.jpg", "failed", "kept.jpg", "processed"])
        #expect(h.names(in: "processed") == ["also.json", "kept.json"])
        #expect(h.names(in: "failed") == ["bad.error.txt"])
        #expect(capture.lines.filter { $0.contains("Receipt filed") }.count == 3)

        let again = LogCapture()
        let second = try h.start(logger: again.logger) { $0.keep = true }
        try h.drop("new.jpg", ScriptedProcessor.image(vendor: "New"))
        #expect(try await eventually { h.names(in: "processed").count == 3 })
        #expect(try await second.settled())
        try await second.stop()
        #expect(h.names(in: "processed") == ["also.json", "kept.json", "new.json"])
        #expect(h.names(in: "failed") == ["bad.error.txt"])
        #expect(again.lines.filter { $0.contains("Receipt filed") }.count == 1, "\(again.lines)")
        #expect(h.processor.totalCalls == 4)
        #expect(FileManager.default.fileExists(atPath: h.inbox + "/new.jpg"))
    }

    @Test func onceHandlesWhatIsThereThenReturns() async throws {
        let h = try IntakeHarness()
        try h.drop("a.jpg", ScriptedProcessor.image(vendor: "A"))
        try h.drop("sub/b.jpg", ScriptedProcessor.image(vendor: "B"))
        try h.drop("c.jpg", Data("junk".utf8))
        let running = try h.start { $0.once = true }
        try await running.task.value   // the group ends by itself
        #expect(h.names(in: "processed") == ["a.jpg", "a.json", "sub"])
        #expect(h.names(in: "failed") == ["c.error.txt", "c.jpg"])
        #expect(running.intake.summary.completed == 2)
        #expect(running.intake.summary.failed == 1)
    }

    @Test func oneLinePerReceiptWithFileStatusVendorTotalAndElapsedAtDebugLevel() async throws {
        let h = try IntakeHarness()
        try h.drop("shell.jpg", ScriptedProcessor.image(vendor: "Shell", total: "23.45"))
        try h.drop("broken.jpg", Data("junk".utf8))
        let capture = LogCapture()
        let running = try h.start(logger: capture.logger) { $0.once = true }
        try await running.task.value
        let filed = capture.handler.entries.filter { $0.message == "Receipt filed" }
        #expect(filed.count == 2)
        // A library logs its successes at debug (`receipts watch` asks for info).
        #expect(filed.allSatisfy { $0.level == .debug })
        let shell = try #require(filed.first { $0.metadata["intake.file"] == "shell.jpg" })
        #expect(shell.metadata["receipt.status"] == "completed")
        #expect(shell.metadata["receipt.vendor"] == "Shell")
        #expect(shell.metadata["receipt.total"] == "23.45")
        #expect(shell.metadata["receipt.elapsed"].flatMap { Double("\($0)") } != nil)
        let broken = try #require(filed.first { $0.metadata["intake.file"] == "broken.jpg" })
        #expect(broken.metadata["receipt.status"] == "failed")
        #expect("\(broken.metadata["error.message"] ?? "")".contains("broken.jpg: not an image"))
    }

    @Test func ignoreRulesMatchNamesAndRelativePaths() {
        let rules = IgnoreRules(patterns: ["*.pdf", "inbox/old/*", "IMG_[0-9]*.jpg"])
        #expect(rules.ignores(name: "a.jpg.part", relativePath: "a.jpg.part"))
        #expect(rules.ignores(name: "A.JPG.CRDOWNLOAD", relativePath: "A.JPG.CRDOWNLOAD"))
        #expect(rules.ignores(name: "~$receipt.jpg", relativePath: "~$receipt.jpg"))
        #expect(rules.ignores(name: "@eaDir", relativePath: "x/@eaDir"))
        #expect(rules.ignores(name: "scan.pdf", relativePath: "x/scan.pdf"))
        #expect(rules.ignores(name: "a.jpg", relativePath: "inbox/old/a.jpg"))
        #expect(!rules.ignores(name: "a.jpg", relativePath: "inbox/old/deeper/a.jpg"))
        #expect(rules.ignores(name: "IMG_0042.jpg", relativePath: "IMG_0042.jpg"))
        #expect(!rules.ignores(name: "IMG_X.jpg", relativePath: "IMG_X.jpg"))
        #expect(!rules.ignores(name: "receipt.jpg", relativePath: "receipt.jpg"))
        #expect(!rules.ignores(name: "partial-refund.jpg", relativePath: "partial-refund.jpg"))
    }

    @Test func anOutputFolderThatHoldsTheWatchedFolderIsRefused() async throws {
        let h = try IntakeHarness()
        try h.drop("a.jpg", ScriptedProcessor.image())
        let pipeline = try TestSupport.pipeline(h.dir, processor: h.processor)
        for processed in [h.inbox, h.dir.url.path] {
            let intake = IntakeService(pipeline: pipeline, configuration: h.configuration { $0.processedDirectory = processed },
                                       logger: TestSupport.logger)
            let error = await #expect(throws: ReceiptError.self) { try await intake.run() }
            #expect(error?.code == .outputFolder)
        }
        #expect(h.names(in: "").contains("a.jpg"))
    }
}
