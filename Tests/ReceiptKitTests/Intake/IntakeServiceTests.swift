import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// The watched-folder intake on real files and real inotify events in a temporary folder, with a
/// scripted processor standing in for OCR.
@Suite struct IntakeServiceTests {
    @Test func filesPresentAtStartAndDroppedLaterAreFiledWithTheirRecord() async throws {
        let h = try IntakeHarness()
        try h.drop("early.jpg", ScriptedProcessor.image(vendor: "Early Fuels", total: "12.30"))
        let running = try h.start()
        #expect(try await eventually { h.names(in: "processed") == ["early.jpg", "early.json"] })
        let late = ScriptedProcessor.image(vendor: "Late Garage", total: "99.99")
        try h.drop("late.png", late)
        #expect(try await eventually { h.names(in: "processed").count == 4 })
        try await running.stop()

        #expect(h.names(in: "") == ["failed", "processed"], "the watched folder keeps only the output folders")
        let record = try h.sidecar(h.processed + "/late.json")
        #expect(record["file"]?.stringValue == h.processed + "/late.png", "the image where it is now, beside its sidecar")
        #expect(record["ocrStatus"]?.stringValue == "completed")
        #expect(record["analysis"]?["vendor"]?.stringValue == "Late Garage")
        #expect(record["analysis"]?["total"]?.decimalValue == Decimal(string: "99.99"))
        #expect(record["expense"]?["amount"]?.decimalValue == Decimal(string: "99.99"))
        #expect(record["duplicate"]?.boolValue == false)
        #expect(record["error"]?.isNull == true)
        // The sidecar's receipt is the one in the store, with the bytes the file had.
        let id = try #require(record["receiptId"]?.stringValue.flatMap(UUID.init(uuidString:)))
        let stored = try #require(try await running.pipeline.scoped(to: .administrator()).receipt(id: id))
        #expect(stored.ocrStatus == .completed)
        #expect(FileManager.default.contents(atPath: h.processed + "/late.png") == late)
        #expect(running.intake.summary.completed == 2)
    }

    @Test func aFileWrittenSlowlyIsNotTakenBeforeItIsComplete() async throws {
        let h = try IntakeHarness()
        let delay = 5 * testTimeScale
        let running = try h.start { $0.stabilityDelay = delay }
        let content = ScriptedProcessor.image(vendor: "Slowly Written Motors", total: "64.00")
        let path = h.inbox + "/slow.jpg"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        // About 3 s of writing in 12 pieces, 0.25 s apart, on a thread of its own: the suite's
        // other tests can hold the concurrency pool for seconds, which would stretch the pauses.
        let pieces = stride(from: 0, to: content.count, by: max(1, content.count / 12)).map {
            content[$0..<min(content.count, $0 + max(1, content.count / 12))]
        }
        let checks: [(longestPause: Double, taken: Bool)] = try await withCheckedThrowingContinuation { done in
            Thread.detachNewThread {
                var checks: [(Double, Bool)] = []
                var longestPause = 0.0
                var lastWrite = Date()
                do {
                    for piece in pieces {
                        longestPause = max(longestPause, Date().timeIntervalSince(lastWrite))
                        try handle.write(contentsOf: piece)
                        lastWrite = Date()
                        Thread.sleep(forTimeInterval: 0.25)
                        checks.append((max(longestPause, Date().timeIntervalSince(lastWrite)), !h.names(in: "processed").isEmpty))
                    }
                    done.resume(returning: checks)
                } catch {
                    done.resume(throwing: error)
                }
            }
        }
        // A pause as long as the delay (the machine stalled the writer) makes taking it right.
        let meaningful = checks.filter { $0.longestPause < delay }
        #expect(meaningful.count > 0, "every pause was longer than the delay: \(checks)")
        #expect(meaningful.allSatisfy { !$0.taken }, "taken while still being written: \(checks)")
        try handle.close()
        #expect(try await eventually { h.names(in: "processed") == ["slow.jpg", "slow.json"] })
        try await running.stop()
        #expect(FileManager.default.contents(atPath: h.processed + "/slow.jpg") == content)
        #expect(try h.sidecar(h.processed + "/slow.json")["analysis"]?["vendor"]?.stringValue == "Slowly Written Motors")
        #expect(h.processor.totalCalls == 1)
        #expect(try await running.pipeline.scoped(to: .administrator()).receipts().count == 1)
    }

    @Test func aBurstOfTwoHundredFilesIsAllFiled() async throws {
        let h = try IntakeHarness()
        let running = try h.start(workers: 2)
        for index in 0..<200 {
            try h.drop(String(format: "burst-%03d.jpg", index), ScriptedProcessor.image(vendor: "Shop \(index)", total: "\(index).50"))
        }
        // All filed, however long a loaded machine takes (measured past 90 s beside the suite's OCR).
        #expect(try await eventually(timeout: 300) { h.names(in: "processed").count == 400 })
        try await running.stop()
        #expect(h.names(in: "") == ["failed", "processed"])
        #expect(h.names(in: "failed").isEmpty)
        #expect(h.processor.totalCalls == 200)
        #expect(try await running.pipeline.scoped(to: .administrator()).receipts().count == 200)
        let record = try h.sidecar(h.processed + "/burst-137.json")
        #expect(record["analysis"]?["vendor"]?.stringValue == "Shop 137")
        #expect(running.intake.summary.completed == 200)
    }

    @Test func aFileRenamedIntoTheFolderIsTakenAndPartialNamesAreNot() async throws {
        let h = try IntakeHarness()
        let running = try h.start()
        // Written elsewhere, then moved in (what scanners and sync tools do).
        let outside = try h.dir.write("staging/moved.jpg", ScriptedProcessor.image(vendor: "Moved In"))
        try FileManager.default.moveItem(atPath: outside, toPath: h.inbox + "/moved.jpg")
        // Downloaded under a partial name, renamed when complete.
        let part = try h.drop("download.jpg.part", ScriptedProcessor.image(vendor: "Downloaded"))
        #expect(try await running.settled())
        #expect(FileManager.default.fileExists(atPath: part), "a .part file was taken")
        try FileManager.default.moveItem(atPath: part, toPath: h.inbox + "/download.jpg")
        #expect(try await eventually { h.names(in: "processed") == ["download.jpg", "download.json", "moved.jpg", "moved.json"] })
        try await running.stop()
        #expect(h.processor.totalCalls == 2)
    }

    @Test func aDuplicateIsFiledAsSuchWithoutBeingReadAgain() async throws {
        let h = try IntakeHarness()
        let bytes = ScriptedProcessor.image(vendor: "Twice Seen", total: "5.00")
        let running = try h.start()
        try h.drop("first.jpg", bytes)
        #expect(try await eventually { h.names(in: "processed").count == 2 })
        try h.drop("second.jpg", bytes)
        #expect(try await eventually { h.names(in: "processed").count == 4 })
        try await running.stop()
        let first = try h.sidecar(h.processed + "/first.json")
        let second = try h.sidecar(h.processed + "/second.json")
        #expect(second["duplicate"]?.boolValue == true)
        #expect(second["duplicateOf"]?.stringValue == h.inbox + "/first.jpg")
        #expect(second["receiptId"] == first["receiptId"])
        #expect(second["file"]?.stringValue == h.processed + "/second.jpg")
        #expect(second["analysis"]?["vendor"]?.stringValue == "Twice Seen")
        #expect(h.processor.calls(for: bytes) == 1, "the duplicate was read again")
        #expect(try await running.pipeline.scoped(to: .administrator()).receipts().count == 1)
        #expect(running.intake.summary.duplicates == 1)
    }

    @Test func theSameFileDroppedAgainUnderTheSameNameIsADuplicate() async throws {
        let h = try IntakeHarness()
        let bytes = ScriptedProcessor.image(vendor: "Dropped Twice")
        let running = try h.start()
        try h.drop("again.jpg", bytes)
        #expect(try await eventually { h.names(in: "processed").count == 2 })
        try h.drop("again.jpg", bytes)
        #expect(try await eventually { h.names(in: "processed").count == 4 })
        try await running.stop()
        #expect(h.names(in: "processed") == ["again-1.jpg", "again-1.json", "again.jpg", "again.json"])
        #expect(try h.sidecar(h.processed + "/again.json")["duplicate"]?.boolValue == false)
        #expect(try h.sidecar(h.processed + "/again-1.json")["duplicate"]?.boolValue == true)
        #expect(h.processor.calls(for: bytes) == 1)
    }

    @Test func aFileWhoseReceiptFailedIsTriedAgainWhenDroppedAgain() async throws {
        let h = try IntakeHarness()
        // Fails its three attempts (as a remote analyzer that is down would), then works.
        let bytes = ScriptedProcessor.image(vendor: "Back Online", total: "7.50", transient: 3)
        let running = try h.start()
        try h.drop("retry.jpg", bytes)
        #expect(try await eventually { h.names(in: "failed") == ["retry.error.txt", "retry.jpg"] })
        // The cause is gone; the user puts the file back.
        try h.drop("retry.jpg", bytes)
        #expect(try await eventually { h.names(in: "processed") == ["retry.jpg", "retry.json"] })
        try await running.stop()
        let record = try h.sidecar(h.processed + "/retry.json")
        #expect(record["ocrStatus"]?.stringValue == "completed")
        #expect(record["analysis"]?["vendor"]?.stringValue == "Back Online")
        #expect(record["duplicate"]?.boolValue == false)
        #expect(h.processor.calls(for: bytes) == 4)
        let receipts = try await running.pipeline.scoped(to: .administrator()).receipts()
        #expect(receipts.count == 1 && receipts.first?.ocrStatus == .completed)
        #expect(running.intake.summary.duplicates == 0)
    }

    @Test func brokenFilesGoToFailedWithTheirOneLineError() async throws {
        let h = try IntakeHarness()
        let running = try h.start()
        try h.drop("junk.jpg", Data("this is not an image".utf8))
        try h.drop("truncated.jpg", ScriptedProcessor.image(permanent: true))
        try h.drop("empty.jpg", Data())
        #expect(try await eventually { h.names(in: "failed").count == 6 })
        try await running.stop()
        #expect(h.names(in: "failed") == ["empty.error.txt", "empty.jpg", "junk.error.txt", "junk.jpg",
                                          "truncated.error.txt", "truncated.jpg"])
        let junk = try #require(h.text(h.failed + "/junk.error.txt"))
        #expect(junk == h.inbox + "/junk.jpg: not an image (unknown format)\n")
        #expect(h.text(h.failed + "/truncated.error.txt")?.contains("truncated.jpg: truncated JPEG") == true)
        #expect(h.names(in: "processed").isEmpty)
        #expect(running.intake.summary.failed == 3)
        // The store knows them as failed, with the same error.
        let failed = try await running.pipeline.scoped(to: .administrator()).receipts(ReceiptQuery(status: .failed))
        #expect(failed.count == 3)
    }

    @Test func nameCollisionsNeverOverwrite() async throws {
        let h = try IntakeHarness()
        try FileManager.default.createDirectory(atPath: h.processed + "/2024", withIntermediateDirectories: true)
        let earlier = Data("an earlier receipt".utf8)
        try earlier.write(to: URL(fileURLWithPath: h.processed + "/2024/r.jpg"))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: h.processed + "/2024/r-1.json"))
        let running = try h.start()
        try h.drop("2024/r.jpg", ScriptedProcessor.image(vendor: "Second R"))
        #expect(try await eventually { h.names(in: "processed/2024").count == 4 })
        try h.drop("2024/r.jpg", ScriptedProcessor.image(vendor: "Third R"))
        #expect(try await eventually { h.names(in: "processed/2024").count == 6 })
        try await running.stop()
        #expect(h.names(in: "processed/2024") == ["r-1.json", "r-2.jpg", "r-2.json", "r-3.jpg", "r-3.json", "r.jpg"])
        #expect(FileManager.default.contents(atPath: h.processed + "/2024/r.jpg") == earlier)
        #expect(h.text(h.processed + "/2024/r-1.json") == "{}")
        #expect(try h.sidecar(h.processed + "/2024/r-2.json")["analysis"]?["vendor"]?.stringValue == "Second R")
        #expect(try h.sidecar(h.processed + "/2024/r-3.json")["analysis"]?["vendor"]?.stringValue == "Third R")
    }

    @Test func ignoredNamesAndOtherFilesAreLeftAlone() async throws {
        let h = try IntakeHarness()
        let ignored = ["a.jpg.part", "b.jpg.filepart", "c.jpg.crdownload", "d.jpg.tmp", "~$e.jpg", ".f.jpg", ".DS_Store",
                       "Thumbs.db", "@eaDir/g.jpg", "drafts/h.jpg", "notes.txt", "scan-0001.jpg"]
        for (index, name) in ignored.enumerated() { try h.drop(name, ScriptedProcessor.image(vendor: "Ignored \(index)")) }
        try h.drop("taken.jpg", ScriptedProcessor.image(vendor: "Taken"))
        let running = try h.start { $0.ignorePatterns = ["drafts/*", "scan-*.jpg"] }
        #expect(try await eventually { h.names(in: "processed").count == 2 })
        #expect(try await running.settled())
        try await running.stop()
        #expect(h.processor.totalCalls == 1)
        for name in ignored { #expect(FileManager.default.fileExists(atPath: h.inbox + "/" + name), "\(name) was moved") }
    }

    @Test func filesInNewSubfoldersAreTakenAndFiledUnderTheSameSubfolder() async throws {
        let h = try IntakeHarness()
        let running = try h.start()
        #expect(try await running.watching())
        // mkdir -p then write at once: the file lands before the new folder's watch exists.
        try h.drop("2025/03/fuel.jpg", ScriptedProcessor.image(vendor: "Deep Fuel"))
        #expect(try await eventually { h.names(in: "processed/2025/03") == ["fuel.jpg", "fuel.json"] })
        try h.drop("2025/03/later.jpg", ScriptedProcessor.image(vendor: "Later"))
        #expect(try await eventually { h.names(in: "processed/2025/03").count == 4 })
        try await running.stop()
    }

    @Test func subfoldersAreNotWatchedWithoutRecursion() async throws {
        let h = try IntakeHarness()
        try h.drop("sub/inner.jpg", ScriptedProcessor.image(vendor: "Inner"))
        try h.drop("top.jpg", ScriptedProcessor.image(vendor: "Top"))
        let running = try h.start { $0.recursive = false }
        #expect(try await eventually { h.names(in: "processed") == ["top.jpg", "top.json"] })
        try h.drop("sub/later.jpg", ScriptedProcessor.image(vendor: "Later"))
        #expect(try await running.settled())
        try await running.stop()
        #expect(h.names(in: "sub") == ["inner.jpg", "later.jpg"])
    }

    @Test func pollingFindsFilesWhereNoEventsArrive() async throws {
        let h = try IntakeHarness()
        let running = try h.start { $0.pollInterval = 0.2 }
        try h.drop("polled.jpg", ScriptedProcessor.image(vendor: "Polled"))
        try h.drop("sub/deeper.jpg", ScriptedProcessor.image(vendor: "Deeper"))
        #expect(try await eventually { h.names(in: "processed").count == 3 && h.names(in: "processed/sub").count == 2 })
        try await running.stop()
    }

    @Test func outputFoldersElsewhereAreUsedAndNeverWatched() async throws {
        let h = try IntakeHarness()
        let done = h.dir.path("done"), bad = h.inbox + "/sub/bad"
        let running = try h.start { $0.processedDirectory = done; $0.failedDirectory = bad }
        try h.drop("ok.jpg", ScriptedProcessor.image(vendor: "OK"))
        try h.drop("broken.jpg", Data("junk".utf8))
        #expect(try await eventually {
            (try? FileManager.default.contentsOfDirectory(atPath: done).count) == 2
                && (try? FileManager.default.contentsOfDirectory(atPath: bad).count) == 2
        })
        #expect(try await running.settled())
        try await running.stop()
        // The failed folder is inside the watched one: its files were not taken again.
        #expect(h.processor.totalCalls == 2)
        #expect(try await running.pipeline.scoped(to: .administrator()).receipts().count == 2)
        #expect(!FileManager.default.fileExists(atPath: h.inbox + "/processed"))
    }

    @Test func aFolderMovedInWithFilesAlreadyInsideIsTaken() async throws {
        let h = try IntakeHarness()
        let running = try h.start()
        try h.dir.write("outside/batch/one.jpg", ScriptedProcessor.image(vendor: "One"))
        try h.dir.write("outside/batch/deeper/two.jpg", ScriptedProcessor.image(vendor: "Two"))
        try FileManager.default.moveItem(atPath: h.dir.path("outside/batch"), toPath: h.inbox + "/batch")
        #expect(try await eventually {
            h.names(in: "processed/batch") == ["deeper", "one.jpg", "one.json"] && h.names(in: "processed/batch/deeper").count == 2
        })
        try await running.stop()
    }

    @Test func aFileThatCouldNotBeFiledIsFiledByALaterRescanWithoutBeingReadAgain() async throws {
        let h = try IntakeHarness()
        // A plain file where the output subfolder must go: filing fails until it is removed.
        try FileManager.default.createDirectory(atPath: h.processed, withIntermediateDirectories: true)
        try Data("in the way".utf8).write(to: URL(fileURLWithPath: h.processed + "/sub"))
        let bytes = ScriptedProcessor.image(vendor: "Blocked")
        let capture = LogCapture()
        let running = try h.start(logger: capture.logger) { $0.rescanInterval = 0.5 }
        try h.drop("sub/blocked.jpg", bytes)
        #expect(try await eventually { running.intake.summary.notFiled >= 1 })
        #expect(FileManager.default.fileExists(atPath: h.inbox + "/sub/blocked.jpg"), "the file must stay where it was")
        #expect(capture.lines.contains { $0.contains("Receipt not filed") && $0.contains("processed/sub") }, "\(capture.lines)")
        try FileManager.default.removeItem(atPath: h.processed + "/sub")
        #expect(try await eventually { h.names(in: "processed/sub") == ["blocked.jpg", "blocked.json"] })
        try await running.stop()
        #expect(h.processor.calls(for: bytes) == 1)
    }

    static var otherFileSystem: String? {
        var tmp = stat(), shm = stat()
        guard stat(NSTemporaryDirectory(), &tmp) == 0, stat("/dev/shm", &shm) == 0, tmp.st_dev != shm.st_dev,
              access("/dev/shm", W_OK) == 0 else { return nil }
        return "/dev/shm"
    }

    @Test(.enabled(if: IntakeServiceTests.otherFileSystem != nil, "needs /dev/shm on another file system than the temporary folder"))
    func outputFoldersOnAnotherFileSystemGetACopyAndTheOriginalGoes() async throws {
        let h = try IntakeHarness()
        let done = try #require(Self.otherFileSystem) + "/receipts-tests-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: done) }
        let bytes = ScriptedProcessor.image(vendor: "Far Away")
        let running = try h.start { $0.processedDirectory = done }
        try h.drop("far.jpg", bytes)
        #expect(try await eventually { (try? FileManager.default.contentsOfDirectory(atPath: done))?.count == 2 })
        try await running.stop()
        #expect(FileManager.default.contents(atPath: done + "/far.jpg") == bytes)
        #expect(!FileManager.default.fileExists(atPath: h.inbox + "/far.jpg"))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: done))?.filter { $0.hasPrefix(".") } == [])
    }
}
