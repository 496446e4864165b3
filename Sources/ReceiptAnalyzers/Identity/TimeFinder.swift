import Foundation
import ReceiptModel

/// The purchase's time of day, `HH:MM` (24 hours).
package struct TimeFinding: Sendable, Equatable {
    package var value: String
    package var words: [OCRWord]
    package var confidence: Double
}

/// Finds the purchase's time: a time on a row labelled as one (`TIME`, `Zeit`, `Hora`, `Heure`),
/// else on the date's row, else the first time printed on its own — never a range of opening
/// hours (`10:00-22:00`, `9AM - 9PM`) nor a time on a row of hours, expiry or validity. `14:03`,
/// `2:03 PM`, `14.03` after a time label, `14h03`; seconds are dropped.
package enum TimeFinder {
    static let time = Pattern(#"(?<![\d:.])([01]?\d|2[0-3])\s?(:|h)\s?([0-5]\d)(?::[0-5]\d)?(?![\d])\s*([AP]\.?\s?M\.?)?"#)
    /// A time with a point (`14.03`), only where a time label says it is one.
    static let dottedTime = Pattern(#"(?<![\d.])([01]?\d|2[0-3])\.([0-5]\d)(?![\d.,])\s*([AP]\.?\s?M\.?)?"#)
    static let labels: PhraseList = ["TIME", "ZEIT", "UHRZEIT", "HORA", "HEURE", "ORA", "TID", "TIJD"]
    static let notPurchase: PhraseList = ["OPEN", "OPENING", "HOURS", "CLOSE", "CLOSED", "DAILY", "MON", "TUE", "WED", "THU", "FRI",
                                          "EXP", "EXPIRY", "EXPIRES", "VALID", "UNTIL", "BEFORE", "ARRIVAL", "DEPARTURE",
                                          "MONDAY", "FRIDAY", "SUNDAY", "SATURDAY", "OUT", "BIS"]
    static let range = Pattern(#"\d\s?(?:AM|PM|A\.M\.|P\.M\.)?\s*(?:-|–|TO|BIS)\s*\d{1,2}\s?(?::|h|AM|PM)"#)

    /// - Parameter dateRow: the row the date was read from, if known.
    package static func find(_ document: ReceiptDocument, dateRow: Int?) -> TimeFinding? {
        var found: [(priority: Int, row: Int, finding: TimeFinding)] = []
        for line in document.lines {
            let label = LabelText(line.text)
            guard !range.matches(line.upper) else { continue }
            let labelled = label.hasAny(labels)
            if label.hasAny(notPurchase) && !labelled { continue }
            var times = time.matches(in: line.upper).compactMap(reading)
            if times.isEmpty, labelled { times = dottedTime.matches(in: line.upper).compactMap(dottedReading) }
            guard let first = times.first else { continue }
            let priority = labelled ? 0 : line.index == dateRow ? 1 : 2
            found.append((priority, line.index, TimeFinding(value: first, words: words(line, first), confidence: line.confidence / 100 * (priority == 2 ? 0.8 : 0.95))))
        }
        return found.min { ($0.priority, $0.row) < ($1.priority, $1.row) }?.finding
    }

    /// `HH:MM` of a match of `time`.
    static func reading(_ match: (groups: [String?], offset: Int)) -> String? {
        guard let h = match.groups[1].flatMap({ Int($0) }), let m = match.groups[3].flatMap({ Int($0) }) else { return nil }
        return clock(h, m, suffix: match.groups[4])
    }

    static func dottedReading(_ match: (groups: [String?], offset: Int)) -> String? {
        guard let h = match.groups[1].flatMap({ Int($0) }), let m = match.groups[2].flatMap({ Int($0) }) else { return nil }
        return clock(h, m, suffix: match.groups[3])
    }

    static func clock(_ hour: Int, _ minute: Int, suffix: String?) -> String? {
        var h = hour
        if let suffix {
            guard (1...12).contains(hour) else { return nil }
            let pm = suffix.uppercased().hasPrefix("P")
            h = hour % 12 + (pm ? 12 : 0)
        }
        return String(format: "%02d:%02d", h, minute)
    }

    /// The row's words holding the time's digits.
    static func words(_ line: ReceiptLine, _ value: String) -> [OCRWord] {
        let minutes = String(value.suffix(2))
        return line.words.filter { $0.text.contains(":") && $0.text.contains(minutes) || $0.text.contains(value) }
    }

    /// `HH:MM` of a label's text (`14:03Num.`, `2:05PM`), for scoring against ground truth.
    package static func clock(in text: String) -> String? {
        time.matches(in: text.uppercased()).compactMap(reading).first
    }
}
