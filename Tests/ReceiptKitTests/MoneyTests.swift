import Foundation
import Testing
@testable import ReceiptKit

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
