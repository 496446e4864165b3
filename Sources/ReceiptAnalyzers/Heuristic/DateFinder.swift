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
    /// `14/JUM/2017`, `14/DURI/2017`: a word between a day and a year, separated on both sides the
    /// same way, where a month name stands; read when one letter of it was misread (`fuzzyMonth`).
    private static let misreadMonthPattern = Pattern(#"(?<![\d])(\d{1,2})\s?([-/.])\s?([A-Z]{3,4})\s?\2\s?((?:19|20)\d{2}|\d{2})(?!\d)"#,
                                                     caseInsensitive: false)
    /// `22 4UG'16`, `224PR'16`: the A of AUG or APR read as a 4 after the day, a year after it
    /// (not a price: `124PR 16.99`).
    private static let monthWithAAsFour = Pattern(#"(?<![\dA-Z])(\d{1,2})\s?4(UG|PR)(?=[\s\-/.,'’°"]*(?:19|20)?\d{2}(?![\d.,]\d))"#,
                                                  caseInsensitive: false)
    /// US and Canadian phone numbers: `(323) 939-5528`.
    private static let northAmericanPhone = Pattern(#"\(\d{3}\)\s?\d{3}\s?-\s?\d{4}"#)
    private static let timePattern = Pattern(#"\d{1,2}\s?[:.]\s?\d{2}(\s?[:.]\s?\d{2})?\s*(AM|PM)?|\d{1,2}\s?(AM|PM)\b"#)

    private static let dateLabels: PhraseList = ["DATE", "DATED", "TARIKH", "DATUM", "FECHA", "DATA", "TIME", "TRANS", "TXN",
                                     "SALE", "INVOICE DATE", "BILL DATE", "ORDER DATE", "TRANSACTION"]
    private static let otherDateLabels: PhraseList = ["EXP", "EXPIRY", "EXPIRES", "EXPIRATION", "VALID", "UNTIL", "BEST BEFORE",
                                          "USE BY", "PRINTED", "PRINT", "DUE DATE", "BIRTH", "DOB", "SINCE", "RETURN BY",
                                          "RETURNS", "RETURN", "BEFORE", "GOOD THRU", "GOOD THROUGH", "VALID TILL",
                                          "EXCHANGE", "OFFER", "ENDS", "EXPIRE", "SURVEY", "REDEEM", "VOID AFTER"]

    package static func find(_ document: ReceiptDocument, orderHint: DateOrder?, defaultOrder: DateOrder) -> DateFinding? {
        let latestYear = CalendarDate.today().year + 1
        var candidates: [Candidate] = []
        var dayFirstEvidence = 0, monthFirstEvidence = 0
        var lastResort: [Candidate] = []
        for line in document.lines {
            var text = repairDigits(line.upper)
            if text.contains("O") && text.contains(where: \.isNumber), monthThenLetterO.matches(text) {
                text = monthThenLetterO.regex.stringByReplacingMatches(
                    in: text, range: NSRange(location: 0, length: (text as NSString).length), withTemplate: "$1 0$2")
            }
            if text.contains("4U") || text.contains("4P"), monthWithAAsFour.matches(text) {
                text = monthWithAAsFour.regex.stringByReplacingMatches(
                    in: text, range: NSRange(location: 0, length: (text as NSString).length), withTemplate: "$1 A$2")
            }
            guard text.contains(where: \.isNumber) else { continue }
            let hasWords = text.contains(where: \.isLetter)
            let hasSeparators = text.contains(where: { $0 == "/" || $0 == "-" || $0 == "." })
            let label = LabelText(line.text)
            var context = 0.0
            if label.hasAny(dateLabels) { context += 2 }
            if timePattern.matches(text) { context += 1.5 }
            if label.hasAny(otherDateLabels) { context -= 6 }
            var found: [(date: CalendarDate, alternative: CalendarDate?, quality: Double)] = []
            for m in hasSeparators ? isoPattern.matches(in: text) : [] {
                if let y = Int(m.groups[1]!), let mo = Int(m.groups[3]!), let d = Int(m.groups[4]!),
                   let date = CalendarDate(year: y, month: mo, day: d) {
                    found.append((date, nil, 1))
                }
            }
            for m in hasSeparators ? numericPattern.matches(in: text) : [] {
                guard let a = Int(m.groups[1]!), let b = Int(m.groups[3]!), let y = year(m.groups[4]!) else { continue }
                let dayFirst = CalendarDate(year: y, month: b, day: a)
                let monthFirst = CalendarDate(year: y, month: a, day: b)
                let quality = m.groups[4]!.count == 4 ? 1.0 : 0.6
                switch (dayFirst, monthFirst) {
                case let (d?, m?) where d != m:
                    found.append((d, m, quality))
                case let (d?, _):
                    if monthFirst == nil { dayFirstEvidence += 1 }
                    found.append((d, nil, quality))
                case let (nil, m?):
                    monthFirstEvidence += 1
                    found.append((m, nil, quality))
                default: break
                }
            }
            if found.isEmpty && hasSeparators {
                for m in noisyNumericPattern.matches(in: text) {
                    guard let a = Int(m.groups[1]!), let b = Int(m.groups[2]!), let y = Int(m.groups[3]!) else { continue }
                    let dayFirst = CalendarDate(year: y, month: b, day: a), monthFirst = CalendarDate(year: y, month: a, day: b)
                    if let d = dayFirst ?? monthFirst {
                        found.append((d, dayFirst != nil && monthFirst != nil && dayFirst != monthFirst ? monthFirst : nil, 0.5))
                    }
                }
            }
            if found.isEmpty && hasSeparators {
                for m in gluedDayMonthPattern.matches(in: text) {
                    guard let a = Int(m.groups[1]!), let b = Int(m.groups[2]!), let y = Int(m.groups[3]!) else { continue }
                    if let d = CalendarDate(year: y, month: b, day: a) ?? CalendarDate(year: y, month: a, day: b) {
                        found.append((d, nil, 0.3))
                    }
                }
            }
            if found.isEmpty && hasSeparators {
                // Only when the receipt shows no other date: two digits before a year are thin evidence.
                for m in gluedOneDigitDayMonthPattern.matches(in: text) {
                    guard let a = Int(m.groups[1]!), let b = Int(m.groups[2]!), a * 10 + b > 12, let y = Int(m.groups[3]!),
                          let d = CalendarDate(year: y, month: b, day: a) else { continue }
                    let alternative = a != b ? CalendarDate(year: y, month: a, day: b) : nil
                    lastResort.append(Candidate(date: d, alternative: alternative, line: line.index, score: context))
                }
            }
            if found.isEmpty && context > 0 && text.contains("/") {
                for pattern in slashAsDigitPatterns {
                    for m in pattern.matches(in: text) {
                        guard let a = Int(m.groups[1]!), let b = Int(m.groups[2]!), let y = Int(m.groups[3]!) else { continue }
                        if let d = CalendarDate(year: y, month: b, day: a) ?? CalendarDate(year: y, month: a, day: b) {
                            found.append((d, nil, 0.2))
                        }
                    }
                }
            }
            if found.isEmpty && hasSeparators {
                // "99/02/2018", "63/11/24": one digit of the day or month misread. With a 4-digit
                // year and a date label or time on the row it is a candidate; otherwise only
                // when the receipt shows no other date.
                for m in numericPattern.matches(in: text) {
                    guard let y = year(m.groups[4]!), let d = repairDayMonth(m.groups[1]!, m.groups[3]!, year: y) else { continue }
                    if m.groups[4]!.count == 4 && context > 0 {
                        found.append((d, nil, 0.1))
                    } else {
                        lastResort.append(Candidate(date: d, alternative: nil, line: line.index, score: context))
                    }
                }
            }
            for m in hasWords ? dayMonthPattern.matches(in: text) : [] {
                if let d = Int(m.groups[1]!), let mo = month(m.groups[2]!), let y = year(m.groups[3]!),
                   let date = CalendarDate(year: y, month: mo, day: d) {
                    found.append((date, nil, 1.2))
                }
            }
            for m in hasWords ? monthDayPattern.matches(in: text) : [] {
                if let mo = month(m.groups[1]!), let d = Int(m.groups[2]!), let y = year(m.groups[3]!),
                   let date = CalendarDate(year: y, month: mo, day: d) {
                    found.append((date, nil, 1.1))
                }
            }
            for m in hasWords ? yearMonthNamePattern.matches(in: text) : [] {
                if let y = Int(m.groups[1]!), let mo = month(m.groups[2]!), let d = Int(m.groups[3]!),
                   let date = CalendarDate(year: y, month: mo, day: d) {
                    found.append((date, nil, 1.1))
                }
            }
            for m in text.contains("年") ? cjkPattern.matches(in: text) : [] {
                if let y = Int(m.groups[1]!), let mo = Int(m.groups[2]!), let d = Int(m.groups[3]!),
                   let date = CalendarDate(year: y, month: mo, day: d) {
                    found.append((date, nil, 1.2))
                }
            }
            if found.isEmpty && hasWords && hasSeparators {
                for m in misreadMonthPattern.matches(in: text) where month(m.groups[3]!) == nil {
                    if let d = Int(m.groups[1]!), let mo = fuzzyMonth(m.groups[3]!), let y = year(m.groups[4]!),
                       let date = CalendarDate(year: y, month: mo, day: d) {
                        found.append((date, nil, 0.5))
                    }
                }
            }
            if found.isEmpty {
                // "20180316!": a speck after the date that the letter repair made a digit.
                let compact = compactPattern.matches(in: text)
                for m in compact.isEmpty && text != line.upper ? compactPattern.matches(in: line.upper) : compact {
                    if let y = Int(m.groups[1]!), let mo = Int(m.groups[2]!), let d = Int(m.groups[3]!),
                       let date = CalendarDate(year: y, month: mo, day: d) {
                        found.append((date, nil, 0.3))
                    }
                }
            }
            for f in found {
                var score = context + f.quality
                var date = f.date
                if date.year > latestYear, let fixed = repairYear(date, latest: latestYear) {
                    date = fixed
                    score -= 1
                }
                if !(1995...latestYear).contains(date.year) { score -= 4 }
                let alternative = f.alternative.flatMap { repairYear($0, latest: latestYear) }
                candidates.append(Candidate(date: date, alternative: alternative, line: line.index, score: score))
            }
        }
        // Resolve ambiguous numeric dates.
        let order: DateOrder
        if dayFirstEvidence > monthFirstEvidence { order = .dayFirst }
        else if monthFirstEvidence > dayFirstEvidence { order = .monthFirst }
        else { order = orderHint ?? defaultOrder }
        if candidates.isEmpty, let repaired = lastResort.max(by: { $0.score < $1.score }), (1995...latestYear).contains(repaired.date.year) {
            return DateFinding(date: order == .monthFirst ? repaired.alternative ?? repaired.date : repaired.date, confidence: 0.3, line: repaired.line)
        }
        guard !candidates.isEmpty else { return nil }
        let orderProven = dayFirstEvidence != monthFirstEvidence || orderHint != nil
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
        if document.lines.contains(where: { $0.text.contains("(") && northAmericanPhone.matches($0.text) }) { return .monthFirst }
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

    /// The month a misread abbreviation stands for: `RI` and `RN` read for `N` and `M` undone,
    /// then the one three-letter abbreviation that differs from it in one letter (`DUN` → JUN;
    /// `JUX`, one letter from JUN and JUL, stands for none).
    package static func fuzzyMonth(_ word: String) -> Int? {
        let w = Array(word.uppercased().replacingOccurrences(of: "RI", with: "N").replacingOccurrences(of: "RN", with: "M"))
        guard w.count == 3 else { return nil }
        let months = Set(monthNames.filter { $0.0.count == 3 && zip(Array($0.0), w).filter { $0 != $1 }.count == 1 }.map(\.1))
        return months.count == 1 ? months.first : nil
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
