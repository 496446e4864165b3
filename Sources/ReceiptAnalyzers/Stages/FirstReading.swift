import ReceiptModel

/// The analysis's first stage: the first OCR pass read by the rules and, where its total or its
/// date wants support, further whole-page passes merged in (`Reading.merge`).
///
/// When the first pass gives no total, or an unlabelled total no cross-check confirms, it asks for
/// a close-up of the totals rows when their amounts were unreadable, then `rereadPasses`, and keeps
/// the best-supported total; when the date is still missing it asks for `dateRereadPasses`, which
/// only fill in missing fields.
struct FirstReading {
    let rereadPasses: [OCRPass]
    let dateRereadPasses: [OCRPass]

    /// A further pass and what it is read for.
    private struct Reread {
        let pass: OCRPass
        /// Made for a missing date: it has no say on the total (the binarized page misreads more
        /// amounts), and is read only while the date is missing.
        let forDate: Bool
    }

    func read(_ input: AnalysisInput, options: AnalysisOptions) async throws -> Reading {
        var reading = Reading(ocr: input.ocr, options: options)
        guard let reader = input.reader, reading.wantsReread else { return reading }
        var planned: [Reread] = []
        if reading.totalWantsReread {
            if let region = reading.totalsRegion() {
                planned.append(Reread(pass: OCRPass(pageSegmentationMode: 6, scale: 2, region: region), forDate: false))
            }
            planned += rereadPasses.map { Reread(pass: $0, forDate: false) }
        }
        planned += dateRereadPasses.filter { p in !planned.contains { $0.pass == p } }.map { Reread(pass: $0, forDate: true) }
        for reread in planned where reread.forDate ? reading.date == nil : reading.wantsReread {
            try Task.checkCancellation()
            guard let ocr = try await reader.further(reread.pass) else { continue }
            reading.merge(Reading(ocr: ocr, options: options, isPartial: reread.pass.region != nil), totals: !reread.forDate)
        }
        return reading
    }
}
