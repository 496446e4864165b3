// Test helper: runs one queue batch over every file of a folder with a slow stand-in processor,
// printing each NDJSON record as it finishes, so a test can SIGKILL it mid-batch and run it again.
//
//     receipts-queue-crash-helper STORE FOLDER [DELAY_SECONDS] [WORKERS]
//
// A file's bytes are its "receipt": `vendor;date;total`. Not part of the receipts tool.
import Foundation
import Logging
import ReceiptKit

struct SlowProcessor: ReceiptProcessing {
    var delay: Double

    func process(imageData: Data, displayPath: String) async throws -> ProcessedReceipt {
        try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
        let parts = String(decoding: imageData, as: UTF8.self).split(separator: ";").map(String.init)
        guard parts.count == 3 else { throw ReceiptError(.badImage, file: displayPath, "not a test receipt") }
        let analysis = ReceiptAnalysis(vendor: parts[0], date: CalendarDate(iso: parts[1]), total: Decimal(string: parts[2]),
                                       currency: "GBP", category: "Fuel", analyzer: "crash-helper")
        let ocr = OCRResult(text: parts.joined(separator: "\n"), lines: [], meanConfidence: 90, imageWidth: 1,
                            imageHeight: 1, sourceWidth: 1, sourceHeight: 1)
        return ProcessedReceipt(ocr: ocr, analysis: analysis)
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: receipts-queue-crash-helper STORE FOLDER [DELAY] [WORKERS]\n".utf8))
    exit(2)
}
let delay = arguments.count > 3 ? Double(arguments[3]) ?? 0.1 : 0.1
let workers = arguments.count > 4 ? Int(arguments[4]) ?? 2 : 2
let folder = URL(fileURLWithPath: arguments[2])
let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { folder.appendingPathComponent($0).path }
let logger = Logger(label: "crash-helper") { StreamLogHandler.standardError(label: $0) }
do {
    let pipeline = try ReceiptPipeline(
        storePath: arguments[1], processor: SlowProcessor(delay: delay),
        configuration: .init(workers: workers, leaseDuration: 60, pollInterval: 0.05), logger: logger)
    for try await outcome in pipeline.process(files: files) {
        FileHandle.standardOutput.write(Data((outcome.record.json.serialized() + "\n").utf8))
    }
} catch {
    FileHandle.standardError.write(Data("receipts-queue-crash-helper: \(error)\n".utf8))
    exit(1)
}
