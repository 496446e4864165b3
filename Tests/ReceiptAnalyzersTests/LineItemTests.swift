import Foundation
import Testing
import ReceiptModel
@testable import ReceiptAnalyzers
@testable import TestHelpers

/// Line items as candidates from both readings: a printed row once, its amounts as each reading
/// reads them, the description from the reading that reads it best; totals, tax, tender, change
/// and payment rows are never items. Made-up rows.
@Suite struct LineItemTests {
    let options = AnalysisOptions(today: CalendarDate(year: 2026, month: 1, day: 1))

    func reading(_ text: String) -> Reading { Reading(ocr: ocrResult(text), options: options) }

    @Test func summaryAndPaymentRowsAreNeverItems() {
        let items = CandidateProposer.items(reading("""
            CORNER CAFE
            Coffee 2.50
            Toast 3.00
            Subtotal 5.50
            VAT 20% 0.92
            TOTAL 5.50
            Cash 10.00
            Change 4.50
            VISA 5.50
            """)).map(\.item)
        #expect(items.map(\.description) == ["Coffee", "Toast"])
        #expect(items.compactMap(\.amount) == [Decimal(string: "2.50")!, 3])
    }

    @Test func aSecondRowWithTheQuantityTakesTheDescriptionAbove() {
        let items = LineItemParser.parse(AmountLine.build(ReceiptDocument(text: """
            BENGKEL MAJU
            Oli Mesin Sintetik
              2 x 65.000   130.000
            Filter Oli   45.000
            TOTAL 175.000
            """), wholeUnits: true))
        #expect(items.map(\.description) == ["Oli Mesin Sintetik", "Filter Oli"])
        #expect(items.first?.quantity == 2 && items.first?.unitPrice == 65000 && items.first?.amount == 130000)
    }

    @Test func amountsInTensOfThousandsWithoutCentsAreWholeUnitsThoughNoCurrencyIsPrinted() {
        let sushi = reading("""
            ICHIBAN SUSHI
            1 Salmon Roll 50,000
            1 Chicken Bento 62,000
            Subtotal 112,000
            Tax 10% 11,200
            Total 123,200
            """)
        #expect(sushi.wholeUnits)
        #expect(sushi.total?.value == 123_200)
        // Cents anywhere, or three-decimal amounts under ten (Omani rials), are not whole units.
        #expect(!reading("DINER\nSteak 12,500\nWine 24,000\nTotal 36,500\nTip 3.50").wholeUnits)
        #expect(!reading("GRILL\nFajitas 6.900\nSoda 1.000\nSubtotal 7.900\nTotal 7.900").wholeUnits)
    }

    @Test func aQuantityRowUnderItsItemIsNotAnotherItem() {
        let rows = AmountLine.build(ReceiptDocument(text: """
            ASHBROOK TYRES
            TYRE 205/55 R16 91V 137.00
              2 x 68.50
            SCREENWASH 4.99
              3 x 1.50
            NET 141.99
            TOTAL 170.39
            """))
        func row(_ text: String) -> Int { rows.firstIndex { $0.line.text.trimmingCharacters(in: .whitespaces) == text }! }
        let detail = row("2 x 68.50"), other = row("3 x 1.50")
        // 2 × 68.50 makes the 137.00 above it: that item's detail (the learned model's candidates too).
        #expect(LineItemParser.item(from: rows[detail], above: rows[detail - 1]) == nil)
        // 3 × 1.50 does not make the 4.99 above it: a row of its own.
        #expect(LineItemParser.item(from: rows[other], above: rows[other - 1])?.amount == Decimal(string: "1.50"))
        #expect(LineItemParser.parse(rows).map(\.description) == ["TYRE 205/55 R16 91V", "SCREENWASH"])
    }

    @Test func bothReadingsOfARowAreOneRowWithTheBetterDescription() {
        let tesseract = reading("""
            DINER
            ==> FRIED £66 4.50
            Large Fizzy §& 1.45
            TOTAL 5.95
            """)
        let neural = reading("""
            DINER
            FRIED CHICKEN 4.50
            LARGE FIZZY 1.46
            TOTAL 5.95
            """)
        let items = CandidateProposer.items(tesseract: tesseract, neural: neural)
        // Two printed rows: the first read alike, the second with two amounts (two candidates of one row).
        #expect(Set(items.compactMap(\.candidate.row)).count == 2)
        #expect(items.count == 3)
        let fried = items.first { $0.item.amount == Decimal(string: "4.50") }
        #expect(fried?.item.description == "FRIED CHICKEN")
        let names = CandidateProposer.features(for: .item, readers: .both)
        func feature(_ c: ItemCandidate, _ name: String) -> Double { c.candidate.features[names.firstIndex(of: name)!] }
        #expect(fried.map { feature($0, "inBoth") } == 1)
        // The disputed row's candidates: each read by one reading, and the readings disagree.
        let disputed = items.filter { $0.item.amount != Decimal(string: "4.50") }
        #expect(disputed.allSatisfy { feature($0, "inBoth") == 0 && feature($0, "disputed") == 1 })
        // 4.50 + 1.45 is the total: the amount that adds up is marked so.
        #expect(disputed.first { $0.item.amount == Decimal(string: "1.45") }.map { feature($0, "sumsBoth") } == 1)
        #expect(disputed.first { $0.item.amount == Decimal(string: "1.46") }.map { feature($0, "sumsBoth") } == 0)
    }
}
