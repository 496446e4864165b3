// Test and benchmark helper: a process that runs the queue with a stand-in processor, so tests can
// kill it with SIGKILL mid-batch, run several at once on one PostgreSQL store and restart the server
// under it, and scripts/bench-store can time the queue itself. Not part of the receipts tool.
//
//     receipts-queue-helper STORE FOLDER [DELAY_SECONDS] [WORKERS]
//         one batch over every file of FOLDER, printing each NDJSON record as it finishes
//     receipts-queue-helper --work STORE DELAY_SECONDS WORKERS LEASE_SECONDS
//         queue workers on every pending receipt of STORE until none is pending or processing;
//         prints `start <unix time> <filePath>` when it begins a receipt and `end <unix time> <filePath>`
//         when its processing ends (before the result is stored)
//     receipts-queue-helper --bench STORE COUNT WORKERS
//         the queue's own cost: COUNT receipts submitted by WORKERS concurrent clients, then claimed
//         and completed by WORKERS queue workers with a processor that does nothing; prints one JSON
//         line with milliseconds per receipt (submit, claim + complete, both) and exits
//     receipts-queue-helper --submit STORE FILE...
//         submits the files (real images) to STORE without working on them, for workers elsewhere
//
// STORE is a SQLite path or a postgres:// URL. A file's bytes are its "receipt": `vendor;date;total`.
import CLifeline
import Foundation
import Logging
import ReceiptKit
import ReceiptPostgres

struct SlowProcessor: ReceiptProcessing {
    var delay: Double
    var announce: Bool

    func process(imageData: Data, displayPath: String) async throws -> ProcessedReceipt {
        if announce { FileHandle.standardOutput.write(Data("start \(Date().timeIntervalSince1970) \(displayPath)\n".utf8)) }
        if delay > 0 { try await Task.sleep(for: .milliseconds(Int(delay * 1000))) }
        if announce { FileHandle.standardOutput.write(Data("end \(Date().timeIntervalSince1970) \(displayPath)\n".utf8)) }
        let parts = String(decoding: imageData, as: UTF8.self).split(separator: ";").map(String.init)
        guard parts.count == 3 else { throw ReceiptError(.badImage, file: displayPath, "not a test receipt") }
        let analysis = ReceiptAnalysis(vendor: parts[0], date: CalendarDate(iso: parts[1]), total: Decimal(string: parts[2]),
                                       currency: "GBP", category: "Fuel", analyzer: "queue-helper")
        let ocr = OCRResult(text: parts.joined(separator: "\n"), lines: [], meanConfidence: 90, imageWidth: 1,
                            imageHeight: 1, sourceWidth: 1, sourceHeight: 1)
        return ProcessedReceipt(ocr: ocr, analysis: analysis)
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("receipts-queue-helper: \(message)\n".utf8))
    exit(1)
}

// Ends with the test that started it (RECEIPTS_EXIT_WITH_PROCESS, as `receipts` does).
_ = receipts_lifeline_from_environment()

let arguments = CommandLine.arguments
let logger = Logger(label: "queue-helper") { StreamLogHandler.standardError(label: $0) }

if arguments.count == 6, arguments[1] == "--work" {
    let delay = Double(arguments[3]) ?? 0.1
    let workers = Int(arguments[4]) ?? 2
    let lease = Double(arguments[5]) ?? 60
    do {
        let pipeline = try await ReceiptPipeline.open(
            try StoreLocation(arguments[2]), drivers: [PostgresStoreDriver()], processor: SlowProcessor(delay: delay, announce: true),
            configuration: .init(workers: workers, leaseDuration: lease, pollInterval: 0.2), logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pipeline.run() }
            // Done when nothing is pending or processing (after the first look, so a store being
            // filled by another process is waited for while it has work). The database may be
            // restarting under it: a failed look is just tried again.
            while true {
                try await Task.sleep(for: .milliseconds(200))
                guard let counts = try? await pipeline.queueStatusCounts() else { continue }
                if (counts[.pending] ?? 0) == 0, (counts[.processing] ?? 0) == 0 { break }
            }
            group.cancelAll()
        }
    } catch {
        fail("\(error)")
    }
    exit(0)
}

if arguments.count == 5, arguments[1] == "--bench", let count = Int(arguments[3]), let workers = Int(arguments[4]) {
    do {
        let finished = AsyncStream<Void>.makeStream()
        var configuration = ReceiptPipeline.Configuration(workers: workers, leaseDuration: 60, pollInterval: 0.05)
        configuration.onFinished = { _ in finished.continuation.yield() }
        let pipeline = try await ReceiptPipeline.open(
            try StoreLocation(arguments[2]), drivers: [PostgresStoreDriver()], processor: SlowProcessor(delay: 0, announce: false),
            configuration: configuration, logger: Logger(label: "queue-helper") { _ in SwiftLogNoOpLogHandler() })
        let clock = ContinuousClock()
        let started = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<workers {
                group.addTask {
                    for i in stride(from: client, to: count, by: workers) {
                        let bytes = Data("Vendor \(i) \(UUID().uuidString);2024-01-\(i % 28 + 1);\(i).00".utf8)
                        try await pipeline.submit(imageData: bytes, filename: "r\(i).jpg", as: .admin)
                    }
                }
            }
            try await group.waitForAll()
        }
        let submitted = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pipeline.run() }
            var done = 0
            for await _ in finished.stream {
                done += 1
                if done == count { break }
            }
            group.cancelAll()
        }
        let worked = clock.now
        let counts = try await pipeline.queueStatusCounts()
        guard counts[.completed] == count else { fail("expected \(count) completed receipts, found \(counts)") }
        func perReceipt(_ duration: Duration) -> Double {
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            return (seconds * 1000 / Double(count) * 1000).rounded() / 1000
        }
        print("{\"receipts\":\(count),\"workers\":\(workers),\"submitMs\":\(perReceipt(submitted - started)),"
              + "\"claimCompleteMs\":\(perReceipt(worked - submitted)),\"totalMs\":\(perReceipt(worked - started))}")
    } catch {
        fail("\(error)")
    }
    exit(0)
}

if arguments.count >= 3, arguments[1] == "--submit" {
    do {
        let pipeline = try await ReceiptPipeline.open(try StoreLocation(arguments[2]), drivers: [PostgresStoreDriver()], processor: SlowProcessor(delay: 0, announce: false),
                                                      configuration: .init(workers: 1), logger: logger)
        for file in arguments.dropFirst(3) { try await pipeline.submit(imageAt: file, as: .admin) }
    } catch {
        fail("\(error)")
    }
    exit(0)
}

guard arguments.count >= 3 else {
    fail("usage: receipts-queue-helper STORE FOLDER [DELAY] [WORKERS] | --work STORE DELAY WORKERS LEASE | --bench STORE COUNT WORKERS | --submit STORE FILE...")
}
let delay = arguments.count > 3 ? Double(arguments[3]) ?? 0.1 : 0.1
let workers = arguments.count > 4 ? Int(arguments[4]) ?? 2 : 2
let folder = URL(fileURLWithPath: arguments[2])
let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { folder.appendingPathComponent($0).path }
do {
    let pipeline = try await ReceiptPipeline.open(
        try StoreLocation(arguments[1]), drivers: [PostgresStoreDriver()], processor: SlowProcessor(delay: delay, announce: false),
        configuration: .init(workers: workers, leaseDuration: 60, pollInterval: 0.05), logger: logger)
    for try await outcome in pipeline.process(files: files, as: .admin) {
        FileHandle.standardOutput.write(Data((outcome.record.json.serialized() + "\n").utf8))
    }
} catch {
    fail("\(error)")
}
