import Foundation

extension ReceiptProcessor {
    /// Reads an e-receipt (an e-mail's body, see `EReceipt`) without OCR: its rows are the reading,
    /// exact like a PDF's text layer (no further passes, no second reader); the analyzer reads them,
    /// then the fields the sender embedded as structured data replace what it read. A body without
    /// an amount fails the receipt (its name is the message's subject and sender): it held no receipt.
    func process(_ eReceipt: EReceipt, displayPath: String) async throws -> ProcessedReceipt {
        let clock = ContinuousClock()
        let start = clock.now
        guard eReceipt.hasAmounts else {
            // `displayPath` names the message: its subject and sender.
            throw ReceiptError(.noText, file: displayPath, "no receipt in the message: no PDF or image attachment and no amounts in its text")
        }
        let ocr = eReceipt.reading()
        var input = AnalysisInput(source: displayPath, ocr: ocr)
        input.memory = memory
        var analysis = try await analyze(input)
        if let structured = eReceipt.structured { Self.apply(structured, to: &analysis) }
        let elapsed = Int((clock.now - start) / .milliseconds(1))
        analysis.timings = ReceiptTimings(ocrMs: 0, analysisMs: elapsed, totalMs: elapsed)
        analysis.details.append(("reading", .string("e-receipt")))
        analysis.details.append(("sources", FieldSources.locate(analysis, in: ocr).json))
        return ProcessedReceipt(ocr: ocr, analysis: analysis)
    }

    /// The sender's structured fields over the analyzer's reading, each with full confidence; with
    /// the total, the date and the vendor all given, nothing is left for a person to check.
    static func apply(_ fields: EReceipt.StructuredFields, to analysis: inout ReceiptAnalysis) {
        if let vendor = fields.vendor { analysis.vendor = vendor; analysis.confidence.vendor = 1 }
        if let date = fields.date { analysis.date = date; analysis.confidence.date = 1 }
        if let total = fields.total { analysis.total = total; analysis.confidence.total = 1 }
        if let tax = fields.tax { analysis.tax = tax; analysis.confidence.tax = 1 }
        if let currency = fields.currency { analysis.currency = currency; analysis.confidence.currency = 1 }
        if fields.vendor != nil, fields.date != nil, fields.total != nil { analysis.flag(analysis.review.filter { $0 == "tax" && fields.tax == nil }) }
        analysis.details.append(("structuredData", .string(fields.kind)))
    }
}
