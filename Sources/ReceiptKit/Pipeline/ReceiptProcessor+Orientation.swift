import Foundation
import ReceiptModel
import ReceiptOCR

/// Pages stored sideways or upside down with no EXIF orientation to say so (a scan fed in turned,
/// a photo whose orientation was lost on the way): the neural reader reads almost none of such a
/// page clearly, and reads it clearly once turned.
extension ReceiptProcessor {
    /// Under this share of its characters in clearly read words (`clearCharacters`), a page may be
    /// turned. Of the 764 labelled receipts, read as stored (all upright), the lowest share is
    /// 0.64, most are over 0.9; the same pages turned by 90°, 180° or 270° read 0.45 at most.
    static let turnedPageShare = 0.55
    /// A turn reading this share clearly is taken without trying the others.
    static let clearlyUprightShare = 0.8
    /// A word read with this confidence or more is read clearly.
    static let clearConfidence = 80.0

    /// Characters in words read clearly (confidence `clearConfidence` or more), and their share of
    /// all the reading's characters.
    static func clearCharacters(_ reading: OCRResult) -> (count: Int, share: Double) {
        var all = 0, clear = 0
        for word in reading.lines.flatMap(\.words) {
            all += word.text.count
            if word.confidence >= clearConfidence { clear += word.text.count }
        }
        return (clear, all == 0 ? 0 : Double(clear) / Double(all))
    }

    /// When the neural reader read little of the page clearly, the page read turned by a quarter
    /// either way and by a half, and the session's page turned (`OCRSession.turnPage`) to the turn
    /// that reads clearly (`turnedPageShare`) and more than the page as stored. Returns that turn's
    /// reading, or nil when the page stays as stored (nearly every page: nothing is read again).
    func upright(_ session: OCRSession, _ reading: OCRResult) async throws -> OCRResult? {
        let asStored = Self.clearCharacters(reading)
        guard asStored.share < Self.turnedPageShare, !session.readFromTextLayer else { return nil }
        var best: (turn: PageTurn, reading: OCRResult, clear: Int)?
        for turn in [PageTurn.right, .left, .half] {
            let trial: OCRResult
            do {
                trial = try await session.neuralReading(turned: turn)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                continue
            }
            let clear = Self.clearCharacters(trial)
            if clear.share >= Self.turnedPageShare, clear.count > (best?.clear ?? asStored.count) {
                best = (turn, trial, clear.count)
            }
            if clear.share >= Self.clearlyUprightShare { break }
        }
        guard let best else { return nil }
        try session.turnPage(best.turn)
        logger.info("Page read turned", metadata: ["receipt.file": "\(session.file)", "page.turn": "\(best.turn.rawValue)"])
        return best.reading
    }
}
