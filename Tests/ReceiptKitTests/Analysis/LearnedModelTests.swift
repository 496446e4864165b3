import Foundation
import Testing
@testable import ReceiptKit

/// The rules' candidates and their features, and the learned model's loading and scoring.
@Suite struct LearnedModelTests {
    static let receipt = """
    CORNER GARAGE LTD
    12 High Street
    Date: 14/03/2024 08:12
    OIL FILTER 7.50
    WIPERS 12.50
    SUBTOTAL 20.00
    VAT 20% 4.00
    TOTAL 24.00
    CASH 30.00
    CHANGE 6.00
    Offer valid until 30/04/2024
    """

    static func reading(_ text: String = receipt) -> Reading {
        Reading(ocr: ocrResult(text), options: AnalysisOptions())
    }

    static func feature(_ name: String, of candidate: Candidate) -> Double {
        let names = CandidateProposer.features(for: candidate.field)
        return candidate.features[names.firstIndex(of: name)!]
    }

    @Test func everyAmountIsATotalCandidateWithItsEvidence() throws {
        let candidates = CandidateProposer.totals(Self.reading())
        #expect(Set(candidates.map(\.value)).isSuperset(of: ["7.50", "12.50", "20.00", "4.00", "24.00", "30.00", "6.00"]))
        #expect(candidates.allSatisfy { $0.features.count == CandidateProposer.totalFeatures.count })
        let total = try #require(candidates.first { $0.value == "24.00" })
        #expect(Self.feature("rulesPick", of: total) == 1)
        #expect(Self.feature("onTotalRow", of: total) == 1)
        #expect(Self.feature("subtotalPlusTax", of: total) == 1)
        #expect(Self.feature("cashLessChange", of: total) == 1)
        #expect(Self.feature("itemsSum", of: total) == 0)
        let cash = try #require(candidates.first { $0.value == "30.00" })
        #expect(Self.feature("rulesPick", of: cash) == 0)
        #expect(Self.feature("onlyOnPaymentRows", of: cash) == 1)
        #expect(Self.feature("isLargest", of: cash) == 1)
        #expect(Self.feature("subtotalPlusTax", of: cash) == 0)
    }

    @Test func theAmountPayableAfterCashRoundingIsMarkedAndSoIsTheTotalItRounds() throws {
        // The rounding row's own amount misread, as it often is.
        let text = "NASI KANDAR\nNasi Ayam 12.00\nTeh Tarik 9.30\nTotal (Incl GST): 23.26\nRounding Adj: ~0.0)\nTOTAL: 23.25\nCASH 50.00\nCHANGE 26.75"
        let candidates = CandidateProposer.totals(Self.reading(text))
        let rounded = try #require(candidates.first { $0.value == "23.25" })
        let total = try #require(candidates.first { $0.value == "23.26" })
        #expect(Self.feature("roundedAfterTotal", of: rounded) == 1)
        #expect(Self.feature("roundedBelow", of: rounded) == 0)
        #expect(Self.feature("roundedBelow", of: total) == 1)
        #expect(Self.feature("roundedAfterTotal", of: total) == 0)
        // Without a row naming the rounding, two close amounts are no such pair.
        let plain = CandidateProposer.totals(Self.reading(text.replacingOccurrences(of: "Rounding Adj: ~0.0)\n", with: "")))
        #expect(plain.allSatisfy { Self.feature("roundedAfterTotal", of: $0) == 0 && Self.feature("roundedBelow", of: $0) == 0 })
        // The shipped model takes the amount paid.
        let analysis = HeuristicAnalyzer().analyze(text: text)
        #expect(analysis.total == Decimal(string: "23.25"))
    }

    @Test func everyAmountIsATaxCandidateWithWhatExplainsIt() throws {
        let reading = Self.reading()
        let finding = TaxFinder.find(reading.rows, total: reading.total?.value)
        let candidates = CandidateProposer.taxes(reading, finding: finding, total: reading.total?.value)
        #expect(candidates.allSatisfy { $0.features.count == CandidateProposer.taxFeatures.count })
        let vat = try #require(candidates.first { $0.value == "4.00" })
        #expect(Self.feature("rulesPick", of: vat) == 1)
        #expect(Self.feature("onTaxRow", of: vat) == 1)
        #expect(Self.feature("rateOnRow", of: vat) == 1)
        #expect(Self.feature("rateFits", of: vat) == 1, "20% of the 20.00 subtotal")
        #expect(Self.feature("totalLessSubtotal", of: vat) == 1)
        #expect(abs(Self.feature("shareOfTotal", of: vat) - 4.0 / 24) < 1e-9)
        let cash = try #require(candidates.first { $0.value == "30.00" })
        #expect(Self.feature("rulesPick", of: cash) == 0)
        #expect(Self.feature("onPaymentRow", of: cash) == 1)
        #expect(Self.feature("belowTotal", of: cash) == 0)
        #expect(Self.feature("rateFits", of: cash) == 0)
        #expect(CandidateProposer.showsTax(vat))
        #expect(!CandidateProposer.showsTax(cash))
        // The shipped model takes the VAT, and gives no tax to a ticket that prints none.
        #expect(HeuristicAnalyzer().analyze(text: Self.receipt).tax == Decimal(string: "4.00"))
        let ticket = "APEX PARKING\nPAY & DISPLAY\nDate 17/07/2025\nTariff 2 hours\nTOTAL £3.40\nPaid CASH"
        #expect(HeuristicAnalyzer().analyze(text: ticket).tax == nil)
    }

    @Test func everyRowsDateIsADateCandidateWithItsLabel() throws {
        let candidates = CandidateProposer.dates(Self.reading(), options: AnalysisOptions())
        #expect(Set(candidates.map(\.value)) == ["2024-03-14", "2024-04-30"])
        let purchase = try #require(candidates.first { $0.value == "2024-03-14" })
        #expect(Self.feature("rulesPick", of: purchase) == 1)
        #expect(Self.feature("dateLabel", of: purchase) == 1)
        #expect(Self.feature("timeOnRow", of: purchase) == 1)
        #expect(Self.feature("fourDigitYear", of: purchase) == 1)
        let offer = try #require(candidates.first { $0.value == "2024-04-30" })
        #expect(Self.feature("otherDateLabel", of: offer) == 1)
        #expect(Self.feature("isLatest", of: offer) == 1)
        #expect(Self.feature("rulesPick", of: offer) == 0)
    }

    @Test func aDateWhoseOrderNothingSettlesIsMarkedGuessed() throws {
        func guessed(_ text: String) throws -> Double {
            let candidates = CandidateProposer.dates(Self.reading(text), options: AnalysisOptions())
            let pick = try #require(candidates.first { Self.feature("rulesPick", of: $0) == 1 })
            return Self.feature("orderGuessed", of: pick)
        }
        #expect(try guessed("CORNER SHOP\n03/04/2024\nTOTAL 4.20") == 1)
        // The pound sign says day first; a day above 12 leaves no choice.
        #expect(try guessed("CORNER SHOP\n03/04/2024\nTOTAL £4.20") == 0)
        #expect(try guessed("CORNER SHOP\n23/04/2024\nTOTAL 4.20") == 0)
    }

    @Test func theVendorCandidateIsTheRulesNameWithHowItWasRead() throws {
        let vendor = try #require(CandidateProposer.vendor(Self.reading()).first)
        #expect(vendor.value == "CORNER GARAGE LTD")
        #expect(Self.feature("companyWord", of: vendor) == 1)
        #expect(Self.feature("digitShare", of: vendor) == 0)
    }

    /// Parameters that prefer the candidate on a total row and say so with a known probability.
    static func parameters(features: [String]? = nil, calibration: [Double] = [1, 0, 0]) -> String {
        let names = features ?? CandidateProposer.totalFeatures
        let weights = names.map { $0 == "onTotalRow" ? 2.0 : 0.0 }
        func list(_ values: [Double]) -> String { "[" + values.map { "\($0)" }.joined(separator: ",") + "]" }
        return """
        {"version":"test","fields":{"total":{"features":[\(names.map { "\"\($0)\"" }.joined(separator: ","))],
        "mean":\(list(names.map { _ in 0 })),"scale":\(list(names.map { _ in 1 })),"weights":\(list(weights)),
        "intercept":-1,"calibration":\(list(calibration)),"reviewBelow":0.6}}}
        """
    }

    @Test func aModelScoresCandidatesAndGivesTheWinnersProbability() throws {
        let model = try LearnedModel(json: Self.parameters())
        #expect(model.reviewBelow[.total] == 0.6)
        let candidates = CandidateProposer.totals(Self.reading())
        let (best, p) = try #require(model.choose(candidates))
        #expect(best.value == "24.00")
        // Score 2·1 − 1 = 1 for the total row; p = σ(1·score) with this calibration.
        #expect(abs(p - 1 / (1 + exp(-1.0))) < 1e-9)
    }

    @Test func parametersForOtherFeaturesAreRefused() {
        #expect {
            _ = try LearnedModel(json: Self.parameters(features: ["rulesPick", "somethingElse"]))
        } throws: { error in
            "\(error)".contains("features differ") && "\(error)".contains("make train")
        }
        #expect(throws: ReceiptError.self) { _ = try LearnedModel(json: #"{"fields":{}}"#) }
    }

    @Test func theLearnedChoiceSetsTheTotalItsConfidenceAndReview() throws {
        let model = try LearnedModel(json: Self.parameters(calibration: [0, 0, -3]))
        let reading = Self.reading()
        var total: Decimal? = nil
        var date = reading.date?.date
        var tax: Decimal? = nil
        var confidence = FieldConfidence(needsReview: false)
        Reading.applyLearned(model, candidates: [CandidateProposer.totals(reading)], total: &total, date: &date, tax: &tax,
                             confidence: &confidence)
        #expect(total == Decimal(string: "24.00"))
        // σ(−3) ≈ 0.047, below the 0.6 the parameters ask for: the receipt is flagged.
        #expect(abs(confidence.total - 1 / (1 + exp(3.0))) < 1e-9)
        #expect(confidence.needsReview)
    }

    @Test func theShippedModelLoadsAndDecidesByDefault() async throws {
        // A model made for other features would be refused and the rules would decide silently.
        let model = try #require(LearnedModel.shipped, "the shipped parameters do not load: run make train")
        #expect(Set(model.fields.keys) == Set(LearnedField.allCases))
        #expect((model.reviewBelow[.total] ?? 0) > 0.5 && (model.reviewBelow[.date] ?? 0) > 0.5)
        let text = "CORNER SHOP\n12/03/2024\nTOTAL 4.20"
        let learned = HeuristicAnalyzer().analyze(text: text)
        var rulesOnly = AnalysisOptions()
        rulesOnly.learnedModel = false
        let rules = HeuristicAnalyzer().analyze(text: text, options: rulesOnly)
        #expect(learned.total == rules.total)
        #expect(learned.confidence.total != rules.confidence.total, "the confidence is the model's probability")
    }
}
