import Foundation
import Testing
import ReceiptModel
import ReceiptAnalyzers

/// The date the date tests take as today (the dates they read are from 2024 and before).
let testToday = CalendarDate(year: 2026, month: 1, day: 1)!

@Suite struct DateFinderTests {
    func date(_ text: String, hint: DateOrder? = nil, order: DateOrder = .dayFirst) -> String? {
        DateFinder.find(ReceiptDocument(text: text), orderHint: hint, defaultOrder: order, today: testToday)?.date.description
    }

    @Test(arguments: [
        ("Date: 25/01/2018 1:22:56PM", "2018-01-25"), ("18-11-18 13:58 SH01", "2018-11-18"),
        ("2 Apr 2018 18:40", "2018-04-02"), ("14/JUN/2017", "2017-06-14"), ("24-MAR-18 11:02", "2018-03-24"),
        ("11.02.2018 12:03", "2018-02-11"), ("2016-07-31 10:22", "2016-07-31"), ("2016/05/01", "2016-05-01"),
        ("OCT 3, 2016 7:45 PM", "2016-10-03"), ("21NOV'15 13:56", "2015-11-21"), ("THU AUG 09, 2012", "2012-08-09"),
        ("jeudi 23 juin 2016", "2016-06-23"), ("Datum: 05.03.2019", "2019-03-05"), ("20180428 0012", "2018-04-28"),
        ("Date:D2/O2/17 19:34", "2017-02-02"), ("2019-MAR-16 10:22", "2019-03-16"), ("2019 Dec 02 18:40", "2019-12-02"),
        ("2019年3月16日 12:05", "2019-03-16"), ("Cashier 17/05/18, 02:35 PM", "2018-05-17"),
    ])
    func readsPrintedFormats(line: String, expected: String) {
        #expect(date(line) == expected)
    }

    @Test func impossibleValuesSettleTheOrder() {
        // 13/03 can only be day-first; the ambiguous 03/04 follows it.
        #expect(date("03/04/2024 10:00\nREF 13/03/2024", order: .monthFirst) == "2024-04-03")
        #expect(date("12/25/2023 5:10 PM", order: .dayFirst) == "2023-12-25")
    }

    @Test func currencyEvidenceThenDefault() {
        #expect(date("03/04/2024 10:00", hint: .monthFirst) == "2024-03-04")
        #expect(date("03/04/2024 10:00", hint: .dayFirst, order: .monthFirst) == "2024-04-03")
        #expect(date("03/04/2024 10:00", order: .monthFirst) == "2024-03-04")
    }

    @Test func transactionDateBeatsExpiry() {
        let text = """
        EXP 09/27
        VOUCHER VALID UNTIL 31/12/2024
        12/06/2024 14:22
        """
        #expect(date(text) == "2024-06-12")
    }

    @Test func futureYearMisreadIsRepaired() {
        #expect(date("14 Mar 2048 18:40") == "2018-03-14")
    }

    /// The latest year a receipt may print is the year after `today`, and `today` is the one
    /// passed in, not the wall clock's.
    @Test func latestYearFollowsThePassedInToday() {
        func date(_ text: String, today: CalendarDate) -> String? {
            DateFinder.find(ReceiptDocument(text: text), orderHint: nil, defaultOrder: .dayFirst, today: today)?.date.description
        }
        // One year beyond today is accepted; two years beyond is not (no digit of 2021 is one
        // a misread year is mended from), although the wall clock, years later, would allow it.
        #expect(date("Date: 15/03/2021 10:22", today: CalendarDate(year: 2020, month: 6, day: 1)!) == "2021-03-15")
        #expect(date("Date: 15/03/2021 10:22", today: CalendarDate(year: 2019, month: 6, day: 1)!) == nil)
        // A year the wall clock rules out is accepted when today is the year before.
        #expect(date("Date: 15/03/2100 10:22", today: CalendarDate(year: 2099, month: 6, day: 1)!) == "2100-03-15")
        #expect(date("Date: 15/03/2100 10:22", today: CalendarDate(year: 2098, month: 6, day: 1)!) == nil)
    }
}

@Suite struct GluedOneDigitDateTests {
    func date(_ text: String, hint: DateOrder? = nil, order: DateOrder = .dayFirst) -> String? {
        DateFinder.find(ReceiptDocument(text: text), orderHint: hint, defaultOrder: order, today: testToday)?.date.description
    }

    @Test func oneDigitDayAndMonthWithTheirDotLost() {
        let till = """
        TRATTORIA DA LUCIO
        Caprese Classica  7,50 EUR
        Summe EUR 7,50
        Tisch 4   48.2016  Kellner 2
        """
        #expect(date(till) == "2016-08-04")
        #expect(date("Table 3  48/2016", hint: .monthFirst) == "2016-04-08")
    }

    @Test func monthAndYearOrAnotherDateIsNoGluedDate() {
        // 12.2019 is a month and year (an expiry), not 1 February.
        #expect(date("Karte gueltig 12.2019") == nil)
        // A real date elsewhere wins.
        #expect(date("ART 48.2016\n05.08.2016 12:10") == "2016-08-05")
        #expect(date("SKU A48.2016") == nil)
    }
}

/// A month's name read with OCR's confusions (a digit for the letter it looks like, a dropped
/// letter) is still that month where the day and the year are intact: a general rule, tested on
/// made-up rows.
@Suite struct MisreadMonthTests {
    func date(_ text: String) -> String? {
        DateFinder.find(ReceiptDocument(text: text), orderHint: nil, defaultOrder: .dayFirst, today: testToday)?.date.description
    }

    @Test(arguments: [
        ("Date: 22-A0G-2024", "2024-08-22"),          // 0 for U
        ("Sale 03/0CT/2023 18:02", "2023-10-03"),      // 0 for O
        ("14 5EP 2022 09:15", "2022-09-14"),           // 5 for S
        ("Issued 2.N0V.2021", "2021-11-02"),           // 0 for O, dots
        ("09-JU1-2020 12:00", "2020-07-09"),           // 1 for L
        ("11 0EC 2019", "2019-12-11"),                 // 0 for D
        ("Date 12 AUGST 2024", "2024-08-12"),          // a letter dropped
        ("Date 5 FEBRUAY 2023", "2023-02-05"),         // a letter dropped
        ("A0G 22, 2024 7:45 PM", "2024-08-22"),        // month first
        ("14/DUN/2017", "2017-06-14"),                 // one letter misread (as before)
    ])
    func readsTheMonthItStandsFor(line: String, expected: String) {
        #expect(date(line) == expected)
    }

    @Test func confusionsOfNoMonthOrOfTwoAreNoDate() {
        // Codes between numbers that no month's name is within OCR's confusions of.
        #expect(date("Ref 12-AB3-2024") == nil)
        #expect(date("Table 12 P0S 2024") == nil)
        // Fewer than two letters: no month at all.
        #expect(date("Lot 12-000-2024") == nil)
        // One letter from JUN and from JUL: neither.
        #expect(DateFinder.fuzzyMonth("JUX") == nil)
        #expect(DateFinder.fuzzyMonth("JUM") == nil)
        #expect(DateFinder.fuzzyMonth("A0G") == 8)
        #expect(DateFinder.fuzzyMonth("5EPT") == 9)
    }

    @Test func aDateReadCleanlyOnTheRowWins() {
        // The misread month is a last resort on its row: a clean date there is kept.
        #expect(date("12/08/2024 REF 22-A0G-2019") == "2024-08-12")
    }
}
