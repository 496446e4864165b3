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

/// Money without minor units (ISO 4217's exponent 0: yen, won, dong…; and the rupiah, printed
/// whole in practice): a receipt in such a currency prints whole amounts with thousands separators,
/// and they are read whole, never as cents nor as nothing. Made-up rows.
@Suite struct WholeUnitAmountTests {
    func amounts(_ line: String) -> [Decimal] { AmountParser.amounts(in: line, wholeUnits: true).map(\.value) }

    @Test(arguments: [
        ("TOTAL 224,400", "224400"), ("TOTAL Rp 224.400", "224400"), ("Jumlah Rp224.400", "224400"),
        ("合計 ¥5,160", "5160"), ("TOTAL ¥800", "800"), ("합계 12,312원", "12312"), ("Tong cong 48.000đ", "48000"),
        ("TOTAL 134,999", "134999"), ("Grand Total Rp 1.234.500,-", "1234500"), ("TOTAL 48.000 VND", "48000"),
        ("Cash Rp 5000", "5000"), ("TOTAL 1,200.00", "1200"),
    ])
    func readsWholeAmounts(line: String, expected: String) throws {
        #expect(amounts(line).last == Decimal(string: expected))
    }

    @Test func withoutTheCurrencyTheyAreNoAmounts() {
        // On a receipt with minor units, `224,400` is no amount (a quantity or a code far more often).
        #expect(AmountParser.amounts(in: "TOTAL 224,400").isEmpty)
        #expect(AmountParser.amounts(in: "TOTAL ¥5,160").isEmpty)
    }

    @Test(arguments: ["Qty 2", "Table 12", "25/01/2018", "TEL 03-3279 1851", "Invoice 18287", "10%"])
    func wholeNumbersWithoutAMarkAreStillNotMoney(line: String) {
        #expect(amounts(line).isEmpty)
    }

    @Test func aBareNumberOnATotalRowIsWhole() {
        let rows = AmountLine.build(ReceiptDocument(text: "TOTAL 20000"), wholeUnits: true)
        #expect(rows.first?.amounts.first?.value == 20000)
        // With minor units a bare number there is read as cents lost their point.
        #expect(AmountLine.build(ReceiptDocument(text: "TOTAL 2000")).first?.amounts.first?.value == Decimal(string: "20.00"))
    }

    @Test func theCurrencysExponentDecides() {
        #expect(Currency.decimals(of: "JPY") == 0)
        #expect(Currency.decimals(of: "KRW") == 0)
        #expect(Currency.decimals(of: "VND") == 0)
        #expect(Currency.decimals(of: "IDR") == 0)
        #expect(Currency.decimals(of: "MYR") == 2)
    }

    @Test func aReceiptInYenOrRupiahIsReadWhole() {
        let yen = HeuristicAnalyzer().analyze(text: """
            KAWASEMI FUEL
            2024/09/18 14:26
            Regular Gasoline ¥6,524
            Car Wash ¥800
            TOTAL ¥7,324
            CASH ¥10,000
            CHANGE ¥2,676
            """)
        #expect(yen.currency == "JPY")
        #expect(yen.total == 7324)
        // Printed, stored and exported in the yen's own units.
        #expect(yen.json["total"] == .number("7324"))
        let rupiah = HeuristicAnalyzer().analyze(text: """
            BENGKEL MAJU MOTOR
            Tanggal: 12/08/2024
            Filter Oli 45.000
            Jasa Servis 75.000
            Subtotal Rp 120.000
            PPN 11% Rp 13.200
            TOTAL Rp 133.200
            """)
        #expect(rupiah.currency == "IDR")
        #expect(rupiah.total == 133200)
        #expect(rupiah.tax == 13200)
        #expect(rupiah.json["total"] == .number("133200"))
    }
}
