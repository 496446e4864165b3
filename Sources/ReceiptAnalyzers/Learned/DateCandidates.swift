import Foundation
import ReceiptModel

/// What a receipt's dates say, shared by all its date candidates.
struct DateContext {
    /// Every date a row reads, with the row and the rules' confidence in it.
    let found: [(date: CalendarDate, line: ReceiptLine, confidence: Double)]
    /// The rules' date.
    let pick: DateFinding?
    /// What a close-up of the rules' date's row read.
    let check: ReadCheck
    /// The receipt's hint at the order of day and month (currency, country), if any.
    let hint: DateOrder?
    let today: CalendarDate
    let lastIndex: Int
    let distinct: [CalendarDate]
}

/// One date as a candidate for the receipt's date.
struct DateEvidence {
    let date: CalendarDate
    let receipt: DateContext
    /// The rows reading it.
    let rows: [(date: CalendarDate, line: ReceiptLine, confidence: Double)]

    init(_ date: CalendarDate, receipt: DateContext) {
        self.date = date
        self.receipt = receipt
        rows = receipt.found.filter { $0.date == date }
    }

    var isPick: Bool { receipt.pick?.date == date }
    /// 1 when a row reading it passes `test`.
    func onRow(_ test: (ReceiptLine) -> Bool) -> Double { rows.contains { test($0.line) }.feature }
    /// Day and month could be either way round.
    var ambiguous: Bool { date.day <= 12 && date.month <= 12 && date.day != date.month }
}

extension CandidateProposer {
    /// Words that say a row's date is the purchase's.
    static let dateLabels: PhraseList = ["DATE", "DATED", "TARIKH", "DATUM", "FECHA", "DATA", "TIME", "INVOICE DATE",
                                         "TRANS DATE", "SALE DATE", "ISSUED"]
    /// Words that say a row's date is some other date.
    static let otherDateLabels: PhraseList = ["DUE", "EXP", "EXPIRY", "EXPIRES", "VALID", "UNTIL", "BIS", "BEFORE",
                                              "BY", "RETURN", "RETURNS", "BEST", "USE", "PRINTED", "START", "END"]
    private static let timePattern = Pattern(#"\b\d{1,2}:\d{2}\b"#)

    static let dateFeatures: [Feature<DateEvidence>] = [
        Feature("rulesPick") { $0.isPick.feature },
        Feature("rulesConfidence") { $0.isPick ? $0.receipt.pick?.confidence ?? 0 : 0 },
        Feature("dateWordConfidence") { e in
            (e.rows.compactMap { DateFinder.dateWordConfidence($0.line) }.max() ?? (e.isPick ? 50 : 0)) / 100
        },
        Feature("dateLabel") { $0.onRow { LabelText($0.text).hasAny(dateLabels) } },
        Feature("otherDateLabel") { $0.onRow { LabelText($0.text).hasAny(otherDateLabels) } },
        Feature("timeOnRow") { $0.onRow { timePattern.matches($0.text) } },
        Feature("fromTop") { e in e.rows.map(\.line.index).min().map { Double($0) / Double(e.receipt.lastIndex) } ?? 0.5 },
        Feature("fromBottom") { e in
            e.rows.map(\.line.index).max().map { Double(e.receipt.lastIndex - $0) / Double(e.receipt.lastIndex) } ?? 0.5
        },
        Feature("occurrences") { log1p(Double($0.rows.count)) },
        Feature("isLatest") { ($0.date == $0.receipt.distinct.max()).feature },
        Feature("isEarliest") { ($0.date == $0.receipt.distinct.min()).feature },
        Feature("candidates") { log1p(Double($0.receipt.distinct.count)) },
        // Whether it is in the future, not how old it is: the labelled receipts are from other
        // years than a user's, so their age would teach the data set's dates.
        Feature("inFuture") { (Double($0.receipt.today.days(since: $0.date)) < 0).feature },
        Feature("monthName") {
            $0.onRow { $0.text.contains(where: \.isLetter) && $0.text.split(separator: " ").contains { DateFinder.month(String($0)) != nil } }
        },
        Feature("fourDigitYear") { e in e.onRow { $0.text.contains(String(e.date.year)) } },
        Feature("dayMonthAmbiguous") { $0.ambiguous.feature },
        Feature("rowConfidence") { ($0.rows.map(\.line.confidence).max() ?? 0) / 100 },
        Feature("rowReadAgain") { ($0.isPick && $0.receipt.check == .same).feature },
        Feature("rowReadOtherwise") { ($0.isPick && $0.receipt.check == .other).feature },
        // Day and month could be either way round and nothing on the receipt (currency, country)
        // said which: the order is the default's guess.
        Feature("orderGuessed") { ($0.ambiguous && $0.receipt.hint == nil).feature },
    ]

    /// Every date a row of the reading holds (and the rules' date) as a date candidate; `check` is
    /// what a close-up of the rules' date's row read.
    package static func dates(_ reading: Reading, check: ReadCheck = .none, options: AnalysisOptions) -> [Candidate] {
        let lines = reading.document.lines
        let hint = reading.dateOrderHint
        let today = options.today ?? CalendarDate.today()
        var found: [(date: CalendarDate, line: ReceiptLine, confidence: Double)] = []
        // A date has at least three digits (`5 MAY 24`); other rows are not worth a look.
        for line in lines where line.text.lazy.filter(\.isASCIIDigit).count >= 3 {
            let single = ReceiptDocument(lines: [line], imageWidth: reading.document.imageWidth,
                                         imageHeight: reading.document.imageHeight)
            if let finding = DateFinder.find(single, orderHint: hint, defaultOrder: options.dateOrder, today: today) {
                found.append((finding.date, line, finding.confidence))
            }
        }
        // In the order read (a Set's order changes from run to run, and with it which of two equally
        // scored dates wins).
        var seen = Set<CalendarDate>()
        let distinct = (found.map(\.date) + [reading.date?.date].compactMap { $0 }).filter { seen.insert($0).inserted }
        guard !distinct.isEmpty else { return [] }
        let receipt = DateContext(found: found, pick: reading.date, check: check, hint: hint, today: today,
                                  lastIndex: max(1, lines.last?.index ?? 1), distinct: distinct)
        return distinct.map { date in
            Candidate(field: .date, value: date.description, features: dateFeatures.values(DateEvidence(date, receipt: receipt)))
        }
    }
}
