import Foundation
import Testing
import ReceiptModel
import ReceiptAnalyzers
@testable import TestHelpers

/// Rules added while raising the heuristic analyzer's accuracy on real receipts. The lines are
/// written here in the way tills print them (and OCR misreads them); none is copied from a data set.
@Suite struct AccuracyRuleTests {
    func total(_ text: String) -> Decimal? {
        TotalFinder.find(AmountLine.build(ReceiptDocument(text: text)))?.value
    }

    func tax(_ text: String) -> Decimal? {
        let rows = AmountLine.build(ReceiptDocument(text: text))
        return TaxFinder.find(rows, total: TotalFinder.find(rows)?.value)?.value
    }

    func date(_ text: String, hint: DateOrder? = nil) -> String? {
        DateFinder.find(ReceiptDocument(text: text), orderHint: hint, defaultOrder: .dayFirst, today: testToday)?.date.description
    }

    /// What the receipt's text says of the order of day and month.
    func order(_ text: String) -> DateOrder? {
        let document = ReceiptDocument(text: text)
        return DateFinder.regionalOrder(document, rows: AmountLine.build(document))
    }

    func vendor(_ text: String) -> String? { VendorFinder.find(ReceiptDocument(text: text))?.name }

    /// Rows as OCR gives them: one word box per word, `height` pixels tall.
    func vendor(rows: [(String, Int)]) -> String? {
        var y = 10
        let lines = rows.enumerated().map { i, row -> ReceiptLine in
            var x = 10
            let words = row.0.split(separator: " ").map { w -> OCRWord in
                defer { x += w.count * row.1 / 2 + 10 }
                return OCRWord(text: String(w), confidence: 92, box: BoundingBox(x: x, y: y, width: w.count * row.1 / 2, height: row.1))
            }
            defer { y += row.1 + 15 }
            return ReceiptLine(index: i, text: row.0, words: words, confidence: 92,
                               box: BoundingBox(x: 10, y: y, width: x, height: row.1))
        }
        return VendorFinder.find(ReceiptDocument(lines: lines, imageWidth: 800, imageHeight: 1200))?.name
    }

    // MARK: amounts

    @Test(arguments: [
        ("Total Incl. GST <RM_12.40", "12.40"), ("Rounding Adj -.02", "-0.02"), ("Tip .75", "0.75"),
        ("VAT INCLUDED £3-18", "3.18"), ("TOTAL «18.60", "18.60"),
    ])
    func readsAmountsWithOCRPunctuation(line: String, expected: String) throws {
        let amount = try #require(AmountParser.amounts(in: line).last)
        #expect(amount.value == Decimal(string: expected))
    }

    @Test func decimalPointReadAsASpaceOnATotalRow() {
        #expect(total("BREAD 2.10\nMILK 3.45\nTotal After Adj Incl GST 5 55") == Decimal(string: "5.55"))
    }

    @Test func decimalPointReadAsASpaceAfterTheCurrency() {
        #expect(total("TEA 3.80\nCAKE 4.80\nTotal Sales Incl GST @ 6% RM8 60\nCash 10.00") == Decimal(string: "8.60"))
    }

    @Test func totalAfterTheAdjustmentIsThePayable() {
        let text = """
        Total Sales Incl GST 46.52
        Rounding Adj 0.03
        Total After Adj Incl GST 46.55
        """
        let rows = AmountLine.build(ReceiptDocument(text: text))
        #expect(rows[2].role.totalStrength == 12)
        #expect(total(text) == Decimal(string: "46.55"))
    }

    @Test func registrationNumbersAreNotAmounts() {
        let rows = AmountLine.build(ReceiptDocument(text: "VAT Reg 311 4420 17\nGST No 0012 3456 78"))
        #expect(rows.allSatisfy { $0.amounts.isEmpty })
    }

    @Test func maskedCardNumbersAndTaxIdsAreNotAmounts() {
        let rows = AmountLine.build(ReceiptDocument(text: "Card **** 4417\nUSt-IdNr. DE 204 117 853"))
        #expect(rows.allSatisfy { $0.amounts.isEmpty })
    }

    @Test(arguments: [("Sales Tax $0.0]", "0.01"), ("SALES TAX 0,00.", "0.00"), ("Total $0.1]", "0.11")])
    func bracketsAndSpecksAroundAmounts(line: String, expected: String) throws {
        let amount = try #require(AmountParser.amounts(in: line).last)
        #expect(amount.value == Decimal(string: expected))
    }

    @Test func aTimeGluedToTheTotalLabel() {
        #expect(total("Sub Total: 9.10\n10/17 11:464TOTAL : 9.74\nTHANK YOU") == Decimal(string: "9.74"))
    }

    // MARK: totals

    @Test func aSecondPassOverturnsTheFirstOnlyWithBetterEvidence() {
        func finding(_ v: String, _ score: Double, _ strength: Int) -> TotalFinding {
            TotalFinding(value: Decimal(string: v)!, confidence: 0.5, labelStrength: strength, crossChecked: false, score: score)
        }
        // Two later passes agreeing on a misread decimal point do not beat a clearly labelled first reading.
        #expect(Reading.vote(first: finding("356.00", 12.5, 12), others: [finding("3.56", 12.5, 12), finding("3.56", 11.5, 12)])?.value
                == Decimal(string: "356.00"))
        // Paid minus change from a later pass does not beat a labelled total.
        #expect(Reading.vote(first: finding("5.99", 4, 7), others: [finding("55.99", 4.5, 0)])?.value == Decimal(string: "5.99"))
        // A later pass with much better evidence wins, and agreement confirms it.
        let better = Reading.vote(first: finding("12.60", 3, 3), others: [finding("18.60", 13, 12), finding("18.60", 11, 12)])
        #expect(better?.value == Decimal(string: "18.60"))
        #expect(better?.crossChecked == true)
    }

    @Test func grossImpliedByIncludedVATWhenTheTotalIsUnreadable() {
        let text = """
        PAY & DISPLAY
        AMOUNT PAID ,9o
        Paid by VISA
        VAT @ 20% incl. £0.90
        """
        #expect(total(text) == Decimal(string: "5.40"))
        // A readable total is never replaced.
        #expect(total("TOTAL £5.38\nVAT @ 20% incl. £0.90") == Decimal(string: "5.38"))
    }

    @Test func roundingAdjustmentGivesThePayableTotal() {
        let text = """
        NASI LEMAK 6.50
        TEH TARIK 2.37
        Total Sales (Inclusive GST) RM 8.87
        Rounding Adjustment RM -0.02
        """
        #expect(total(text) == Decimal(string: "8.85"))
    }

    @Test func paidMinusChangeConfirmsTheRoundedTotal() {
        let text = """
        Total (Inclusive of GST): 23.41
        CASH : 30.00
        CHANGE : 6.60
        """
        #expect(total(text) == Decimal(string: "23.40"))
    }

    @Test func totalWithAMisreadInclusiveIsStillTheTotal() {
        #expect(total("SOAP 4.40\nTotal Inchisive GST @6% 12.80\nCASH 20.00\nCHANGE 7.20") == Decimal(string: "12.80"))
    }

    @Test func totalOfATaxSummaryIsNotThePayable() {
        let text = """
        CASH 50.00
        CHANGE 18.20
        GST Summary Amount(RM) Tax(RM)
        SR @ 6% 30.00 1.80
        Total 30.00 1.80
        """
        #expect(total(text) == Decimal(string: "31.80"))
    }

    @Test func anExtraDigitLosesToTheAmountThatAddsUp() {
        let text = """
        Subtotal 14.20
        Tax 1.17
        Total 15.37
        Balance Due 145.37
        """
        #expect(total(text) == Decimal(string: "15.37"))
    }

    @Test func totalLabelWithItsFirstLetterLost() {
        #expect(total("2 SUB TOTAL 295.00\na] {OTAL 343.95\nSVC CHARGE 295.00") == Decimal(string: "343.95"))
    }

    @Test func italianTotaleMisreadBeatsAPartialTotal() {
        #expect(total("Totals 442,00\nTotalle EURO 495,00") == Decimal(string: "495.00"))
    }

    @Test func cashPrintedAsANegativeLineStillPaysTheTotal() {
        #expect(total("Sub. Total: 9.96\nhtal: 10.86\nCash -20 .00\nChange 9.14") == Decimal(string: "10.86"))
    }

    @Test func itemsAddingUpToTheSubtotalDoNotMakeItTheTotalWhenTaxIsAdded() {
        // The service charge row was unreadable; the card paid subtotal, service and tax.
        let text = "1 Ocha 3.60\n1 Value set 19.80\nSUBTOTAL 23.40\n7% GST 1.80\nMASTER 27.54"
        #expect(HeuristicAnalyzer().analyze(text: text).total == Decimal(string: "27.54"))
    }

    // MARK: tax

    @Test func aTaxWithOneDigitMisreadIsTheTotalLessTheSubtotal() {
        #expect(tax("Sub. Total: 9.96\nTax: 9.90\nTotal: 10.86") == Decimal(string: "0.90"))
        // Two digits off: not a misreading, leave the printed tax alone.
        #expect(tax("Sub. Total: 9.96\nTax: 1.25\nTotal: 10.86") == Decimal(string: "1.25"))
    }

    @Test func aTaxAsLargeAsTheSubtotalIsNotTheTax() {
        // The check number lost its decimal point on a row that also prints "GST".
        #expect(tax("CHK 2900 GST 1\nSUBTOTAL 14.48\nTAX 1,33\nTIP 2.00\nTOTAL 17.81") == Decimal(string: "1.33"))
    }

    @Test func dottedVATWithAnIncludedRate() {
        #expect(tax("Total: R288.40\nR35.42 V.A.T Incl 14%") == Decimal(string: "35.42"))
        #expect(tax("SUBTOTAL 20.00\nG.S.T. 2.00\nTOTAL 22.00") == Decimal(string: "2.00"))
    }

    @Test func dutchBTWReadWithAnI() {
        let text = "Koffie 28.95\n1.64 Food BIW 6% 28.95\nTOTAAL 28.95"
        #expect(tax(text) == Decimal(string: "1.64"))
        #expect(total(text) == Decimal(string: "28.95"))
    }

    @Test func zeroTaxWithItsDecimalPointLost() {
        #expect(tax("SUBTOTAL 28.35\nTOTAL TAX 00\nTOTAL 28.35") == 0)
    }

    @Test func unreadableTaxRowWhenSubtotalIsTheTotal() {
        #expect(tax("SUBTOTAL 8.51\nTAX UO\nTOTAL 8.51") == 0)
        // Two subtotals (bar and food): nothing follows from one of them equalling the total.
        #expect(tax("Bar Subtotal: 7.98\nFood Subtotal: 21.17\nTax 1: go\nTOTAL: 21.17") == nil)
        // Prices including VAT: the subtotal is the total and the tax is inside it.
        #expect(tax("SUBTOTAL 10.00\nVAT INCL 20% __\nTOTAL 10.00") == Decimal(string: "1.67"))
    }

    @Test func theTaxRowLostBetweenSubtotalAndTotal() {
        #expect(tax("Sub. Total: $6.55\nTotal $7.16\nVisa $7.16") == Decimal(string: "0.61"))
        // Something else printed between them (a surcharge, a tip): no guess.
        #expect(tax("Subtotal $57.50\nSF $6.25\nTotal $69.60") == nil)
        #expect(tax("Subtotal 20.00\nTip 3.00\nTotal 23.00") == nil)
        // More than a quarter on top is not a sales tax.
        #expect(tax("Subtotal 20.00\nTotal 30.00") == nil)
    }

    @Test func aTaxWithOneDigitMisreadIsGivenByItsRate() {
        // Added to the subtotal: 5% of 240.00 is 12.00.
        #expect(tax("Sub Total 240.00\nGST 5% : 12,08\nGrand Total 252.00") == Decimal(string: "12.00"))
        // Included in the total: 7% of 53.50 is 3.50.
        #expect(tax("TOTAL 53.50\nincl. GST 7% 3.58") == Decimal(string: "3.50"))
        // Two digits off: the printed amount stands.
        #expect(tax("TOTAL 53.50\nincl. GST 7% 2.91") == Decimal(string: "2.91"))
    }

    @Test func theGrossOnAnIncludedTaxRowIsNotTheTax() {
        #expect(tax("Koffie 2x 21.80\nTOTAAL 21.80\nINCL. BTW: 9.00% 21.80") == Decimal(string: "1.80"))
        // The total misread smaller: the gross still gives the tax.
        #expect(tax("Koffie 2x 21.80\nTOTAAL 2.80\nINCL. BTW: 9.00% 21.80") == Decimal(string: "1.80"))
        // The tax itself printed on the row stays the tax.
        #expect(tax("TOTAAL 21.80\nINCL. BTW: 9.00% 1.80") == Decimal(string: "1.80"))
    }

    @Test func taxIncludedInTheTotalPrintedOnItsOwnRow() {
        #expect(tax("FLAT WHITE 2 $9.80\nTOTAL $25.30\nGST included in total $2.30") == Decimal(string: "2.30"))
        // The total itself, printed with the words, stays the total.
        #expect(tax("TOTAL INCL. GST 6% 9.00") == Decimal(string: "0.51"))
    }

    @Test func aTaxTableRowUnderItsHeading() {
        #expect(tax("TOTAL AMOUNT 53.00\nGST Summary Amount(RM) Tax(RM)\nSR @ 6% 50.00 3.00") == Decimal(string: "3.00"))
        // A discount row is no tax table, even when its percentage gives one amount from the other.
        #expect(tax("Subtotal 50.00\nDISCOUNT\nMember 10% 50.00 5.00\nTotal 45.00") == nil)
    }

    @Test func theNetUnderATaxHeadingIsNotTheTax() {
        // The heading took the net from the row below it; the tax is printed above, its label misread.
        #expect(tax("2 CREPE 6,50 13,00\nTYA : 1,30\nTOTAL TVA HT\n11,70\nTOTAL 13.00") == Decimal(string: "1.30"))
        // A VAT table: the gross of one band and the other band add up to the total too.
        let table = "SUBTOTAL 13.50\nBALANCE DUE 13.50\nVAT RATE NET VAT GROSS\nA 20.00% 7.50 1.50 9.00\nZ 0.00% 4.50 0.00 4.50\nTOTAL VAT 1.50"
        #expect(tax(table) == Decimal(string: "1.50"))
    }

    @Test func theGuestsOfARestaurantCheckAreNotATax() {
        // Both numbers lost their decimal points: the check number is no tax either way.
        let text = "Tbl 12/1 Chk 1204 Gst 4\nPASTA 18.00\nFOOD TOTAL 18.00\nTAX 126\nTOTAL DUE 19.26"
        #expect(tax(text) == Decimal(string: "1.26"))
    }

    @Test func taxLabelsWithOneLetterMisread() {
        // US tills number their taxes (TAX1, TAX2); OCR reads the 1 as an I.
        #expect(tax("MDSE SUBTOTAL $21.40\nTAXI $1.71\nCASH $23.11") == Decimal(string: "1.71"))
        #expect(tax("ADMISSION 12.00\nTOTAL 12.00\nSALES TAK 0.00\nCASH TENDERED 20.00") == 0)
        // IVA (or VAT) with the letter at one end lost.
        #expect(tax("2 CAMISETA 49.90 99.80\nVA $13.77\nTOTAL 99.80") == Decimal(string: "13.77"))
        // A taxi company's name is not a tax.
        #expect(tax("CITY TAXI CO\nFARE 12.50\nTOTAL 12.50") == nil)
    }

    @Test func localSalesTaxPrintedWithItsRateAndPlace() {
        #expect(tax("Subtotal $9.28\n7.0% - Boston $0.65\nTotal Due $9.93") == Decimal(string: "0.65"))
        // A discount percentage is not a tax: the arithmetic does not add up.
        #expect(tax("Subtotal $9.28\n10% off $0.93\nTotal Due $8.35") == nil)
    }

    // MARK: dates

    @Test(arguments: [
        ("Server: Ana 04,'19/2016 7:12 PM", "2016-04-19"), ("Date: 1903/2017 18:20", "2017-03-19"),
        ("JULO5'16 3:10PM", "2016-07-05"), ("DATE: 88/05/2019 13:02", "2019-05-08"),
    ])
    func datesThroughOCRNoise(line: String, expected: String) {
        #expect(date(line) == expected)
    }

    @Test func misreadDayWithATwoDigitYearOnlyAsALastResort() {
        #expect(date("GREEN GROCER\n93/10/24 118822 OP 12") == "2024-10-03")
        #expect(date("93/10/24 118822\nSALE 14/10/2024 10:02") == "2024-10-14")
    }

    @Test func dollarAmountsReadAmbiguousDatesMonthFirst() {
        let text = "04/06/2019 11:30 AM\nBURGER $8.99\nTOTAL $8.99"
        #expect(order(text) == .monthFirst)
        #expect(date(text, hint: order(text)) == "2019-04-06")
        #expect(order("TOTAL 8.99") == nil)
    }

    @Test func aUSAddressReadsAmbiguousDatesMonthFirst() {
        let text = "PINE VALLEY MARKET\n210 Oak St\nMiddleton, WI 53562\n04/06/2019 11:30\nBREAD 3.99\nTOTAL 3.99"
        #expect(order(text) == .monthFirst)
        #expect(date(text, hint: order(text)) == "2019-04-06")
        #expect(order("Corona, CA 92881-1234\nTOTAL 3.99") == .monthFirst)
        // Postcodes of other countries say nothing.
        #expect(order("12 HIGH ST\nLONDON SW1A 1AA\nTOTAL 3.99") == nil)
        #expect(order("JALAN SS2/24\n47300 PETALING JAYA\nTOTAL 3.99") == nil)
        #expect(order("Hauptstr. 5\nD-80331 MUENCHEN\nSUMME 3,99") == nil)
    }

    @Test func aNorthAmericanPhoneNumberReadsAmbiguousDatesMonthFirst() {
        let text = "CORNER BAKERY\nPhone: 214-892-1299\n4/8/2017 2:23:18 PM\nSoda 2.59\nTotal 2.59"
        #expect(order(text) == .monthFirst)
        #expect(date(text, hint: order(text)) == "2017-04-08")
        #expect(order("TEL:608.827.9808\nTOTAL 3.99") == .monthFirst)
        #expect(order("(323) 939-5528\nTOTAL 3.99") == .monthFirst)
        // Numbers elsewhere start with a trunk 0, and other digit groups are not phone numbers.
        #expect(order("TEL: 012-345-6789\nTOTAL 3.99") == nil)
        #expect(order("TEL 03-8925 0733\nTOTAL 3.99") == nil)
        #expect(order("GST REG 001-234-5678\nTOTAL 3.99") == nil)
        #expect(order("CARD 4567-890-1234-5678\nTOTAL 3.99") == nil)
        #expect(order("REF 2024-205-3344\nTOTAL 3.99") == nil)
    }

    @Test func aSlashReadAsASevenOrAOne() {
        #expect(date("Doc No CS00012013 Date: 20/0472018") == "2018-04-20")
        #expect(date("Receipt Date: 17703/2018 10:15") == "2018-03-17")
        // Both OCR slips at once: the year's 1 read as a 7 too.
        #expect(date("Doc No CS00012013 Date: 20/0472078") == "2018-04-20")
        // Without a date label or a time, a number like this is an invoice or product code.
        #expect(date("REF 20/0472018") == nil)
    }

    @Test func monthNameWithTheYearsApostropheReadAsAQuote() {
        #expect(date("chk 1958 Nov12\"16 05:41PM") == "2016-11-12")
    }

    @Test func aYearNoRepairBringsIntoRangeIsNoDate() {
        #expect(date("Date : 05-06-7015 11:25:29") == nil)
        // A later row with a readable date is taken instead.
        #expect(date("Date : 05-06-7015 11:25:29\nPOS 12 05/05/2018") == "2018-05-05")
        // Old receipts are still read.
        #expect(date("23/10/1992 14:02") == "1992-10-23")
    }

    @Test(arguments: [
        ("CB# : 5531 12/dun/2019 08:34:22", "2019-06-12"), ("Inv 0042 03/duri/2018 14:10", "2018-06-03"),
        ("Date: 21-Dea-2017 19:05", "2017-12-21"), ("Datum: 09.OKI.2019", "2019-10-09"),
    ])
    func monthAbbreviationWithOneLetterMisread(line: String, expected: String) {
        #expect(date(line) == expected)
    }

    @Test func aWordOneLetterFromTwoMonthsIsNoMonth() {
        // JUX is one letter from JUN and from JUL; BLK from none.
        #expect(date("Ref 12/JUX/2019") == nil)
        #expect(date("Lot 12/BLK/2019") == nil)
    }

    @Test(arguments: [
        ("TBL 4/1 Chk 3310 gst 2\n184ug°17 20:02", "2017-08-18"), ("Chk 7710 06Apr°19 12:40", "2019-04-06"),
        ("JUL05°18 3:10PM", "2018-07-05"), ("Chk 4410 094PR'15 19:21", "2015-04-09"),
    ])
    func dayMonthYearWithTheApostropheReadAsADegreeOrTheAAsAFour(line: String, expected: String) {
        #expect(date(line) == expected)
    }

    @Test func aProductCodeBeforeAPriceIsNoMonth() {
        #expect(date("SKU 124PR 16.99") == nil)
    }

    @Test func compactDateWithASpeckAfterIt() {
        // The letter repair would read the speck as a 1 and lose the date.
        #expect(date("POS:T104 shf:20190521!") == "2019-05-21")
    }

    // MARK: category

    @Test func motorFactorsPartsAreMaintenance() {
        let text = "EASTSIDE MOTOR SPARES\nHEADLAMP BULB H4 8.99\nENGINE OIL 5W30 4L 27.50\nTOTAL 36.49"
        let document = ReceiptDocument(text: text)
        #expect(CategoryClassifier.standard.classify(document, vendor: "EASTSIDE MOTOR SPARES").name == "Maintenance")
    }

    // MARK: vendor

    @Test func bracketedBranchRowContinuesTheNameAbove() {
        // The branch row is printed larger than the name: only its bracket says it continues it.
        let rows = [("KEDAI MAJU SENTOSA", 30), ("(BANGI) SDN BHD", 42), ("(123456-K)", 30), ("NO 5, JALAN 2", 28)]
        #expect(vendor(rows: rows) == "KEDAI MAJU SENTOSA (BANGI) SDN BHD")
    }

    @Test func companyFormAloneContinuesTheNameAbove() {
        let rows = [("SINAR TIMUR HARDWARE", 56), ("TRADING", 40), ("001234567-T", 30), ("12, JALAN SS 2/4", 30)]
        #expect(vendor(rows: rows) == "SINAR TIMUR HARDWARE TRADING")
        #expect(vendor(rows: [("GOLDEN PALM", 40), ("SDN BHD", 40), ("LOT 5, JALAN 3", 30)]) == "GOLDEN PALM SDN BHD")
    }

    @Test func brandAboveTheLegalNameWins() {
        let text = """
        Northfield Plumbing
        Northfield Plumbing Services Ltd, 14 Mill Road,
        Leeds LS2 7AB
        """
        #expect(vendor(text) == "Northfield Plumbing")
        #expect(vendor("Westway Couriers Ltd, 3 Dock Street\nLeeds LS1 4AA") == "Westway Couriers Ltd")
    }

    @Test func largerPrintWinsOverSmallLines() {
        let rows = [("QPS", 46), ("Quick Parcel Services", 30), ("12 Dock Road", 28), ("Tel 0161 555 0100", 28)]
        #expect(vendor(rows: rows) == "QPS")
    }

    @Test func oneWordBrandOverWhatTheBusinessIs() {
        #expect(vendor(rows: [("GLEAM", 60), ("EXPRESS CAR WASH", 40), ("Leeds LS9 8AB", 40)]) == "GLEAM EXPRESS CAR WASH")
        // A second row that is not a kind of business stays out.
        #expect(vendor(rows: [("GLEAM", 60), ("OPEN 7 DAYS", 40), ("Leeds LS9 8AB", 40)]) == "GLEAM")
    }

    @Test func greetingsAndSlogansAreNotNames() {
        #expect(vendor("Welcome To The\nHarbour Lights Hotel\n12 Quay Road") == "Harbour Lights Hotel")
        #expect(vendor("Your fresh and friendly market\nGreenway Foods\n3 Mill Lane") == "Greenway Foods")
        #expect(VendorFinder.isSlogan(LabelText("Goods Sold Are Not Refundable")))
        #expect(!VendorFinder.isSlogan(LabelText("The Cheesecake Factory")))
    }

    @Test(arguments: [
        ("4/4/20127:33 AM Sales Receipt", "2012-04-04"), ("1/22/2016159 PM Sales Receipt # 5642", "2016-01-22"),
        ("Cashier1, 12/28/18,03:12 PM", "2018-12-28"), ("14/03/20229:05", "2022-03-14"),
    ])
    func aDateWithItsTimeGluedOnIsRead(row: String, expected: String) {
        #expect(date("DINER\n\(row)\nTOTAL $9.50") == expected)
    }

    @Test func digitsGluedToAYearWithoutATimeAreNoDate() {
        // An amount or a code after a date-like start: no time follows, so no date is read.
        #expect(date("DINER\nREF 4/4/201273\nTOTAL $9.50") == nil)
        #expect(date("DINER\nQTY 1/2/18,50\nTOTAL $9.50") == nil)
    }

    @Test func aStraplineEndingLikeASentenceIsNotTheName() {
        // With the name a logo that was not read, no name beats a strapline taken for one.
        #expect(vendor("You decide what's inside.\n132 North Glendale Ave\nGlendale, CA 91206") == nil)
        #expect(vendor("Fresh ideas daily,\nHarbour Deli\n3 Mill Lane") == "Harbour Deli")
        // A company form or an initial before the stop is a name's.
        #expect(vendor("Harbour Deli Inc.\n3 Mill Lane") == "Harbour Deli Inc")
        #expect(vendor("Smith & Co.\n3 Mill Lane") == "Smith & Co")
    }

    /// A row read as words with the given confidences, as the neural reader gives a spaced logo.
    func vendor(words row: [(String, Double)]) -> String? {
        var x = 10
        let words = row.map { text, confidence -> OCRWord in
            defer { x += text.count * 20 + 16 }
            return OCRWord(text: text, confidence: confidence, box: BoundingBox(x: x, y: 10, width: text.count * 20, height: 40))
        }
        let ocr = OCRResult(text: "", lines: [OCRLine(words: words), OCRLine(words: [
            OCRWord(text: "12", confidence: 95, box: BoundingBox(x: 10, y: 70, width: 24, height: 20)),
            OCRWord(text: "Sawmill", confidence: 95, box: BoundingBox(x: 40, y: 70, width: 84, height: 20)),
            OCRWord(text: "Rd", confidence: 95, box: BoundingBox(x: 130, y: 70, width: 24, height: 20)),
        ])], meanConfidence: 90, imageWidth: 800, imageHeight: 400, sourceWidth: 800, sourceHeight: 400)
        return VendorFinder.find(ReceiptDocument(ocr: ocr))?.name
    }

    @Test(arguments: [
        ("C0.", "CO."), ("S0ON", "SOON"), ("8OOK", "BOOK"), ("1DEA", "IDEA"), ("1ndia", "India"), ("vi1lage", "village"),
        ("TIME5QUARE", "TIMESQUARE"),
        // Codes and names with digits stay as printed.
        ("A1", "A1"), ("B2B", "B2B"), ("HTB001", "HTB001"), ("7-ELEVEN", "7-ELEVEN"), ("#1407", "#1407"), ("(2012)", "(2012)"),
        ("M8", "M8"), ("99", "99"), ("3M", "3M"),
    ])
    func aDigitAmongTheLettersOfANameIsALetterMisread(token: String, expected: String) {
        #expect(VendorFinder.lettersForDigit(token) == expected)
    }

    @Test func aNameReadWithADigitForALetterIsMended() {
        #expect(vendor("POPULAR 8OOK C0. (M) SDN BHD\nNO 8, JALAN 1/2") == "POPULAR BOOK CO. (M) SDN BHD")
        #expect(vendor("A1 TYRES LTD\n12 Dock Road") == "A1 TYRES LTD")
    }

    @Test func shortWordsReadWithCertaintyAtTheEndsOfTheNameAreKept() {
        // A widely spaced logo's first letters, and names that open or close with a short word.
        #expect(vendor(words: [("m", 99), ("eijer", 98)]) == "m eijer")
        #expect(vendor(words: [("Li", 99), ("quor", 97), ("Library", 99)]) == "Li quor Library")
        #expect(vendor(words: [("El", 98), ("Farol", 99)]) == "El Farol")
        #expect(vendor(words: [("FLYING", 99), ("J", 97)]) == "FLYING J")
        // The same words read without certainty are the specks of a logo or a stain.
        #expect(vendor(words: [("m", 60), ("eijer", 98)]) == "eijer")
        #expect(vendor(words: [("Li", 80), ("quor", 97), ("Library", 99)]) == "quor Library")
        #expect(vendor(words: [("FLYING", 99), ("J", 70)]) == "FLYING")
    }

    @Test func aClearFirstRowNamedAfterAStreet() {
        #expect(vendor("ONE MILL STREET\n1 Mill Street\nBoston MA 02110") == "ONE MILL STREET")
        #expect(vendor("12 MILL STREET\nBoston MA 02110") == nil)
    }

    @Test func aLegalEntityInSmallPrintFarDownCountsLess() {
        let text = """
        Riverbend Fun Zone
        1200 Harbor Blvd
        Anaheim CA 92802
        Tel (714) 555 0100
        Table 12 Guests 4
        A UNIT OF NORTHWIND LLC
        """
        #expect(vendor(text) == "Riverbend Fun Zone")
    }

    @Test func storeNumberStaysWithTheName() {
        #expect(vendor("Hilltop Outfitters # 212\n400 Main St") == "Hilltop Outfitters #212")
    }

    @Test func aVendorReadWithLowConfidenceIsReadAgainLarger() async throws {
        var first = ocrResult("MAJU GARDEMA BAKERY SDN BHD\n12/03/2024 10:02\nBREAD 2.20\nSUBTOTAL 2.20\nTAX 0.13\nTOTAL 2.33")
        first.lines[0].words[1].confidence = 41
        let recorder = RereadRecorder()
        let input = AnalysisInput(source: "bakery.jpg", ocr: first, reader: ScriptedPageReader { pass in
            await recorder.record(pass)
            return ocrResult("MAJU GARDENIA BAKERY SDN BHD")
        })
        let analysis = try await HeuristicAnalyzer().analyze(input, options: AnalysisOptions())
        #expect(analysis.vendor == "MAJU GARDENIA BAKERY SDN BHD")
        // The date's row is checked first, at the first scale; then come the passes for the name.
        let all = await recorder.passes
        #expect(all.first?.scale == 1)
        // Larger, then (the two readings differ) a third reading of the same band.
        let passes = Array(all.dropFirst())
        #expect(passes.map(\.scale) == [2, HeuristicAnalyzer.thirdReadingScale])
        #expect(passes.count == 2 && passes[0].region == passes[1].region)
        let region = try #require(passes.first?.region)
        #expect(region.y <= 10 && region.maxY >= 30 && region.maxY < 70, "the band around the name's row only")
    }

    @Test func aDifferentNameFromTheRereadIsNotTaken() async throws {
        var first = ocrResult("MAJU GARDEMA BAKERY SDN BHD\n12/03/2024 10:02\nSUBTOTAL 2.20\nTAX 0.13\nTOTAL 2.33")
        first.lines[0].words[1].confidence = 41
        let input = AnalysisInput(source: "bakery.jpg", ocr: first, reader: ScriptedPageReader { _ in ocrResult("WELCOME TO OUR SHOP") })
        let analysis = try await HeuristicAnalyzer().analyze(input, options: AnalysisOptions())
        #expect(analysis.vendor == "MAJU GARDEMA BAKERY SDN BHD")
    }

    @Test func aRereadWithSmallLettersAmidCapitalsIsNotClearer() async throws {
        // The close-up reads the weak word more confidently, but as "DeI.Y.": a misread.
        var first = ocrResult("MR. P.I.Y. (M) SDN BHD\n12/03/2024 10:02\nTAPE 2.20\nTOTAL 2.20")
        first.lines[0].words[1].confidence = 20
        let input = AnalysisInput(source: "hardware.jpg", ocr: first, reader: ScriptedPageReader { _ in ocrResult("MR. PeI.Y. (M) SDN BHD") })
        #expect(try await HeuristicAnalyzer().analyze(input, options: AnalysisOptions()).vendor == "MR. P.I.Y. (M) SDN BHD")
    }

    @Test(arguments: [
        ("MR. A.1.B. (M) SDN BHD\nLOT 1, JALAN 2", "MR. A.I.B. (M) SDN BHD"),
        ("SINAR BAKERIES (KL) SDN (123456 X)\nLOT 1, JALAN 2", "SINAR BAKERIES (KL) SDN BHD"),
        ("SINAR HARDWARE SDN. pro\nLOT 1, JALAN 2", "SINAR HARDWARE SDN. BHD"),
        ("KEDAI SINAR (SP) SDR\nLOT 1, JALAN 2", "KEDAI SINAR (SP) SDN BHD"),
    ])
    func malaysianCompanyNamesThroughOCRSlips(text: String, expected: String) {
        #expect(vendor(text) == expected)
    }

    @Test func sdnBhdWithBothWordsMisread() {
        #expect(VendorFinder.clean("SUBANG HEALTHCARE SDA RMD") == "SUBANG HEALTHCARE SDN BHD")
        let rows = [("BA PHARMACY", 36), ("SUBANG HEALTHCARE SDA RMD", 20), ("1118256-K", 20), ("JALAN SS15/4", 20)]
        #expect(vendor(rows: rows) == "SUBANG HEALTHCARE SDN BHD")
    }

    @Test func tableHeadingsAreNotNames() {
        #expect(vendor("12, Jalan Damai 7/4\nTAX INVOICE\nItem Qty Price\nSR VEGE 1 5.50\nTOTAL 5.50") == nil)
    }

    @Test func misreadSdnBerhadShortFormAndBraces() {
        #expect(vendor("MEGA CAKE HOUSE $/B 123456-U\nLOT 12, JALAN 3") == "MEGA CAKE HOUSE S/B")
        #expect(vendor("DELIMA {KL} SDN. BHD.\nNO 3, JALAN 4") == "DELIMA (KL) SDN. BHD")
    }

    @Test(arguments: [
        ("MR. D.1.YY. (M) SDN BHD\nLOT 1, JALAN 2", "MR. D.I.Y. (M) SDN BHD"),
        ("MR. D.I.Y¥. (KUCHAI) SDN BHD\nLOT 1, JALAN 2", "MR. D.I.Y. (KUCHAI) SDN BHD"),
    ])
    func dottedInitialsWithALetterReadTwice(text: String, expected: String) {
        #expect(vendor(text) == expected)
    }

    @Test func theOwnerInSmallPrintIsNotTheName() {
        #expect(vendor("Jungle Jamboree\nUNIT OF FUTOMIC DINERS LLP\nConnaught Place, New Delhi") == "Jungle Jamboree")
    }

    @Test func aRowWithAPhoneNumberIsNotTheName() {
        let text = "NEWSCO careline : 1800 88 1231\nNEWSCO RETAIL SB(306295-X) FKA OLDCO STORES SB\nNO. 9, JALAN 16/11"
        #expect(vendor(text) == "NEWSCO RETAIL SB")
    }

    @Test func capitalsTesseractScoresAtZeroAreKept() {
        func word(_ text: String, _ x: Int, _ confidence: Double) -> OCRWord {
            OCRWord(text: text, confidence: confidence, box: BoundingBox(x: x, y: 10, width: text.count * 12, height: 20))
        }
        let words = [word("MR.", 10, 92), word("D.I.Y.", 60, 0), word("(M)", 150, 80), word("SDN", 200, 92), word("BHD", 250, 90),
                     word("~“‘", 300, 0)]
        let ocr = OCRResult(text: "", lines: [OCRLine(words: words, box: BoundingBox(x: 10, y: 10, width: 330, height: 20))],
                            meanConfidence: 80, imageWidth: 800, imageHeight: 100, sourceWidth: 800, sourceHeight: 100)
        #expect(ReceiptDocument(ocr: ocr).lines.first?.text == "MR. D.I.Y. (M) SDN BHD")
    }

    @Test func aSummaryLabelTesseractScoresAtZeroIsKept() {
        // "Subtote!" read with confidence 0.4: the SUBTOTAL row must reach the tax rules, or the
        // misread tax ("$1.0" for $1.90) cannot be repaired from subtotal and total.
        let rows: [[(String, Double)]] = [
            [("PINE", 92), ("HOME", 90), ("GOODS", 91)],
            [("Subtote!", 0.4), ("$18.40", 60)],
            [("Sales", 80), ("Tax", 95), ("6.000%", 77), ("$1.0", 63)],
            [("TOTAL", 88), ("$20.30", 84)],
            [("Thanks!", 0.2), ("oe", 0)],
        ]
        let lines = rows.enumerated().map { i, row -> OCRLine in
            var x = 10
            let words = row.map { text, confidence -> OCRWord in
                defer { x += text.count * 12 + 20 }
                return OCRWord(text: text, confidence: confidence, box: BoundingBox(x: x, y: 10 + i * 30, width: text.count * 12, height: 20))
            }
            return OCRLine(words: words)
        }
        let ocr = OCRResult(text: "", lines: lines, meanConfidence: 70, imageWidth: 800, imageHeight: 200, sourceWidth: 800, sourceHeight: 200)
        let document = ReceiptDocument(ocr: ocr)
        #expect(document.lines.map(\.text) == ["PINE HOME GOODS", "Subtote! $18.40", "Sales Tax 6.000% $1.0", "TOTAL $20.30"])
        let amountRows = AmountLine.build(document)
        #expect(TaxFinder.find(amountRows, total: Decimal(string: "20.30"))?.value == Decimal(string: "1.90"))
    }

    @Test func aTaxOverHalfTheTotalIsNoTax() {
        // The tax row read with the net's digits: no tax is charged at over 100%, so none is given.
        let text = "SUDS & SHINE WASH\nDELUXE WASH 18.00\nSALES TAX 17.50\nTOTAL 18.00\nCASH 20.00"
        #expect(tax(text) == nil)
        #expect(tax(text.replacingOccurrences(of: "TAX 17.50", with: "TAX 1.50")) == Decimal(string: "1.50"))
    }

    @Test func aTaxTableWhoseAmountsAreUnreadableGivesTheRate() {
        // The GST summary splits the total into net and tax; its amounts lost, the rate remains.
        let text = "LEMON TREE MART\nMILO 3IN1 4.40\nTOTAL 4.40\nCASH 5.00\nCHANGE DUE 0.60\n"
            + "GST -- Rate -- Before GST - GST Amt\n7% 4 OE\nThank You"
        #expect(tax(text) == Decimal(string: "0.29"))
        #expect(tax(text.replacingOccurrences(of: "7% 4 OE\n", with: "")) == nil)
    }

    @Test func aYearAfterAMonthOnATaxRowIsNoTaxAmount() {
        // A vehicle tax confirmation: "tax" rows carry dates, not a tax with its decimal point lost.
        let text = """
            DVLA
            Vehicle tax payment confirmation
            Vehicle tax starts 1 May 2025
            Date of payment 28 April 2025
            Amount paid £195.00
            Vehicle tax is not subject to VAT.
            """
        let analysis = HeuristicAnalyzer().analyze(text: text)
        #expect(analysis.total == Decimal(string: "195.00"))
        #expect(analysis.tax == nil)
    }

    // MARK: totals, cross-checks

    func total(withItems text: String) -> Decimal? {
        let rows = AmountLine.build(ReceiptDocument(text: text))
        let items = LineItemParser.parse(rows)
        return TotalFinder.find(rows, lineItemSum: items.isEmpty ? nil : items.compactMap(\.amount).reduce(0, +))?.value
    }

    @Test func theOnlyItemIsNotConfirmedByTheItemSum() {
        // The total's label misread beyond recognition: the one item "adding up" to itself
        // proves nothing; the bigger amount under the items is the total.
        let text = """
            PINE HOLLOW OUTFITTERS
            00041237788 CAMP MUG 36.10
            Tax 6%
            RECEIPT Tcral. $38.27
            Credit Card
            """
        #expect(total(withItems: text) == Decimal(string: "38.27"))
    }

    @Test func aTotalAboveTheCashHandedOverIsMisread() {
        // Change was given, so the total cannot exceed the cash: its first digit was misread.
        let text = """
            1 CD LOS TRES AMIGOS 149.90
            1 CD NOCHE DE RUMBA 95.70
            TOTAL 845.60
            EFECTIVO 250.00
            CAMBIO 4.40
            """
        #expect(total(text) == Decimal(string: "245.60"))
    }

    @Test func paidMinusChangeOutweighsAMisreadSubtotal() {
        let text = """
            MILK CHOC BAR 2.20
            SUBTOTAL 7.00
            CASH 10.00
            CHANGE DUE 7.80
            """
        #expect(total(text) == Decimal(string: "2.20"))
    }

    @Test func theVATTableDecidesBetweenTwoTotalsOneDigitApart() {
        // Net 105.82 + VAT 16.28 = 122.10: the second total row lost its first digit to a 4.
        let text = """
            2 Lasagne 13.90 27.80
            1 Tiramisu 7.00
            Tot Eur 122.10
            Total HT TVA
            105.82 16.28
            Tot 422.10
            """
        #expect(total(text) == Decimal(string: "122.10"))
    }

    @Test func theVATTableDoesNotOverruleTheRoundingAdjustment() {
        let text = """
            Total Sales (Inclusive GST) RM 177.22
            Rounding Adjustment -0.02
            CREDIT RM 177.20
            GST Summary Amount (RM) Tax (RM)
            SR 6% 167.19 10.03
            """
        #expect(total(text) == Decimal(string: "177.20"))
    }

    @Test func aTaxAsLargeAsTheSubtotalIsACheckNumber() {
        // "CHK 2900 GST 1": the check number on a row naming the tax is no tax of 29.00, and
        // cash minus change (16.10), not the misread paid amount minus change, is the total.
        let text = """
            CHK 2900 GST 1
            1 PIZZA MARGHERITA 11.49
            1 SPARKLING WATER 2.99
            SUBTOTAL 14.48
            AIRPORT SURCHARGE 0.29
            TAX 1.33
            AMOUNT PAID 164.16
            CASH 20.00
            CHANGE 3.90
            """
        #expect(total(text) == Decimal(string: "16.10"))
    }

    @Test func aCardPaymentPrintedNegativePaysTheTotal() {
        let text = """
            2 Eggs Benedict 24.90
            Subtotal 4O
            Sales Tax 2.20
            VISA -27.10
            CHANGE DUE 0.00
            """
        #expect(total(text) == Decimal(string: "27.10"))
    }

    @Test func aTotalAboveTheTaxesIsOnlyTheFoodTotal() {
        let text = """
            MASALA DOSA 1 100.00 100.00
            PANEER TIKKA 1 180.00 180.00
            DAHI PURI 1 85.00 85.00
            Total 365.00
            Ser.Tax 5.6% 20.44
            VAT(2%) 7.30
            Round off 0.26
            Net Amount 393.00
            """
        #expect(total(text) == Decimal(string: "393.00"))
    }

    @Test func aDecimalPointReadAsAColonOnTheTotalRow() {
        // No clock shows 37:71.
        let text = """
            1 Lamb Korma 10.99
            1 Vegetable Pakora 3.99
            SubTotal: 33.97
            Tax: 3.74
            Total; 37:71
            """
        #expect(total(text) == Decimal(string: "37.71"))
    }

    // MARK: vendor, header rows

    @Test func aLogoSizedBrandOverTheOperatorsLegalName() {
        let rows: [(String, Int)] = [
            ("Welcome to the Family", 30),
            ("CornerMart", 120),
            ("Brightwell Retail Sdn Bhd (123456-X)", 36),
            ("No 8, Jalan Kenari 3, Bandar Puchong", 36),
            ("GST ID : 000123456789", 30),
        ]
        #expect(vendor(rows: rows) == "CornerMart")
    }

    @Test func aLegalNameUnderATitleOfTheSameSizeStaysTheName() {
        // Not a logo: a title row hardly taller than the company row does not take over.
        let rows: [(String, Int)] = [
            ("KEDAI BUKU CERIA", 40),
            ("CERIA BOOKS SDN BHD (654321-A)", 36),
            ("NO 3, JALAN PASAR", 36),
        ]
        #expect(vendor(rows: rows) != "KEDAI BUKU CERIA")
    }

    @Test func aSmallLetterGluedToACapitalisedNameIsASpeck() {
        #expect(vendor("—sMERIDIAN HEALTHCARE SDN BHD\nNO 2, JALAN SS15/4") == "MERIDIAN HEALTHCARE SDN BHD")
    }

    @Test func aLowConfidenceFragmentWithPunctuationAfterTheName() {
        func word(_ text: String, _ x: Int, _ confidence: Double) -> OCRWord {
            OCRWord(text: text, confidence: confidence, box: BoundingBox(x: x, y: 10, width: text.count * 12, height: 20))
        }
        let words = [word("Harbor", 10, 95), word("Bagels", 90, 95), word("Sere,", 170, 31)]
        let ocr = OCRResult(text: "", lines: [OCRLine(words: words, box: BoundingBox(x: 10, y: 10, width: 240, height: 20))],
                            meanConfidence: 80, imageWidth: 800, imageHeight: 100, sourceWidth: 800, sourceHeight: 100)
        #expect(VendorFinder.find(ReceiptDocument(ocr: ocr))?.name == "Harbor Bagels")
    }

    @Test func theStoreNamesItselfAtTheFootWhenItsLogoWasNotRead() {
        let text = """
            Lower Prices
            412 Elm Rd
            Mason, MI # 201
            The Brookmart Team appreciates your business
            11/22/24
            MILK 2.49
            TOTAL 2.49
            """
        #expect(vendor(text) == "Brookmart")
    }

    @Test func thankYouForShoppingAtNamesTheStore() {
        let text = """
            Westgate Square
            Greensboro, NC 27410
            (336) 555-0143
            GIRLS DRESS 885872871558 33.99
            TOTAL $33.99
            THANK YOU FOR SHOPPING AT HOLLISTON'S
            """
        #expect(vendor(text) == "HOLLISTON'S")
    }

    @Test func aSignOffWithoutAStoreNameOrUnderACompanyChangesNothing() {
        #expect(vendor("GREENACRE FOODS\nMarket Place, Otley\nTOTAL 2.00\nTHANK YOU FOR SHOPPING LOCAL") == "GREENACRE FOODS")
        #expect(vendor("MAJU JAYA SDN BHD\nNO 3, JALAN PASAR\nTOTAL 2.00\nTHANK YOU FOR SHOPPING AT KEDAI SERBANEKA")
                == "MAJU JAYA SDN BHD")
        #expect(vendor("Harbour Fish Bar\n21 Quay Street\nTOTAL 9.50\nThank you for visiting us!") == "Harbour Fish Bar")
    }

    @Test func aServiceChargeIsNoChange() {
        #expect(AmountRole.classify(LabelText("SVC CHG 10%")) == .tip)
        #expect(AmountRole.classify(LabelText("SERVICE CHG")) == .tip)
        #expect(AmountRole.classify(LabelText("CHG")) == .change)
    }

    @Test func aSubtotalWithItsLastLettersMisreadIsStillASubtotal() {
        #expect(AmountRole.classify(LabelText("Subtote!")) == .subtotal)
        #expect(AmountRole.classify(LabelText("SUBTOTA")) == .subtotal)
        let text = """
            MAPLE HOME STORE
            RINSE BASKET 10.99
            Subtote! $23.77
            Sales Tax 6.000% $1.0
            Total $25.67
            """
        #expect(tax(text) == Decimal(string: "1.90"))
    }

    @Test func aRefundTaxRowPrintsEveryAmountNegative() {
        #expect(AmountParser.amounts(in: "TAX 6. 88-").map(\.value) == [Decimal(string: "-6.88")!])
        let text = """
            RIVERTON OUTFITTERS
            RETURN BOYS JACKET 101.97-A
            A= 101.97-@ 6.75% TAX 6. 88-
            TOTAL $108.85-
            """
        #expect(tax(text) == Decimal(string: "6.88"))
    }

    @Test func aSectionSignReadForAFive() {
        #expect(AmountParser.amounts(in: "Net Amt : §3.55").map(\.value) == [Decimal(string: "53.55")!])
        let text = """
            RESTORAN SRI MELATI
            NASI LEMAK 2 6.50 13.00 SR
            Gross Amt: 47 80
            Svc Chg 10% 4.78
            GST (6%) 2.87
            Net Amt : §3.55
            """
        #expect(total(text) == Decimal(string: "53.55"))
    }

    @Test func ringgitCentsReadAsTheLetterO() {
        #expect(AmountParser.amounts(in: "TOTAL RMS: OO").map(\.value) == [5])
        #expect(AmountParser.amounts(in: "CASH RM12. OO").map(\.value) == [12])
        #expect(AmountParser.amounts(in: "TABLE NO. OO").isEmpty)
        let text = """
            KEDAI CETAK MAJU
            PHOTOSTAT A4 RMS. OO
            GST 6% RMO. 28
            TOTAL RMS: OO
            CASH RMS. OO
            """
        #expect(total(text) == 5)
    }

    @Test func aTaxReadWithADigitDoubledIsTheTotalLessTheChargesAboveIt() {
        let text = """
            HARBOR GRILL
            2 FISH TACOS @ 14.00 28.00
            1 RIBEYE 32.00
            FOOD TOTAL 60.00
            SVC CHG TOTAL 10.80
            TAX 3330
            TOTAL DUE $74.10
            """
        #expect(tax(text) == Decimal(string: "3.30"))
        // Read whole, the tax stays as printed.
        #expect(tax(text.replacingOccurrences(of: "TAX 3330", with: "TAX 3.30")) == Decimal(string: "3.30"))
        #expect(TotalFinder.hasOneExtraDigit(Decimal(string: "55.25")!, comparedTo: Decimal(string: "5.25")!))
        #expect(!TotalFinder.hasOneExtraDigit(Decimal(string: "55.25")!, comparedTo: Decimal(string: "2.25")!))
    }
}
