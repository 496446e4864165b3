import Foundation
import Testing
import ReceiptModel

@Suite struct MoneyTests {
    @Test(arguments: [
        ("23.45", "23.45"), ("RM 13.30", "13.3"), ("1,007.50", "1007.5"), ("16,70", "16.7"),
        ("1.234,56", "1234.56"), (".74", "0.74"), ("-1.73", "-1.73"), ("$19.95", "19.95"), ("1,234", "1234"),
    ])
    func parsesAmounts(text: String, expected: String) {
        #expect(Money.parse(text) == Decimal(string: expected))
    }

    @Test func amountsSerializeExactly() throws {
        let value = try #require(Money.parse("23.45"))
        #expect(JSONValue.decimal(value).serialized() == "23.45")
        #expect(JSONValue.decimal(Decimal(string: "0.1")! + Decimal(string: "0.2")!).serialized() == "0.3")
        #expect(Decimal(string: "205.5")!.moneyString == "205.50")
        #expect(JSONValue.money(Decimal(string: "33.5")).serialized() == "33.50")
        #expect(JSONValue.money(Decimal(string: "1.459")).serialized() == "1.459")
        #expect(JSONValue.money(Decimal(string: "-2")).serialized() == "-2.00")
    }

    @Test func jsonRoundTripKeepsNumberText() throws {
        let text = #"{"total":23.449999999999999,"a":[1,2.50,{"b":null}],"s":"x\"y\u00e9"}"#
        let value = try JSONValue.parse(text)
        #expect(value["total"] == .number("23.449999999999999"))
        #expect(value.serialized() == #"{"total":23.449999999999999,"a":[1,2.50,{"b":null}],"s":"x\"yé"}"#)
    }

    @Test func rejectsImpossibleDates() {
        #expect(CalendarDate(year: 2023, month: 2, day: 29) == nil)
        #expect(CalendarDate(year: 2024, month: 2, day: 29)?.description == "2024-02-29")
        #expect(CalendarDate(iso: "2024-13-01") == nil)
    }
}

/// Issue 29, items 1, 2 and 4: one parser for typed money (never digits picked out of text), one
/// formatter by the currency's minor units, and a correction checked against the taxonomy and ISO 4217.
@Suite struct TypedMoneyTests {
    @Test("A plain decimal is read exactly", arguments: [
        ("12.50", "12.5"), ("-3", "-3"), ("0.5", "0.5"), ("007.10", "7.1"), ("999999999999.9999", "999999999999.9999"), ("-0", "0"),
    ])
    func plainDecimals(text: String, expected: String) throws {
        #expect(try Money.amount(text) == Decimal(string: expected))
    }

    @Test("Anything else is refused, never stripped to its digits", arguments: [
        "1e3", "12a34", "5 (was 8)", "2024-01-01", "1.5.3", "12.5e-1", "1x2", "£5", "1,000", " 12", "12.", ".5", "", "-", "+3",
        "12.34567", "1234567890123", "0x1F", "١٢",
    ])
    func refused(text: String) {
        #expect(throws: AmountError.self) { try Money.amount(text) }
    }

    @Test("A JSON number may have an exponent (JSON allows it), within the same limits", arguments: [
        ("1e3", "1000"), ("8.5", "8.5"), ("1.25E-2", "0.0125"), ("-0.0", "0"), ("100", "100"),
    ])
    func jsonNumbers(text: String, expected: String) throws {
        #expect(try Money.amount(jsonNumber: text) == Decimal(string: expected))
    }

    @Test func jsonNumbersOutOfRangeOrTooPreciseAreRefused() {
        for text in ["1e13", "1e-5", "5e-324", "1.7976931348623157e308", "0.00001"] {
            #expect(throws: AmountError.self, "\(text)") { try Money.amount(jsonNumber: text) }
        }
    }

    @Test("Money is printed with the currency's minor units, never rounded", arguments: [
        ("63", "GBP", "63.00"), ("10.5", "EUR", "10.50"), ("1200", "JPY", "1200"), ("5", "KWD", "5.000"), ("7.5", nil, "7.50"),
        ("1.459", "GBP", "1.459"), ("12.5", "JPY", "12.5"), ("0", "CLF", "0.0000"),
    ] as [(String, String?, String)])
    func formatting(amount: String, currency: String?, expected: String) {
        #expect(Money.format(Decimal(string: amount)!, currency: currency) == expected)
    }

    @Test func aCorrectionNamesTheFieldItRefuses() {
        let cases: [(String, String)] = [
            (#"{"amount": "1e3"}"#, "amount is not a plain decimal"), (#"{"taxAmount": "1x2"}"#, "taxAmount is not a plain decimal"),
            (#"{"currency": "XYZ123"}"#, "currency must be an ISO 4217 code"), (#"{"currency": ""}"#, "currency must be an ISO 4217 code"),
            (#"{"category": "Groceries"}"#, "category must be one of Fuel, Insurance, Maintenance, Vehicle Tax, Other"),
            (#"{"description": "  "}"#, "description must be a non-blank string"), (#"{"merchant": "x"}"#, "'merchant' cannot be changed"),
            (#"{"taxDeductiblePercentage": 101}"#, "taxDeductiblePercentage must be a number from 0 to 100"),
        ]
        for (body, message) in cases {
            do {
                _ = try ExpenseCorrection(json: try JSONValue.parse(body), taxonomy: .default)
                Issue.record("\(body) was accepted")
            } catch let error as ReceiptError {
                #expect(error.code == .invalidInput && error.message.hasPrefix(message), "\(body): \(error.message)")
            } catch {
                Issue.record("\(body): \(error)")
            }
        }
    }

    @Test func aNewCategoryBringsItsDeductionUnlessTheCorrectionSetsIt() throws {
        let drafted = Expense(receiptId: UUID(), date: nil, amount: Decimal(string: "40"), currency: "GBP", taxAmount: nil,
                              category: "Maintenance", description: "Kwik Fit", isTaxDeductible: true, taxDeductiblePercentage: 100,
                              needsReview: true)
        func apply(_ body: String) throws -> Expense {
            try ExpenseCorrection(json: try JSONValue.parse(body), taxonomy: .default).applied(to: drafted, taxonomy: .default).expense
        }
        let other = try apply(#"{"category": "Other"}"#)
        #expect(other.category == "Other" && !other.isTaxDeductible && other.taxDeductiblePercentage == 0)
        #expect(other.deductibleAmount == 0)
        #expect(try apply(#"{"category": "fuel"}"#).category == "Fuel", "the taxonomy's spelling is stored")
        let kept = try apply(#"{"category": "Other", "isTaxDeductible": true, "taxDeductiblePercentage": 50}"#)
        #expect(kept.isTaxDeductible && kept.taxDeductiblePercentage == 50 && kept.deductibleAmount == Decimal(string: "20.00"))
        let notDeductible = try apply(#"{"isTaxDeductible": false}"#)
        #expect(notDeductible.deductibleAmount == 0 && notDeductible.taxDeductiblePercentage == 100)
        let (_, changed) = try ExpenseCorrection(json: try JSONValue.parse(#"{"category": "Other"}"#), taxonomy: .default)
            .applied(to: drafted, taxonomy: .default)
        #expect(changed.map(\.field) == ["category", "isTaxDeductible", "taxDeductiblePercentage"])
    }
}

/// Typed money on what `make fuzz` found (target `amount`).
@Suite struct MoneyFuzzTests {
    /// A digit with a combining mark (`7̷`) passed for a digit: in a JSON number's exponent it stopped
    /// the process (a force unwrap of `Int("7̷")`), in a string it reached `Decimal(string:)`. The
    /// fuzzer's input was `E+227̷`.
    @Test(arguments: ["E+227\u{0337}", "1e2\u{0337}", "1\u{0337}2.50", "12.5\u{0301}0", "\u{0661}2.50"])
    func combiningMarksAreNotDigits(text: String) {
        #expect(throws: AmountError.self) { try Money.amount(jsonNumber: text) }
        #expect(throws: AmountError.self) { try Money.amount(text) }
    }

    @Test func plainDigitsStillRead() throws {
        #expect(try Money.amount("12.50") == Decimal(string: "12.5"))
        #expect(try Money.amount(jsonNumber: "1.25e2") == Decimal(125))
    }
}
