// Test support is built for the tests only (debug builds, where @testable imports work):
// `swift build -c release` builds every regular target, this one included, and gets it empty.
#if DEBUG
import Foundation
import ReceiptKit

/// A `ReceiptProcessing` test double whose "image" is a script in the bytes:
/// `vendor=Shell;date=2024-03-01;total=23.45;tax=3.91;currency=GBP;category=Fuel;delay=0.05;transient=2;permanent=1;overlap=1;id=7`
/// (`overlap=0`: as a picture of several, it shares no row with the one before).
/// `transient=N` throws a transient error on the first N calls for that content; `permanent=1`
/// throws a permanent one; `delay` sleeps (without blocking a thread). Bytes that are not such a
/// script are "not an image". It counts calls per content, so tests can tell whether a receipt
/// was read again.
final class ScriptedProcessor: ReceiptProcessing, @unchecked Sendable {
    // Invariant: `calls` is only touched with `lock` held.
    private let lock = NSLock()
    private var calls: [String: Int] = [:]

    static func image(vendor: String = "Shell", date: String = "2024-03-01", total: String = "23.45", tax: String = "3.91",
                      currency: String = "GBP", category: String = "Fuel", delay: Double = 0, transient: Int = 0,
                      permanent: Bool = false, overlapsAbove: Bool = true, id: String = UUID().uuidString) -> Data {
        Data("receipt;vendor=\(vendor);date=\(date);total=\(total);tax=\(tax);currency=\(currency);category=\(category);delay=\(delay);transient=\(transient);permanent=\(permanent ? 1 : 0);overlap=\(overlapsAbove ? 1 : 0);id=\(id)".utf8)
    }

    var totalCalls: Int { lock.withLock { calls.values.reduce(0, +) } }

    func calls(for data: Data) -> Int { lock.withLock { calls[String(decoding: data, as: UTF8.self)] ?? 0 } }

    func process(imageData: Data, displayPath: String) async throws -> ProcessedReceipt {
        let text = String(decoding: imageData, as: UTF8.self)
        let call = lock.withLock { () -> Int in
            calls[text, default: 0] += 1
            return calls[text]!
        }
        guard text.hasPrefix("receipt;") else {
            throw ReceiptError(.badImage, file: displayPath, "not an image (unknown format)")
        }
        var fields: [String: String] = [:]
        for part in text.split(separator: ";").dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        if let delay = fields["delay"].flatMap(Double.init), delay > 0 {
            try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
        }
        if let transient = fields["transient"].flatMap(Int.init), call <= transient {
            throw ReceiptError(.analysisFailed, file: displayPath, "remote analyzer timed out", retry: .later)
        }
        if fields["permanent"] == "1" {
            throw ReceiptError(.badImage, file: displayPath, "truncated JPEG")
        }
        let analysis = ReceiptAnalysis(
            vendor: fields["vendor"], date: fields["date"].flatMap(CalendarDate.init(iso:)),
            total: fields["total"].flatMap { Decimal(string: $0) }, tax: fields["tax"].flatMap { Decimal(string: $0) },
            currency: fields["currency"], category: fields["category"],
            confidence: FieldConfidence(vendor: 0.9, date: 0.9, total: 0.9, tax: 0.9, currency: 0.9, category: 0.9,
                                        needsReview: false),
            analyzer: "scripted")
        let ocr = OCRResult(text: "OCR TEXT of \(displayPath)\nTOTAL \(fields["total"] ?? "")", lines: [],
                            meanConfidence: 90, imageWidth: 10, imageHeight: 10, sourceWidth: 10, sourceHeight: 10)
        return ProcessedReceipt(ocr: ocr, analysis: analysis)
    }

    /// A receipt of several scripted pictures, as the real processor joins them: the header
    /// (vendor, date) from the first picture, the totals (total, tax) from the last, and
    /// `analysis.pictures` naming them.
    func process(pictures: [ReceiptPicture], displayPath: String) async throws -> ProcessedReceipt {
        guard pictures.count > 1 else { return try await process(imageData: pictures[0].data, displayPath: displayPath) }
        var read: [ProcessedReceipt] = []
        for picture in pictures { read.append(try await process(imageData: picture.data, displayPath: picture.name)) }
        var analysis = read[0].analysis
        analysis.total = read.last!.analysis.total
        analysis.tax = read.last!.analysis.tax
        // `overlap=0` in a picture's script: it shares no row with the one before (another receipt).
        analysis.details.append(("pictures", .array(pictures.enumerated().map { i, picture in
            let overlap = String(decoding: picture.data, as: UTF8.self).contains(";overlap=0") ? 0 : 3
            return .object([("file", .string(picture.name))] + (i > 0 ? [("overlapRows", .int(overlap))] : []))
        })))
        return ProcessedReceipt(ocr: read[0].ocr, analysis: analysis)
    }
}

#endif
