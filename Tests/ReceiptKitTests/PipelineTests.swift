import Foundation
import Logging
import ServiceLifecycle
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

@Suite struct PipelineTests {
    private func collect(_ stream: AsyncThrowingStream<ReceiptOutcome, Error>) async throws -> [ReceiptOutcome] {
        var all: [ReceiptOutcome] = []
        for try await outcome in stream { all.append(outcome) }
        return all
    }

    @Test func aBatchReportsEveryReceiptOnceWithTheNDJSONRecord() async throws {
        let dir = try TemporaryDirectory()
        let processor = ScriptedProcessor()
        let pipeline = try TestSupport.pipeline(dir, processor: processor)
        var files: [String] = []
        for i in 0..<6 {
            files.append(try dir.write("in/r\(i).jpg", ScriptedProcessor.image(vendor: "Shop \(i)", total: "1\(i).05", delay: 0.02)))
        }
        files.append(try dir.write("in/bad.jpg", Data("GIF89a garbage".utf8)))
        files.append(dir.path("in/missing.jpg"))
        files.append(dir.path("in"))   // a folder

        let outcomes = try await collect(pipeline.process(files: files, as: .admin))
        #expect(outcomes.count == files.count)
        #expect(Set(outcomes.map(\.source)) == Set(files))
        let bySource = Dictionary(uniqueKeysWithValues: outcomes.map { ($0.source, $0) })
        for i in 0..<6 {
            let outcome = try #require(bySource[files[i]])
            #expect(outcome.receipt.ocrStatus == .completed)
            #expect(outcome.expense?.amount == Decimal(string: "1\(i).05"))
            #expect(outcome.expense?.receiptId == outcome.receipt.id)
            let record = outcome.record.json
            // The contract's keys, in order; whose the receipt is comes last (keys are added, never renamed).
            #expect(record.objectValue?.map(\.0) == ["file", "receiptId", "ocrStatus", "analysis", "expense", "error", "attempts", "lastError",
                                                     "createdAt", "updatedAt", "owner", "group", "externalUser", "metadata"])
            #expect(record["owner"] == .string("admin"))
            #expect(record["analysis"]?["total"] == .number("1\(i).05"))
            #expect(record["analysis"]?["date"] == .string("2024-03-01"))
            #expect(record["error"] == .null)
            #expect(record.serialized().contains("\"total\":1\(i).05"))
        }
        let bad = try #require(bySource[files[6]])
        #expect(bad.receipt.ocrStatus == .failed)
        #expect(bad.receipt.attempts == 1)     // permanent: not retried
        #expect(bad.error == "\(files[6]): not an image (unknown format)")
        #expect(bad.record.json["analysis"] == .null && bad.record.json["expense"] == .null)
        #expect(bySource[files[7]]?.error == "\(files[7]): no such file")
        #expect(bySource[files[8]]?.error?.contains("is a folder") == true)
        #expect(try await pipeline.scoped(to: .administrator()).statusCounts() == [.completed: 6, .failed: 3])
        #expect(try await pipeline.scoped(to: .administrator()).expenses().count == 6)
    }

    @Test func theSameBytesAreNotReadTwiceUnlessForced() async throws {
        let dir = try TemporaryDirectory()
        let processor = ScriptedProcessor()
        let pipeline = try TestSupport.pipeline(dir, processor: processor)
        let bytes = ScriptedProcessor.image()
        let a = try dir.write("a.jpg", bytes)
        let b = try dir.write("copy-of-a.jpg", bytes)

        let first = try await collect(pipeline.process(files: [a], as: .admin))
        let second = try await collect(pipeline.process(files: [b, a], as: .admin))
        #expect(second.count == 2)
        #expect(second.allSatisfy { $0.isDuplicate && $0.receipt.id == first[0].receipt.id })
        #expect(second.allSatisfy { $0.receipt.ocrStatus == .completed && $0.expense?.id == first[0].expense?.id })
        #expect(processor.calls(for: bytes) == 1)
        #expect(try await pipeline.scoped(to: .administrator()).expenses().count == 1)

        // Submitting the same bytes from memory returns the same receipt too.
        let again = try await pipeline.submit(imageData: bytes, filename: "upload.jpg", as: .admin)
        #expect(again.id == first[0].receipt.id)

        let forced = try await collect(pipeline.process(files: [b], as: .admin, force: true))
        #expect(forced[0].receipt.id != first[0].receipt.id)
        #expect(!forced[0].isDuplicate)
        #expect(processor.calls(for: bytes) == 2)
        #expect(try await pipeline.scoped(to: .administrator()).expenses().count == 2)
    }

    @Test func aFailedReceiptSubmittedAgainIsTriedAgainNotReportedAsADuplicate() async throws {
        let dir = try TemporaryDirectory()
        let processor = ScriptedProcessor()
        // One attempt each time: the first call fails (transiently, for good), the second works.
        let pipeline = try TestSupport.pipeline(dir, processor: processor, maxAttempts: 1)
        let bytes = ScriptedProcessor.image(vendor: "Second Time Lucky", transient: 1)
        let file = try dir.write("flaky.jpg", bytes)
        let first = try await collect(pipeline.process(files: [file], as: .admin))
        #expect(first.count == 1 && first[0].receipt.ocrStatus == .failed)

        let again = try await collect(pipeline.process(files: [file], as: .admin))
        #expect(again.count == 1)
        #expect(again[0].receipt.id == first[0].receipt.id)
        #expect(again[0].receipt.ocrStatus == .completed)
        #expect(again[0].receipt.attempts == 1)
        #expect(!again[0].isDuplicate)
        #expect(again[0].analysis?.vendor == "Second Time Lucky")
        #expect(processor.calls(for: bytes) == 2)

        // Completed now: submitted again, it is returned as it is.
        let third = try await collect(pipeline.process(files: [file], as: .admin))
        #expect(third.count == 1 && third[0].isDuplicate && third[0].receipt.ocrStatus == .completed)
        #expect(processor.calls(for: bytes) == 2)

        // The library's submit puts a failed receipt back in the queue too (no workers run here).
        let broken = ScriptedProcessor.image(permanent: true)
        let failed = try await collect(pipeline.process([.data(broken, filename: "broken.jpg")], as: .admin))
        #expect(failed.first?.receipt.ocrStatus == .failed)
        let resubmitted = try await pipeline.submit(imageData: broken, filename: "broken.jpg", as: .admin)
        #expect(resubmitted.id == failed.first?.receipt.id)
        #expect(resubmitted.ocrStatus == .pending && resubmitted.attempts == 0)
        #expect(try await pipeline.scoped(to: .administrator()).receipts().count == 2)
    }

    @Test func aLikelyDuplicatePurchaseIsFlaggedNeverDropped() async throws {
        let dir = try TemporaryDirectory()
        let pipeline = try TestSupport.pipeline(dir, workers: 1)
        // Two photos of the same purchase (different bytes), and a different purchase.
        let photo1 = try dir.write("p1.jpg", ScriptedProcessor.image(vendor: "Tesco Express", date: "2024-05-02", total: "41.20"))
        let photo2 = try dir.write("p2.jpg", ScriptedProcessor.image(vendor: "TESCO EXPRESS", date: "2024-05-02", total: "41.2"))
        let other = try dir.write("p3.jpg", ScriptedProcessor.image(vendor: "Tesco Express", date: "2024-05-03", total: "41.20"))
        var outcomes: [ReceiptOutcome] = []
        for file in [photo1, photo2, other] { outcomes += try await collect(pipeline.process(files: [file], as: .admin)) }
        let expenses = try await pipeline.scoped(to: .administrator()).expenses()
        #expect(expenses.count == 3)
        #expect(outcomes[0].expense?.possibleDuplicateOf == nil)
        #expect(outcomes[1].expense?.possibleDuplicateOf == outcomes[0].expense?.id)
        #expect(outcomes[2].expense?.possibleDuplicateOf == nil)
        #expect(outcomes[1].record.json["expense"]?["possibleDuplicateOf"]?.stringValue == outcomes[0].expense?.id.uuidString.lowercased())
    }

    @Test func transientErrorsAreRetriedWithBackoffThenFail() async throws {
        let dir = try TemporaryDirectory()
        let processor = ScriptedProcessor()
        let pipeline = try TestSupport.pipeline(dir, processor: processor, maxAttempts: 3)
        let recovers = try dir.write("flaky.jpg", ScriptedProcessor.image(transient: 2))
        let neverRecovers = try dir.write("down.jpg", ScriptedProcessor.image(transient: 99))
        let permanent = try dir.write("broken.jpg", ScriptedProcessor.image(permanent: true))
        let outcomes = try await collect(pipeline.process(files: [recovers, neverRecovers, permanent], as: .admin))
        let bySource = Dictionary(uniqueKeysWithValues: outcomes.map { ($0.source, $0) })
        #expect(bySource[recovers]?.receipt.ocrStatus == .completed)
        #expect(bySource[recovers]?.receipt.attempts == 3)
        #expect(bySource[recovers]?.receipt.lastError == nil)
        #expect(bySource[neverRecovers]?.receipt.ocrStatus == .failed)
        #expect(bySource[neverRecovers]?.receipt.attempts == 3)
        #expect(bySource[neverRecovers]?.error == "\(neverRecovers): remote analyzer timed out")
        #expect(bySource[permanent]?.receipt.attempts == 1)
        #expect(outcomes.count == 3)

        // retry puts a failed receipt back; processing it again succeeds once the cause is gone.
        let failedId = try #require(bySource[permanent]?.receipt.id)
        try await pipeline.scoped(to: .administrator()).retry(failedId)
        #expect(try await pipeline.scoped(to: .administrator()).receipt(id: failedId)?.ocrStatus == .pending)
        let retried = try await collect(pipeline.process([.receipt(failedId)], as: .admin))
        #expect(retried.count == 1 && retried[0].receipt.ocrStatus == .failed && retried[0].receipt.attempts == 1)
    }

    @Test func bytesSubmittedFromMemoryAreKeptDurably() async throws {
        let dir = try TemporaryDirectory()
        let pipeline = try TestSupport.pipeline(dir)
        let bytes = ScriptedProcessor.image(vendor: "Memory Lane")
        let receipt = try await pipeline.submit(imageData: bytes, filename: "upload-42.jpg", as: .admin)
        #expect(receipt.ocrStatus == .pending)
        #expect(receipt.filePath == "upload-42.jpg")
        #expect(receipt.contentHash == ContentHash.hex(of: bytes))
        let kept = try #require(try await pipeline.store.imagePath(ofReceipt: receipt.id, in: .everyone))
        #expect(FileManager.default.contents(atPath: kept) == bytes)
        #expect(kept.hasPrefix(dir.url.appendingPathComponent("store/images").path))
        // Another pipeline (a later run) processes it from the stored copy.
        let later = try TestSupport.pipeline(dir)
        let outcomes = try await collect(later.process([.receipt(receipt.id)], as: .admin))
        #expect(outcomes.first?.analysis?.vendor == "Memory Lane")
    }

    @Test func runProcessesSubmissionsAndFinishesInFlightWorkOnGracefulShutdown() async throws {
        let dir = try TemporaryDirectory()
        let pipeline = try TestSupport.pipeline(dir)
        let group = ServiceGroup(services: [pipeline], gracefulShutdownSignals: [], cancellationSignals: [],
                                 logger: TestSupport.logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let quick = try await pipeline.submit(imageData: ScriptedProcessor.image(vendor: "Quick"), filename: "q.jpg", as: .admin)
            let done = try await pipeline.waitForCompletion(of: quick.id, in: .everyone)
            #expect(done.ocrStatus == .completed)
            #expect(try await pipeline.expense(forReceipt: quick.id, in: .everyone)?.description == "Quick")

            let slow = try await pipeline.submit(imageData: ScriptedProcessor.image(vendor: "Slow", delay: 0.5), filename: "s.jpg", as: .admin)
            while try await pipeline.scoped(to: .administrator()).receipt(id: slow.id)?.ocrStatus != .processing { try await Task.sleep(for: .milliseconds(10)) }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            #expect(try await pipeline.scoped(to: .administrator()).receipt(id: slow.id)?.ocrStatus == .completed)
        }
    }

    @Test func cancellingRunReturnsTheReceiptInHandToPending() async throws {
        let dir = try TemporaryDirectory()
        let pipeline = try TestSupport.pipeline(dir, workers: 1)
        let slow = try await pipeline.submit(imageData: ScriptedProcessor.image(delay: 30), filename: "slow.jpg", as: .admin)
        let task = Task { try await pipeline.run() }
        while try await pipeline.scoped(to: .administrator()).receipt(id: slow.id)?.ocrStatus != .processing { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        _ = try? await task.value
        let back = try #require(try await pipeline.scoped(to: .administrator()).receipt(id: slow.id))
        #expect(back.ocrStatus == .pending)
        #expect(back.attempts == 0)
    }

    @Test func waitForCompletionSeesWorkDoneByAnotherPipelineOnTheSameStore() async throws {
        let dir = try TemporaryDirectory()
        let submitter = try TestSupport.pipeline(dir)
        let worker = try TestSupport.pipeline(dir)
        let receipt = try await submitter.submit(imageData: ScriptedProcessor.image(vendor: "Elsewhere"), filename: "e.jpg", as: .admin)
        async let done = submitter.waitForCompletion(of: receipt.id, in: .everyone)
        _ = try await collect(worker.process([.receipt(receipt.id)], as: .admin))
        #expect(try await done.ocrStatus == .completed)
        await #expect(throws: ReceiptError.self) { try await submitter.waitForCompletion(of: UUID(), in: .everyone) }
    }

    @Test func queriesFilterByStatusDateAndCategory() async throws {
        let dir = try TemporaryDirectory()
        let pipeline = try TestSupport.pipeline(dir)
        let files = [
            try dir.write("a.jpg", ScriptedProcessor.image(vendor: "Shell", date: "2024-01-10", category: "Fuel")),
            try dir.write("b.jpg", ScriptedProcessor.image(vendor: "Kwik Fit", date: "2024-02-10", category: "Maintenance")),
            try dir.write("c.jpg", ScriptedProcessor.image(vendor: "BP", date: "2024-03-10", category: "Fuel")),
            try dir.write("d.jpg", Data("nope".utf8)),
        ]
        _ = try await collect(pipeline.process(files: files, as: .admin))
        #expect(try await pipeline.scoped(to: .administrator()).receipts(ReceiptQuery(status: .failed)).map(\.filePath) == [files[3]])
        #expect(try await pipeline.scoped(to: .administrator()).receipts(ReceiptQuery(status: .completed)).count == 3)
        let fuel = try await pipeline.scoped(to: .administrator()).expenses(ExpenseQuery(category: "fuel"))
        #expect(fuel.map(\.description) == ["Shell", "BP"])
        let q1 = try await pipeline.scoped(to: .administrator()).expenses(ExpenseQuery(from: CalendarDate(iso: "2024-01-10"), to: CalendarDate(iso: "2024-02-10")))
        #expect(q1.map(\.description) == ["Shell", "Kwik Fit"])
    }
}
