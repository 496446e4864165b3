import Foundation
import ReceiptModel

/// The transaction date read from a receipt.
package struct DateFinding: Sendable, Equatable {
    package var date: CalendarDate
    /// 0–1.
    package var confidence: Double
    /// The row it was read from (index into the document's lines).
    package var line: Int? = nil
}

/// Finds the transaction date among the dates a receipt prints.
///
/// Formats: `DD/MM/YYYY`, `DD-MM-YY`, `DD.MM.YYYY`, `MM/DD/YYYY`, `YYYY-MM-DD`, `YYYY/MM/DD`,
/// `D MMM YYYY`, `DD MMM YY`, `DD-MMM-YYYY`, `MMM D, YYYY`, `YYYY-MMM-DD`, `DDMMMYY`, `YYYYMMDD`,
/// `YYYY年M月D日` and the like, with English and common European month names. A numeric date
/// valid both ways (03/04/2024) is read in the order the receipt's other dates prove, else the
/// one its currency or country implies, else the configured default. A date is a calendar date: no time zone is ever involved.
package enum DateFinder {
    package struct Candidate {
        var date: CalendarDate
        /// The other reading of an ambiguous numeric date.
        var alternative: CalendarDate?
        var line: Int
        var score: Double
    }

    package static let monthNames: [(String, Int)] = [
        ("JANUARY", 1), ("JANUARI", 1), ("JANVIER", 1), ("JANUAR", 1), ("JANV", 1), ("JAN", 1), ("ENERO", 1), ("ENE", 1),
        ("GENNAIO", 1), ("GEN", 1), ("JAN", 1),
        ("FEBRUARY", 2), ("FEBRUARI", 2), ("FEBRUAR", 2), ("FEVRIER", 2), ("FÉVRIER", 2), ("FEVR", 2), ("FÉVR", 2),
        ("FEBRERO", 2), ("FEBBRAIO", 2), ("FEB", 2), ("FEV", 2), ("FÉV", 2),
        ("MARCH", 3), ("MARET", 3), ("MÄRZ", 3), ("MAERZ", 3), ("MARS", 3), ("MARZO", 3), ("MAART", 3), ("MAR", 3),
        ("MRZ", 3), ("MRT", 3), ("MÄR", 3),
        ("APRIL", 4), ("AVRIL", 4), ("ABRIL", 4), ("APRILE", 4), ("APR", 4), ("AVR", 4), ("ABR", 4),
        ("MAY", 5), ("MEI", 5), ("MAI", 5), ("MAYO", 5), ("MAGGIO", 5), ("MAG", 5),
        ("JUNE", 6), ("JUNI", 6), ("JUIN", 6), ("JUNIO", 6), ("GIUGNO", 6), ("JUN", 6), ("GIU", 6),
        ("JULY", 7), ("JULI", 7), ("JUILLET", 7), ("JUIL", 7), ("JULIO", 7), ("LUGLIO", 7), ("JUL", 7), ("LUG", 7),
        ("AUGUST", 8), ("OGOS", 8), ("AOUT", 8), ("AOÛT", 8), ("AGOSTO", 8), ("AUGUSTUS", 8), ("AUG", 8), ("AGO", 8),
        ("SEPTEMBER", 9), ("SEPTEMBRE", 9), ("SEPTIEMBRE", 9), ("SETTEMBRE", 9), ("SEPT", 9), ("SEP", 9), ("SET", 9),
        ("OCTOBER", 10), ("OKTOBER", 10), ("OCTOBRE", 10), ("OCTUBRE", 10), ("OTTOBRE", 10), ("OCT", 10), ("OKT", 10),
        ("OTT", 10),
        ("NOVEMBER", 11), ("NOVEMBRE", 11), ("NOVIEMBRE", 11), ("NOV", 11),
        ("DECEMBER", 12), ("DISEMBER", 12), ("DEZEMBER", 12), ("DECEMBRE", 12), ("DÉCEMBRE", 12), ("DICIEMBRE", 12),
        ("DICEMBRE", 12), ("DEC", 12), ("DEZ", 12), ("DÉC", 12), ("DIC", 12), ("DES", 12),
    ]

    /// A word that may be a month name (checked against `monthNames` afterwards).
    private static let monthAlternation = "([A-ZÀ-Ý]{3,9})"
    private static let monthTable: [String: Int] = Dictionary(monthNames, uniquingKeysWith: { a, _ in a })

    /// `2018-01-25`, `2018/01/25`, `2018.01.25`.
    private static let isoPattern = Pattern(#"(?<!\d)((?:19|20)\d{2})\s?([-/.])\s?(\d{1,2})\s?\2\s?(\d{1,2})(?!\d)"#)
    /// `25/01/2018`, `25-01-18`, `1.2.2018`, `01/25/2018`.
    private static let numericPattern = Pattern(#"(?<![\d.,])(\d{1,2})\s?([-/.])\s?(\d{1,2})\s?\2\s?(\d{4}|\d{2})(?![\d]|,\d|\.\d)"#)
    /// A numeric date with the time glued to it: `4/4/20127:33 AM`, `1/22/2016159 PM` (a 4-digit
    /// year, then a time with its colon or an AM/PM), `12/28/18,03:12 PM` (a 2-digit year, a comma
    /// and a time). `numericPattern` refuses a year followed by digits, as an amount's would be.
    private static let numericBeforeTimePattern = Pattern(
        #"(?<![\d.,])(\d{1,2})([-/.])(\d{1,2})\2((?:19|20)\d{2}(?=\d{1,2}(?::\d{2}|\d{2}\s?[AP]\.?\s?M))|\d{2}(?=,\s?\d{1,2}:\d{2}))"#)
    /// `2 APR 2018`, `14/JUN/2017`, `24-MAR-18`, `16AUG2015`, `21NOV'15`, `23 juin 2016`.
    private static let dayMonthPattern = Pattern(#"(?<![\d])(\d{1,2})(?:ST|ND|RD|TH|ER)?[\s\-/.,]*"# + monthAlternation
                                                 + #"\.?[\s\-/.,'’"°]*((?:19|20)\d{2}|\d{2})(?!\d)"#, caseInsensitive: false)
    /// `OCT 3, 2016`, `MAY08.17`, `Aug09,2012`, `January 5th 2020`, `Nov12"16` (the apostrophe read as a quote).
    private static let monthDayPattern = Pattern(#"(?<![A-Z])"# + monthAlternation
                                                 + #"\.?[\s\-/.]*(\d{1,2})(?:ST|ND|RD|TH)?[\s,.'"’°\-/]*((?:19|20)\d{2}|['"’°]?\d{2})(?![\d:])"#, caseInsensitive: false)
    /// `2018-MAR-16`, `2018 Mar 16`: the year first, then the month's name.
    private static let yearMonthNamePattern = Pattern(#"(?<!\d)((?:19|20)\d{2})\s?[-/.\s]\s?"# + monthAlternation
                                                      + #"\.?\s?[-/.\s]\s?(\d{1,2})(?![\d:])"#, caseInsensitive: false)
    /// `2018年3月16日` (Chinese and Japanese tills).
    private static let cjkPattern = Pattern(#"((?:19|20)\d{2})\s?年\s?(\d{1,2})\s?月\s?(\d{1,2})(?!\d)"#)
    /// `20180428`.
    private static let compactPattern = Pattern(#"(?<!\d)(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?!\d)"#)
    /// `2703/2018`: the separator between day and month was lost (4-digit years only).
    private static let gluedDayMonthPattern = Pattern(#"(?<![\d.,])(\d{2})(\d{2})\s?[-/.]\s?((?:19|20)\d{2})(?!\d)"#)
    /// `48.2016`: a one-digit day and a one-digit month (4.8.2016) whose separator was lost; the
    /// pair is over 12, so it is no month before a year (`12.2019`, an expiry) (4-digit years only).
    private static let gluedOneDigitDayMonthPattern = Pattern(#"(?<![\dA-Z.,/\-])([1-9])([1-9])\s?[-/.]\s?((?:19|20)\d{2})(?![\d]|[.,]\d)"#)
    /// `17703/2018`, `20/0472018`: one slash read as a 7 or a 1 (4-digit years only).
    private static let slashAsDigitPatterns = [
        Pattern(#"(?<![\d.,])(\d{2})[17](\d{2})\s?/\s?((?:19|20)\d{2})(?!\d)"#),
        Pattern(#"(?<![\d.,])(\d{2})\s?/\s?(\d{2})[17]((?:19|20)\d{2})(?!\d)"#),
    ]
    /// `02,'22/2014`, `11.-02-2016`: specks around the separators (4-digit years only).
    private static let noisyNumericPattern = Pattern(#"(?<![\d.,])(\d{1,2})\s?[-/.,'`]{1,3}\s?(\d{1,2})\s?[-/.,'`]{1,3}\s?((?:19|20)\d{2})(?!\d)"#)
    /// `JUNO3'14`: the day's leading zero read as the letter O after a month name.
    private static let monthThenLetterO = Pattern(#"\b(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)O(\d)"#, caseInsensitive: false)
    /// `14/JUM/2017`, `14/DURI/2017`, `22-A0G-2025`, `3 0CT 2019`: a word between a day and a year
    /// (separated on both sides the same way, or by spaces) where a month name stands; read when
    /// it is a month misread (`fuzzyMonth`).
    private static let misreadMonthPattern = Pattern(#"(?<![\d])(\d{1,2})\s?([-/.\s])\s?([A-Z0-9|!$§]{2,9})\.?\s?\2\s?((?:19|20)\d{2}|\d{2})(?!\d)"#,
                                                     caseInsensitive: false)
    /// `A0G 22, 2025`, `0CT 3 2019`: a misread month name, then the day and a four-digit year.
    private static let misreadMonthFirstPattern = Pattern(
        #"(?<![A-Z0-9])([A-Z0-9|!$§]{3,9})\.?\s?(\d{1,2})(?:ST|ND|RD|TH)?[\s,.'’]+((?:19|20)\d{2})(?![\d:])"#, caseInsensitive: false)
    /// `22 4UG'16`, `224PR'16`: the A of AUG or APR read as a 4 after the day, a year after it
    /// (not a price: `124PR 16.99`).
    private static let monthWithAAsFour = Pattern(#"(?<![\dA-Z])(\d{1,2})\s?4(UG|PR)(?=[\s\-/.,'’°"]*(?:19|20)?\d{2}(?![\d.,]\d))"#,
                                                  caseInsensitive: false)
    /// US and Canadian phone numbers: `(323) 939-5528`, `214-892-1299`, `608.827.9808`. Written
    /// without brackets, area code and exchange both start with 2–9, which numbers elsewhere
    /// written in three-three-four groups do not (a trunk 0 leads them: `012-345-6789`).
    package static let northAmericanPhone = Pattern(
        #"\(\d{3}\)\s?\d{3}\s?-\s?\d{4}|(?<![\d+.\-/])[2-9]\d{2}([-.])[2-9]\d{2}\1\d{4}(?![\d.\-/])"#)
    private static let timePattern = Pattern(#"\d{1,2}\s?[:.]\s?\d{2}(\s?[:.]\s?\d{2})?\s*(AM|PM)?|\d{1,2}\s?(AM|PM)\b"#)

    private static let dateLabels: PhraseList = ["DATE", "DATED", "TARIKH", "DATUM", "FECHA", "DATA", "TIME", "TRANS", "TXN",
                                     "SALE", "INVOICE DATE", "BILL DATE", "ORDER DATE", "TRANSACTION"]
    private static let otherDateLabels: PhraseList = ["EXP", "EXPIRY", "EXPIRES", "EXPIRATION", "VALID", "UNTIL", "BEST BEFORE",
                                          "USE BY", "PRINTED", "PRINT", "DUE DATE", "BIRTH", "DOB", "SINCE", "RETURN BY",
                                          "RETURNS", "RETURN", "BEFORE", "GOOD THRU", "GOOD THROUGH", "VALID TILL",
                                          "EXCHANGE", "OFFER", "ENDS", "EXPIRE", "SURVEY", "REDEEM", "VOID AFTER"]

    /// The transaction date: every row is read by each of `rowRules` in turn, each date found is
    /// scored (`scored`), and the best one wins (`bestCandidate`); doubtful readings are taken only
    /// when no row gives a date (`lastResortFinding`). `today` bounds the years a receipt can
    /// print (up to next year's).
    package static func find(_ document: ReceiptDocument, orderHint: DateOrder?, defaultOrder: DateOrder,
                             today: CalendarDate) -> DateFinding? {
        let latestYear = today.year + 1
        var rows: [Row] = []
        for line in document.lines {
            guard var row = Row(line) else { continue }
            for rule in rowRules { rule(&row) }
            rows.append(row)
        }
        let candidates = rows.flatMap { row in row.found.map { scored($0, on: row, latestYear: latestYear) } }
        let dayFirstEvidence = rows.map(\.dayFirstEvidence).reduce(0, +)
        let monthFirstEvidence = rows.map(\.monthFirstEvidence).reduce(0, +)
        // Resolve ambiguous numeric dates.
        let order: DateOrder
        if dayFirstEvidence > monthFirstEvidence { order = .dayFirst }
        else if monthFirstEvidence > dayFirstEvidence { order = .monthFirst }
        else { order = orderHint ?? defaultOrder }
        guard !candidates.isEmpty else {
            return lastResortFinding(rows.flatMap(\.lastResort), order: order, latestYear: latestYear)
        }
        let orderProven = dayFirstEvidence != monthFirstEvidence || orderHint != nil
        return bestCandidate(candidates, order: order, orderProven: orderProven, latestYear: latestYear)
    }

    // MARK: - Reading the rows

    /// A date a rule read on a row, before scoring.
    private struct Reading {
        var date: CalendarDate
        /// The other reading of an ambiguous numeric date.
        var alternative: CalendarDate?
        /// How much the rule that read it is trusted (1 for a clean numeric date with a 4-digit year).
        var quality: Double
    }

    /// One row as the date rules see it, and what they found on it.
    private struct Row {
        let index: Int
        /// The row upper-cased with OCR slips around its digits undone (`prepared`).
        let text: String
        /// The row upper-cased as read.
        let upper: String
        let hasWords: Bool
        /// `/`, `-` or `.` on the row.
        let hasSeparators: Bool
        /// What the row's labels and time say about its dates (`context`).
        let context: Double
        var found: [Reading] = []
        /// Dates too doubtful to take when some row gives a date (`lastResortFinding`).
        var lastResort: [Candidate] = []
        /// Numeric dates valid only day-first, or only month-first: they settle the order of
        /// ambiguous ones.
        var dayFirstEvidence = 0, monthFirstEvidence = 0

        /// Nil for a row without a digit.
        init?(_ line: ReceiptLine) {
            let text = prepared(line.upper)
            guard text.contains(where: \.isNumber) else { return nil }
            index = line.index
            self.text = text
            upper = line.upper
            hasWords = text.contains(where: \.isLetter)
            hasSeparators = text.contains(where: { $0 == "/" || $0 == "-" || $0 == "." })
            context = DateFinder.context(LabelText(line.text), text: text)
        }

        mutating func add(_ date: CalendarDate, alternative: CalendarDate? = nil, quality: Double) {
            found.append(Reading(date: date, alternative: alternative, quality: quality))
        }
    }

    /// The row's upper-cased text with OCR slips undone: letters for digits (`repairDigits`), the
    /// day's leading zero read as O (`JUNO3'14`, `monthThenLetterO`), the A of a month read as 4
    /// (`22 4UG'16`, `monthWithAAsFour`).
    private static func prepared(_ upper: String) -> String {
        var text = repairDigits(upper)
        if text.contains("O") && text.contains(where: \.isNumber), monthThenLetterO.matches(text) {
            text = replacing(monthThenLetterO, in: text, with: "$1 0$2")
        }
        if text.contains("4U") || text.contains("4P"), monthWithAAsFour.matches(text) {
            text = replacing(monthWithAAsFour, in: text, with: "$1 A$2")
        }
        return text
    }

    private static func replacing(_ pattern: Pattern, in text: String, with template: String) -> String {
        pattern.regex.stringByReplacingMatches(
            in: text, range: NSRange(location: 0, length: (text as NSString).length), withTemplate: template)
    }

    /// A date label on the row counts for its dates (+2), and so does a time (+1.5); an expiry
    /// date's label and the like count against them (-6).
    private static func context(_ label: LabelText, text: String) -> Double {
        var context = 0.0
        if label.hasAny(dateLabels) { context += 2 }
        if timePattern.matches(text) { context += 1.5 }
        if label.hasAny(otherDateLabels) { context -= 6 }
        return context
    }

    /// The rules reading dates on a row, in order: the order matters, as several read only a row
    /// the ones before found no date on.
    private static let rowRules: [@Sendable (inout Row) -> Void] = [
        isoDates, numericDates, noisyNumericDates, gluedDayMonthDates, gluedOneDigitDayMonthDates, slashReadAsDigitDates,
        misreadDayMonthDates, dayMonthNameDates, monthNameDayDates, yearMonthNameDates, cjkDates, misreadMonthNameDates,
        compactDates,
    ]

    /// `2018-01-25`, `2018/01/25`, `2018.01.25`.
    private static func isoDates(_ row: inout Row) {
        guard row.hasSeparators else { return }
        for m in isoPattern.matches(in: row.text) {
            if let y = Int(m.groups[1]!), let mo = Int(m.groups[3]!), let d = Int(m.groups[4]!),
               let date = CalendarDate(year: y, month: mo, day: d) {
                row.add(date, quality: 1)
            }
        }
    }

    /// `25/01/2018`, `25-01-18`, `01/25/2018` (and with a time glued, `numericBeforeTimePattern`):
    /// both readings of an ambiguous date are kept; one valid only one way is evidence of the
    /// receipt's order. A 2-digit year is trusted less.
    private static func numericDates(_ row: inout Row) {
        guard row.hasSeparators else { return }
        for m in numericPattern.matches(in: row.text) + numericBeforeTimePattern.matches(in: row.text) {
            guard let a = Int(m.groups[1]!), let b = Int(m.groups[3]!), let y = year(m.groups[4]!) else { continue }
            let dayFirst = CalendarDate(year: y, month: b, day: a)
            let monthFirst = CalendarDate(year: y, month: a, day: b)
            let quality = m.groups[4]!.count == 4 ? 1.0 : 0.6
            switch (dayFirst, monthFirst) {
            case let (d?, m?) where d != m:
                row.add(d, alternative: m, quality: quality)
            case let (d?, _):
                if monthFirst == nil { row.dayFirstEvidence += 1 }
                row.add(d, quality: quality)
            case let (nil, m?):
                row.monthFirstEvidence += 1
                row.add(m, quality: quality)
            default: break
            }
        }
    }

    /// `02,'22/2014`, `11.-02-2016`: specks around the separators (4-digit years only), when no
    /// date was read on the row.
    private static func noisyNumericDates(_ row: inout Row) {
        guard row.found.isEmpty && row.hasSeparators else { return }
        for m in noisyNumericPattern.matches(in: row.text) {
            guard let a = Int(m.groups[1]!), let b = Int(m.groups[2]!), let y = Int(m.groups[3]!) else { continue }
            let dayFirst = CalendarDate(year: y, month: b, day: a), monthFirst = CalendarDate(year: y, month: a, day: b)
            if let d = dayFirst ?? monthFirst {
                row.add(d, alternative: dayFirst != nil && monthFirst != nil && dayFirst != monthFirst ? monthFirst : nil, quality: 0.5)
            }
        }
    }

    /// `2703/2018`: the separator between day and month lost, when no date was read on the row.
    private static func gluedDayMonthDates(_ row: inout Row) {
        guard row.found.isEmpty && row.hasSeparators else { return }
        for m in gluedDayMonthPattern.matches(in: row.text) {
            guard let a = Int(m.groups[1]!), let b = Int(m.groups[2]!), let y = Int(m.groups[3]!) else { continue }
            if let d = CalendarDate(year: y, month: b, day: a) ?? CalendarDate(year: y, month: a, day: b) {
                row.add(d, quality: 0.3)
            }
        }
    }

    /// `48.2016`: a one-digit day and month whose separator was lost. Only when the receipt shows
    /// no other date: two digits before a year are thin evidence.
    private static func gluedOneDigitDayMonthDates(_ row: inout Row) {
        guard row.found.isEmpty && row.hasSeparators else { return }
        for m in gluedOneDigitDayMonthPattern.matches(in: row.text) {
            guard let a = Int(m.groups[1]!), let b = Int(m.groups[2]!), a * 10 + b > 12, let y = Int(m.groups[3]!),
                  let d = CalendarDate(year: y, month: b, day: a) else { continue }
            let alternative = a != b ? CalendarDate(year: y, month: a, day: b) : nil
            row.lastResort.append(Candidate(date: d, alternative: alternative, line: row.index, score: row.context))
        }
    }

    /// `17703/2018`, `20/0472018`: one slash read as a 7 or a 1, on a row with a date label or a
    /// time and no date read.
    private static func slashReadAsDigitDates(_ row: inout Row) {
        guard row.found.isEmpty && row.context > 0 && row.text.contains("/") else { return }
        for pattern in slashAsDigitPatterns {
            for m in pattern.matches(in: row.text) {
                guard let a = Int(m.groups[1]!), let b = Int(m.groups[2]!), let y = Int(m.groups[3]!) else { continue }
                if let d = CalendarDate(year: y, month: b, day: a) ?? CalendarDate(year: y, month: a, day: b) {
                    row.add(d, quality: 0.2)
                }
            }
        }
    }

    /// "99/02/2018", "63/11/24": one digit of the day or month misread. With a 4-digit
    /// year and a date label or time on the row it is a candidate; otherwise only
    /// when the receipt shows no other date.
    private static func misreadDayMonthDates(_ row: inout Row) {
        guard row.found.isEmpty && row.hasSeparators else { return }
        for m in numericPattern.matches(in: row.text) {
            guard let y = year(m.groups[4]!), let d = repairDayMonth(m.groups[1]!, m.groups[3]!, year: y) else { continue }
            if m.groups[4]!.count == 4 && row.context > 0 {
                row.add(d, quality: 0.1)
            } else {
                row.lastResort.append(Candidate(date: d, alternative: nil, line: row.index, score: row.context))
            }
        }
    }

    /// `2 APR 2018`, `14/JUN/2017`, `24-MAR-18`, `16AUG2015`, `23 juin 2016`.
    private static func dayMonthNameDates(_ row: inout Row) {
        guard row.hasWords else { return }
        for m in dayMonthPattern.matches(in: row.text) {
            if let d = Int(m.groups[1]!), let mo = month(m.groups[2]!), let y = year(m.groups[3]!),
               let date = CalendarDate(year: y, month: mo, day: d) {
                row.add(date, quality: 1.2)
            }
        }
    }

    /// `OCT 3, 2016`, `MAY08.17`, `January 5th 2020`.
    private static func monthNameDayDates(_ row: inout Row) {
        guard row.hasWords else { return }
        for m in monthDayPattern.matches(in: row.text) {
            if let mo = month(m.groups[1]!), let d = Int(m.groups[2]!), let y = year(m.groups[3]!),
               let date = CalendarDate(year: y, month: mo, day: d) {
                row.add(date, quality: 1.1)
            }
        }
    }

    /// `2018-MAR-16`, `2018 Mar 16`.
    private static func yearMonthNameDates(_ row: inout Row) {
        guard row.hasWords else { return }
        for m in yearMonthNamePattern.matches(in: row.text) {
            if let y = Int(m.groups[1]!), let mo = month(m.groups[2]!), let d = Int(m.groups[3]!),
               let date = CalendarDate(year: y, month: mo, day: d) {
                row.add(date, quality: 1.1)
            }
        }
    }

    /// `2018年3月16日`.
    private static func cjkDates(_ row: inout Row) {
        guard row.text.contains("年") else { return }
        for m in cjkPattern.matches(in: row.text) {
            if let y = Int(m.groups[1]!), let mo = Int(m.groups[2]!), let d = Int(m.groups[3]!),
               let date = CalendarDate(year: y, month: mo, day: d) {
                row.add(date, quality: 1.2)
            }
        }
    }

    /// `14/JUM/2017`, `22-A0G-2025`, `A0G 22, 2025`: a misread month name (`fuzzyMonth`) with the
    /// day and the year intact, when no date was read on the row.
    private static func misreadMonthNameDates(_ row: inout Row) {
        guard row.found.isEmpty && row.hasWords else { return }
        // The prepared text (digits mended around the day and year), then the row as read (a
        // month's letters a digit stood beside are as printed).
        for text in row.text == row.upper ? [row.text] : [row.text, row.upper] where row.found.isEmpty {
            for m in misreadMonthPattern.matches(in: text) where month(m.groups[3]!) == nil {
                if let d = Int(m.groups[1]!), let mo = fuzzyMonth(m.groups[3]!), let y = year(m.groups[4]!),
                   let date = CalendarDate(year: y, month: mo, day: d) {
                    row.add(date, quality: 0.5)
                }
            }
        }
        guard row.found.isEmpty else { return }
        for m in misreadMonthFirstPattern.matches(in: row.upper) where month(m.groups[1]!) == nil {
            if let mo = fuzzyMonth(m.groups[1]!), let d = Int(m.groups[2]!), let y = year(m.groups[3]!),
               let date = CalendarDate(year: y, month: mo, day: d) {
                row.add(date, quality: 0.5)
            }
        }
    }

    /// `20180428`, when no date was read on the row.
    private static func compactDates(_ row: inout Row) {
        guard row.found.isEmpty else { return }
        // "20180316!": a speck after the date that the letter repair made a digit.
        let compact = compactPattern.matches(in: row.text)
        for m in compact.isEmpty && row.text != row.upper ? compactPattern.matches(in: row.upper) : compact {
            if let y = Int(m.groups[1]!), let mo = Int(m.groups[2]!), let d = Int(m.groups[3]!),
               let date = CalendarDate(year: y, month: mo, day: d) {
                row.add(date, quality: 0.3)
            }
        }
    }

    // MARK: - Choosing the date

    /// A date's score: the row's context plus the rule's quality. A year after `latestYear` that
    /// one misread digit explains is mended (-1); a year outside 1995…`latestYear` counts against
    /// the date (-4).
    private static func scored(_ reading: Reading, on row: Row, latestYear: Int) -> Candidate {
        var score = row.context + reading.quality
        var date = reading.date
        if date.year > latestYear, let fixed = repairYear(date, latest: latestYear) {
            date = fixed
            score -= 1
        }
        if !(1995...latestYear).contains(date.year) { score -= 4 }
        let alternative = reading.alternative.flatMap { repairYear($0, latest: latestYear) }
        return Candidate(date: date, alternative: alternative, line: row.index, score: score)
    }

    /// When no row gave a date: the best of the doubtful readings, if its year is plausible.
    private static func lastResortFinding(_ lastResort: [Candidate], order: DateOrder, latestYear: Int) -> DateFinding? {
        guard let repaired = lastResort.max(by: { $0.score < $1.score }), (1995...latestYear).contains(repaired.date.year) else {
            return nil
        }
        return DateFinding(date: order == .monthFirst ? repaired.alternative ?? repaired.date : repaired.date, confidence: 0.3, line: repaired.line)
    }

    /// The best-scoring date, ambiguous ones read in `order`: the same date printed again counts
    /// for it, a later row a little against it.
    private static func bestCandidate(_ candidates: [Candidate], order: DateOrder, orderProven: Bool, latestYear: Int) -> DateFinding? {
        var candidates = candidates
        for i in candidates.indices {
            if let alt = candidates[i].alternative, order == .monthFirst {
                candidates[i].date = alt
            }
        }
        // The same date printed twice counts for it.
        var counts: [CalendarDate: Int] = [:]
        for c in candidates { counts[c.date, default: 0] += 1 }
        // "16/03/2416": a year no repair could bring into range is never the receipt's date.
        candidates.removeAll { !(1970...latestYear).contains($0.date.year) }
        guard !candidates.isEmpty else { return nil }
        var best = candidates[0]
        var bestScore = -Double.infinity
        for c in candidates {
            let score = c.score + Double(min(counts[c.date]! - 1, 2)) * 0.75 - Double(c.line) * 0.01
            if score > bestScore { best = c; bestScore = score }
        }
        var confidence = 0.6 + min(0.3, max(0, bestScore) * 0.08)
        if best.alternative != nil && !orderProven { confidence = min(confidence, 0.5) }
        if bestScore < 0 { confidence = 0.2 }
        return DateFinding(date: best.date, confidence: confidence, line: best.line)
    }

    /// The lowest OCR confidence (0–100) of the row's numeric date words (`16-11-18`,
    /// `04/05/2017`; not times), nil when the row has none (a date with a month name).
    package static func dateWordConfidence(_ line: ReceiptLine) -> Double? {
        line.words.filter { w in
            w.text.filter(\.isNumber).count >= 2 && w.text.contains { "/-.".contains($0) } && !w.text.contains(":")
        }.map(\.confidence).min()
    }

    /// Day and month with one digit misread (`99/02` → `09/02`, `04/42` → `04/12`), when exactly
    /// one repair gives a valid day-first date.
    package static func repairDayMonth(_ a: String, _ b: String, year: Int) -> CalendarDate? {
        let swaps: [Character: [Character]] = ["9": ["0"], "7": ["1", "2"], "4": ["1"], "8": ["0", "3"], "6": ["0"], "5": ["3"], "3": ["0"]]
        guard CalendarDate(year: year, month: Int(b) ?? 0, day: Int(a) ?? 0) == nil,
              CalendarDate(year: year, month: Int(a) ?? 0, day: Int(b) ?? 0) == nil else { return nil }
        var results: Set<CalendarDate> = []
        for (which, part) in [a, b].enumerated() {
            let chars = Array(part)
            for i in chars.indices {
                for r in swaps[chars[i]] ?? [] {
                    var fixed = chars
                    fixed[i] = r
                    let day = which == 0 ? Int(String(fixed)) : Int(a), month = which == 1 ? Int(String(fixed)) : Int(b)
                    if let day, let month, let d = CalendarDate(year: year, month: month, day: day) { results.insert(d) }
                }
            }
        }
        return results.count == 1 ? results.first : nil
    }

    /// How the receipt's region writes numeric dates when its currency says nothing: bare `$`
    /// amounts, North American phone numbers and US addresses (`Middleton, WI 53562`) point at
    /// month-first.
    package static func regionalOrder(_ document: ReceiptDocument, rows: [AmountLine]) -> DateOrder? {
        if rows.contains(where: { $0.amounts.contains { $0.currencyMark == "$" } }) { return .monthFirst }
        if document.lines.contains(where: { northAmericanPhone.matches($0.text) }) { return .monthFirst }
        if document.lines.contains(where: { line in
            usStateAndZip.matches(line.text)
        }) { return .monthFirst }
        return nil
    }

    /// `Portland, OR 97212`, `TX 78701`, `CA, 92881-1234`: a US state's code then a ZIP code.
    package static let usStateAndZip = Pattern(
        #"\b("# + usStates.sorted().joined(separator: "|") + #")[\s.,]+\d{5}(-\d{4})?\b"#, caseInsensitive: false)
    package static let usStates: Set<String> = [
        "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA",
        "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR",
        "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
    ]

    /// The month a name stands for: a full name or an abbreviation (`SEPT`, `JANV`, `DEZ`).
    package static func month(_ name: String) -> Int? {
        let n = name.uppercased()
        if let m = monthTable[n] { return m }
        // A longer spelling of a known name ("JANUARYS" is not; "SEPTEMBRE" is in the table).
        if n.count > 3, let m = monthTable[String(n.prefix(3))], monthNames.contains(where: { $0.0.hasPrefix(n) && $0.1 == m }) {
            return m
        }
        return nil
    }

    /// Characters OCR takes for one another in a month's name: a digit for the letter it looks
    /// like (`A0G`, `5EP`, `0CT`, `N0V`, `JU1`, `8`/`B`), and the letters among themselves.
    private static let confusions: [Set<Character>] = [
        ["0", "O", "U", "D", "Q"], ["1", "I", "L", "|", "!"], ["5", "S", "$", "§"], ["8", "B"], ["2", "Z"], ["6", "G"],
    ]

    /// Two characters are the same or OCR confuses them.
    private static func confusable(_ a: Character, _ b: Character) -> Bool {
        a == b || confusions.contains { $0.contains(a) && $0.contains(b) }
    }

    /// The month a misread name stands for, when exactly one month fits it: its characters those of
    /// a month's name or confused with them (`A0G` AUG, `5EP` SEP, `0CT` OCT, `JU1` JUL), or one
    /// letter of a name of four or more dropped (`AUGST`) where no name of the word's length fits;
    /// else, for three letters, `RI` and `RN` read for `N` and `M` undone, then the one
    /// abbreviation that differs from it in one letter (`DUN` → JUN; `JUX`, one letter from JUN and
    /// JUL, stands for none). A word with fewer than two letters is no month.
    package static func fuzzyMonth(_ word: String) -> Int? {
        let w = Array(word.uppercased())
        guard w.filter(\.isLetter).count >= 2 else { return nil }
        // Names of the word's length first; a dropped letter only where none fits.
        let sameLength = Set(monthNames.filter { name, _ in
            name.count == w.count && zip(Array(name), w).allSatisfy { confusable($0, $1) }
        }.map(\.1))
        if !sameLength.isEmpty { return sameLength.count == 1 ? sameLength.first : nil }
        let dropped = Set(monthNames.filter { name, _ in
            let n = Array(name)
            return n.count >= 4 && w.count == n.count - 1
                && n.indices.contains { i in zip(n[..<i] + n[(i + 1)...], w).allSatisfy { confusable($0, $1) } }
        }.map(\.1))
        if !dropped.isEmpty { return dropped.count == 1 ? dropped.first : nil }
        let mended = Array(String(w).replacingOccurrences(of: "RI", with: "N").replacingOccurrences(of: "RN", with: "M"))
        guard mended.count == 3, mended.allSatisfy(\.isLetter) else { return nil }
        let near = Set(monthNames.filter { $0.0.count == 3 && zip(Array($0.0), mended).filter { $0 != $1 }.count == 1 }.map(\.1))
        return near.count == 1 ? near.first : nil
    }

    /// Two-digit years: up to 50 are 20YY, later ones 19YY.
    package static func year(_ text: String) -> Int? {
        let digits = text.filter(\.isNumber)
        guard let y = Int(digits) else { return nil }
        switch digits.count {
        case 4: return y
        case 2: return y <= 50 ? 2000 + y : 1900 + y
        default: return nil
        }
    }

    /// Undoes OCR letter-for-digit slips next to digits (`D2/O2/17` → `02/02/17`, `21NOV'I5` →
    /// `21NOV'15`): a letter OCR confuses with a digit becomes that digit when a neighbour is a
    /// digit and no neighbour is another letter.
    package static func repairDigits(_ text: String) -> String {
        var chars = Array(text)
        guard chars.contains(where: { AmountParser.confusable($0) != nil }) else { return text }
        func isSeparator(_ c: Character?) -> Bool { c == nil || c == "/" || c == "-" || c == "." || c == " " || c == "'" || c == ":" || c == "," }
        for _ in 0..<2 {
            for i in chars.indices {
                guard let digit = AmountParser.confusable(chars[i]) else { continue }
                let prev: Character? = i > 0 ? chars[i - 1] : nil
                let next: Character? = i + 1 < chars.count ? chars[i + 1] : nil
                let prevOK = prev?.isNumber == true || isSeparator(prev)
                let nextOK = next?.isNumber == true || isSeparator(next)
                if prevOK && nextOK && (prev?.isNumber == true || next?.isNumber == true) {
                    chars[i] = digit
                }
            }
        }
        return String(chars)
    }

    /// A year OCR misread by one digit (`2048`, `2617` for 2018, 2017) when it lies in the future.
    package static func repairYear(_ date: CalendarDate, latest: Int) -> CalendarDate? {
        guard date.year > latest else { return date }
        var digits = Array(String(date.year))
        let swaps: [Character: [Character]] = ["4": ["1"], "6": ["0"], "8": ["0", "1", "2"], "9": ["0"], "7": ["1"], "3": ["1"], "5": ["1"]]
        for i in digits.indices.reversed() {
            for replacement in swaps[digits[i]] ?? [] {
                let original = digits[i]
                digits[i] = replacement
                if let y = Int(String(digits)), (1995...latest).contains(y),
                   let fixed = CalendarDate(year: y, month: date.month, day: date.day) {
                    return fixed
                }
                digits[i] = original
            }
        }
        return nil
    }
}
