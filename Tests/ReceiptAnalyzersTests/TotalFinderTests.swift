import Foundation
import Testing
import ReceiptModel
import ReceiptAnalyzers

@Suite struct TotalFinderTests {
    func total(_ text: String) -> Decimal? {
        TotalFinder.find(AmountLine.build(ReceiptDocument(text: text)))?.value
    }

    @Test func aFuelPrepaymentLessItsChangeIsTheTotal() {
        let text = """
        PREPAY FUEL $40.00
        PUMP 5 UNLEADED
        11.234 GAL @ $3.559
        FUEL SALE $39.98
        CHANGE DUE $0.02
        """
        #expect(total(text) == Decimal(string: "39.98"))
    }

    @Test func grandTotalBeatsSubtotalTaxAndPayment() {
        let text = """
        2 x FLAT WHITE 3.20 6.40
        BLUEBERRY MUFFIN 2.95
        SUBTOTAL 9.35
        VAT 20% 1.87
        TOTAL 11.22
        VISA 11.22
        CHANGE 0.00
        """
        #expect(total(text) == Decimal(string: "11.22"))
    }

    @Test func roundedTotalIsThePayableOne() {
        let text = """
        Total Sales (Inclusive GST) RM 15.39
        Rounding Adjustment 0.01
        Grand Total RM 15.40
        CASH RM 20.00
        CHANGE RM 4.60
        """
        #expect(total(text) == Decimal(string: "15.40"))
    }

    @Test func countsAndSavingsAreNotTotals() {
        let text = """
        APPLES 1KG 3.49
        BREAD 1.20
        TOTAL SAVINGS 25.00
        TOTAL QTY 12.00
        TOTAL 4.69
        """
        #expect(total(text) == Decimal(string: "4.69"))
    }

    @Test func labelAndAmountOnTwoRows() {
        let text = """
        UNLEADED 40.01 L 59.97
        TOTAL DUE
        59.97
        """
        #expect(total(text) == Decimal(string: "59.97"))
    }

    @Test func paidMinusChangeWhenTheTotalRowIsUnreadable() {
        let text = """
        NASI LEMAK 6.50
        TEH TARIK 2.30
        TOTAL ~~ lol
        CASH 50.00
        CHANGE 41.20
        """
        #expect(total(text) == Decimal(string: "8.80"))
    }

    @Test func taxIncludedRowIsNotTheTotal() {
        let text = """
        BOX FILE 2 X 3.75 7.50
        TOTAL 7.50
        (Total Included GST @ 6% 0.42)
        """
        #expect(total(text) == Decimal(string: "7.50"))
    }

    @Test func partialTotalLosesToPayable() {
        let text = """
        Total 0% supplies: 26.61
        Total 6% supplies (excl. GST): 33.96
        GST: 2.03
        Total 6% supplies (Inc. GST): 35.99
        Total Payable: 62.60
        """
        #expect(total(text) == Decimal(string: "62.60"))
    }

    @Test func crossChecksMakeTheFindingConfident() throws {
        let checked = try #require(TotalFinder.find(AmountLine.build(ReceiptDocument(text: "SUBTOTAL 10.00\nTAX 0.80\nTOTAL 10.80"))))
        #expect(checked.crossChecked)
        let unchecked = try #require(TotalFinder.find(AmountLine.build(ReceiptDocument(text: "COFFEE 3.00\nTOTAL 10.80"))))
        #expect(!unchecked.crossChecked)
        #expect(checked.confidence > unchecked.confidence)
    }
}
