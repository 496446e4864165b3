import Foundation
import Testing
import ReceiptModel
import ReceiptAnalyzers

@Suite struct AmountParserTests {
    @Test(arguments: [
        ("TOTAL 23.45", "23.45"), ("Total RM 30.90", "30.90"), ("GRAND TOTAL RM30.90", "30.90"),
        ("TOTAL £12.50", "12.50"), ("Summe EUR 16,70", "16.70"), ("TOTAL $1,234.56", "1234.56"),
        ("Betrag 1.234,56", "1234.56"), ("SUMMER CUP 8.49 9.00SR", "9.00"), ("CASH 5O.00", "50.00"),
        ("TOTAL 3S.9O", "35.90"), ("TOTAL l2.B0", "12.80"), ("Total 12. 50", "12.50"), ("TOTAL 12 .50", "12.50"),
        ("AMOUNT DUE US$ 7.20", "7.20"), ("Total (RM) : ( 47.10)", "47.10"),
    ])
    func readsTheLastAmountOfARow(line: String, expected: String) throws {
        let amount = try #require(AmountParser.amounts(in: line).last)
        #expect(amount.value == Decimal(string: expected))
    }

    @Test func keepsTheCurrencyMark() {
        #expect(AmountParser.amounts(in: "TOTAL RM 9.00").last?.currencyMark == "RM")
        #expect(AmountParser.amounts(in: "Amount Due £4.20").last?.currencyMark == "£")
        #expect(AmountParser.amounts(in: "TOTAL 4.20").last?.currencyMark == nil)
    }

    @Test func marksRepairedReadings() {
        #expect(AmountParser.amounts(in: "TOTAL 3S.90").last?.repaired == true)
        #expect(AmountParser.amounts(in: "TOTAL 35.90").last?.repaired == false)
    }

    @Test(arguments: ["GST 6%", "Qty 2", "25/01/2018", "13:58", "TEL 03-3279 1851", "Invoice 18287", "6.00%"])
    func ignoresWhatIsNotMoney(line: String) {
        #expect(AmountParser.amounts(in: line).isEmpty)
    }

    @Test func readsSigns() {
        #expect(AmountParser.amounts(in: "DISCOUNT -1.50").last?.value == Decimal(string: "-1.50"))
        #expect(AmountParser.amounts(in: "REFUND 2.00-").last?.value == Decimal(string: "-2.00"))
    }
}
