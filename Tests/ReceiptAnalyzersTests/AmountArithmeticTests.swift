import Foundation
import Testing
import ReceiptModel
@testable import ReceiptAnalyzers
@testable import TestHelpers

/// Issue 58: the amounts weighed together (subtotal + tax = total, items' sum, tendered − total =
/// change, net + VAT = gross), taxes a country allows, and what contradicts a chosen value.
@Suite struct AmountArithmeticTests {
    static func reading(_ text: String, currency: String? = nil) -> Reading {
        Reading(ocr: ocrResult(text), options: AnalysisOptions(defaultCurrency: currency))
    }

    static func feature(_ name: String, of candidate: Candidate) -> Double {
        let names = CandidateProposer.features(for: candidate.field)
        return candidate.features[names.firstIndex(of: name)!]
    }

    /// The sandwich shop of the issue: the product answered the cash tendered, 20.00.
    static let sandwiches = """
    THE BREAD BOX
    12/05/2025 12:41
    CLUB SANDWICH 9.00
    SOUP OF THE DAY 8.70
    TOTAL $17.70
    CASH $20.00
    CHANGE $2.30
    """

    @Test func cashTenderedIsContradictedByTheChangeAndTheItems() throws {
        let reading = Self.reading(Self.sandwiches)
        let candidates = CandidateProposer.totals(reading)
        let cash = try #require(candidates.first { $0.value == "20.00" })
        #expect(Self.feature("arith.tendered", of: cash) == 1)
        #expect(Self.feature("arith.contradicted", of: cash) == 1)
        // The items and the change both close on the printed total.
        let total = try #require(candidates.first { $0.value == "17.70" })
        #expect(Self.feature("arith.printed", of: total) == 1)
        #expect(Self.feature("arith.tenderCloses", of: total) == 1)
        #expect(Self.feature("arith.itemsClose", of: total) == 1)
        #expect(Self.feature("arith.bestSupport", of: total) == 1)
        #expect(Self.feature("arith.contradicted", of: total) == 0)
        // The total row unread: still proposed, as cash less change.
        let bare = Self.reading(Self.sandwiches.replacingOccurrences(of: "TOTAL $17.70\n", with: ""))
        let implied = try #require(CandidateProposer.totals(bare).first { $0.value == "17.70" })
        #expect(Self.feature("arith.printed", of: implied) == 0)
        #expect(Self.feature("arith.tenderCloses", of: implied) == 1)
        let tendered = try #require(CandidateProposer.totals(bare).first { $0.value == "20.00" })
        #expect(Self.feature("arith.contradicted", of: tendered) == 1)
    }

    @Test func subtotalTaxTipAndDiscountCloseOnTheTotal() {
        let arithmetic = ReceiptArithmetic(Self.reading("""
        SUBTOTAL 40.00
        DISCOUNT -5.00
        TAX 2.80
        TIP 6.00
        TOTAL 43.80
        """))
        #expect(arithmetic.sumCloses(Decimal(string: "43.80")!))
        #expect(!arithmetic.sumCloses(Decimal(string: "40.00")!))
        #expect(arithmetic.support(Decimal(string: "43.80")!) == 1)
    }

    @Test func severalTaxRowsAreATaxCandidateTogether() throws {
        let reading = Self.reading("""
        SUBTOTAL 10.00
        STATE TAX 0.50
        CITY TAX 0.30
        TOTAL 10.80
        """, currency: "USD")
        let taxes = CandidateProposer.taxes(reading, finding: nil, total: reading.total?.value, currency: "USD")
        let sum = try #require(taxes.first { $0.value == "0.80" })
        #expect(Self.feature("arith.sumOfTaxes", of: sum) == 1)
        #expect(Self.feature("arith.closesSum", of: sum) == 1)
    }

    /// The garage bill of the issue: 275.35 with VAT 45.89; the product answered the net, 229.46.
    @Test func theNetIsNoTax() throws {
        let reading = Self.reading("""
        ASHWORTH MOTORS
        Date 04/02/2025
        Clutch kit 1 150.00 150.00
        Labour 1.5 52.97 79.46
        Net 229.46
        VAT 45.89
        Total £275.35
        """, currency: "GBP")
        let taxes = CandidateProposer.taxes(reading, finding: nil, total: Decimal(string: "275.35"), currency: "GBP")
        let net = try #require(taxes.first { $0.value == "229.46" })
        #expect(Self.feature("arith.isNet", of: net) == 1)
        #expect(Self.feature("arith.aboveCeiling", of: net) == 1)
        #expect(Self.feature("arith.implausible", of: net) == 1)
        let vat = try #require(taxes.first { $0.value == "45.89" })
        #expect(Self.feature("arith.besideNet", of: vat) == 1)
        #expect(Self.feature("arith.implausible", of: vat) == 0)
    }

    /// The tyre fitter of the issue: a VAT of 28.98 on 83.83 is 35 % of the bill.
    @Test func aTaxAboveWhatTheCountryAllowsIsImplausible() {
        #expect(TaxCeilings.exceeds(Decimal(string: "28.98")!, total: Decimal(string: "83.83")!, currency: "GBP"))
        #expect(!TaxCeilings.exceeds(Decimal(string: "13.97")!, total: Decimal(string: "83.83")!, currency: "GBP"))
        // UK VAT is at most 20/120 of the gross (a cent of rounding allowed).
        #expect(!TaxCeilings.exceeds(Decimal(string: "20.00")!, total: Decimal(string: "120.00")!, currency: "GBP"))
        #expect(TaxCeilings.exceeds(Decimal(string: "20.02")!, total: Decimal(string: "120.00")!, currency: "GBP"))
        // Finland's 25.5 % is the euro area's highest; US parking taxes reach 25 % on the net.
        #expect(!TaxCeilings.exceeds(Decimal(string: "20.32")!, total: Decimal(string: "100.00")!, currency: "EUR"))
        #expect(!TaxCeilings.exceeds(Decimal(string: "4.00")!, total: Decimal(string: "20.00")!, currency: "USD"))
        #expect(TaxCeilings.exceeds(Decimal(string: "5.00")!, total: Decimal(string: "20.00")!, currency: "USD"))
        #expect(TaxCeilings.highestRate(currency: nil) == 27)
    }

    @Test func aPrintedRateThatGivesAnotherAmountContradictsTheTax() {
        let arithmetic = ReceiptArithmetic(Self.reading("""
        SUBTOTAL 50.00
        SERVICE 5.00
        VAT 20% 10.00
        TOTAL 65.00
        """))
        let total = Decimal(string: "65.00")!
        #expect(arithmetic.rateContradicts(Decimal(string: "5.00")!, total: total))
        #expect(!arithmetic.rateContradicts(Decimal(string: "10.00")!, total: total))
    }

    /// Parameters whose total prefers an amount on a cash row (the model can be wrong): the
    /// analysis names the total though the model is sure of it.
    @Test func aChosenTotalTheAmountsContradictIsNamedForReview() throws {
        let names = CandidateProposer.features(for: .total)
        let entries = names.map { #"{"name":"\#($0)","mean":0,"scale":1,"weight":\#($0 == "onCashRow" ? 5.0 : 0.0)}"# }
        let json = """
        {"maxMargin":10,"taxFloor":0.5,"readers":{"tesseract":{"version":"test","showsTax":[],"fields":{"total":{
        "features":[\(entries.joined(separator: ","))],"intercept":0,"calibration":[0,0,6],"reviewBelow":0.5}}}}}
        """
        let model = try #require(try LearnedModels(json: json)[.tesseract])
        let reading = Self.reading(Self.sandwiches)
        let rules = Choice.rules(reading, tax: nil, currencyConfidence: 0, categoryConfidence: 0)
        let candidates = FieldCandidates(reading, totals: CandidateProposer.totals(reading), checks: Checks(), tax: nil,
                                         options: AnalysisOptions())
        let choice = Choice.learned(model, candidates: candidates, from: rules)
        #expect(choice.total == Decimal(string: "20.00"))
        #expect(choice.confidence.total > 0.99)
        #expect(choice.flaggedByModel?.contains("total") == true)
        var analysis = ReceiptAnalysis(vendor: "THE BREAD BOX", total: choice.total, analyzer: "test")
        analysis.flag(ReviewDecision.fields(choice))
        #expect(analysis.review.contains("total") && analysis.confidence.needsReview)
    }

    @Test func aTaxAboveTheCeilingIsNamedWhateverTheModelSays() {
        var choice = Choice.rules(Self.reading("X\n01/01/2025\nTOTAL 83.83"), tax: nil, currencyConfidence: 0, categoryConfidence: 0)
        choice.tax = Decimal(string: "28.98")
        choice.flaggedByModel = []
        #expect(ReviewDecision.fields(choice, currency: "GBP").contains("tax"))
        choice.tax = Decimal(string: "13.97")
        #expect(!ReviewDecision.fields(choice, currency: "GBP").contains("tax"))
    }

    @Test func theVendorAndTheCategoryAreNamedWithoutAskingForReview() {
        var analysis = ReceiptAnalysis(vendor: "CORNER SHOP", total: 4, analyzer: "test")
        analysis.flag(["vendor", "category"])
        #expect(analysis.review == ["vendor", "category"])
        #expect(!analysis.confidence.needsReview)
        analysis.flag(["category", "tax"])
        #expect(analysis.review == ["tax", "category"])
        #expect(analysis.confidence.needsReview)
        // No vendor at all: the expense cannot be filed without one.
        var none = ReceiptAnalysis(total: 4, analyzer: "test")
        none.flag(["vendor"])
        #expect(none.confidence.needsReview)
        // The taxonomy's fallback: nothing on the receipt said what kind of expense it is.
        let choice = Choice.rules(Self.reading("X\n01/01/2025\nTOTAL 4.00"), tax: nil, currencyConfidence: 0, categoryConfidence: 0)
        #expect(ReviewDecision.fields(choice, categoryConfidence: 0.4).contains("category"))
        #expect(!ReviewDecision.fields(choice, categoryConfidence: 0.7).contains("category"))
    }
}
