import Foundation
import Testing
import ReceiptModel
import ReceiptAnalyzers
@testable import TestHelpers

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
        #expect(candidates.allSatisfy { $0.features.count == CandidateProposer.features(for: .total).count })
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

    /// A part total (a band's total with its tax) above the amount payable: its sums fit, but a
    /// stronger total label below says it is not the receipt's total.
    @Test func aPartTotalAboveTheAmountPayableIsMarked() throws {
        let candidates = CandidateProposer.totals(Self.reading("""
        GARDEN BAKERY SDN BHD
        WHOLEMEAL 6 x 2.78 16.68
        Total 6% supplies (excl. GST): 69.36
        GST: 4.16
        Total 6% supplies (Inc. GST): 73.52
        Total 0% supplies: 20.67
        Total Payable: 94.19
        """))
        let part = try #require(candidates.first { $0.value == "73.52" })
        let payable = try #require(candidates.first { $0.value == "94.19" })
        #expect(Self.feature("subtotalPlusTax", of: part) == 1)
        #expect(Self.feature("strongerTotalBelow", of: part) == 1)
        #expect(Self.feature("strongerTotalBelow", of: payable) == 0)
        #expect(Self.feature("rulesPick", of: payable) == 1)
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
        #expect(candidates.allSatisfy { $0.features.count == CandidateProposer.features(for: .tax).count })
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
        let model = try #require(LearnedModel.shipped)
        #expect(model.showsTax(vat))
        #expect(!model.showsTax(cash))
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
        let names = features ?? CandidateProposer.features(for: .total)
        let entries = names.map { name in
            #"{"name":"\#(name)","mean":0,"scale":1,"weight":\#(name == "onTotalRow" ? 2.0 : 0.0)}"#
        }
        return """
        {"maxMargin":10,"taxFloor":0.5,"readers":{"tesseract":{"version":"test","showsTax":[],"fields":{"total":{
        "features":[\(entries.joined(separator: ","))],
        "intercept":-1,"calibration":[\(calibration.map { "\($0)" }.joined(separator: ","))],"reviewBelow":0.6}}}}}
        """
    }

    /// The Tesseract model of `parameters`' JSON.
    static func model(_ json: String) throws -> LearnedModel {
        try #require(try LearnedModels(json: json)[.tesseract])
    }

    @Test func aModelScoresCandidatesAndGivesTheWinnersProbability() throws {
        let model = try Self.model(Self.parameters())
        #expect(model.reviewBelow[.total] == 0.6)
        let candidates = CandidateProposer.totals(Self.reading())
        let (best, p) = try #require(model.choose(candidates))
        #expect(best.value == "24.00")
        // Score 2·1 − 1 = 1 for the total row; p = σ(1·score) with this calibration.
        #expect(abs(p - 1 / (1 + exp(-1.0))) < 1e-9)
    }

    @Test func parametersForOtherFeaturesAreRefused() {
        #expect {
            _ = try LearnedModels(json: Self.parameters(features: ["rulesPick", "somethingElse"]))
        } throws: { error in
            "\(error)".contains("features differ") && "\(error)".contains("make train")
        }
        #expect(throws: ReceiptError.self) { _ = try LearnedModels(json: #"{"readers":{}}"#) }
    }

    @Test func theLearnedChoiceSetsTheTotalItsConfidenceAndReview() throws {
        let model = try Self.model(Self.parameters(calibration: [0, 0, -3]))
        let reading = Self.reading()
        let rules = Choice.rules(reading, tax: nil, currencyConfidence: 0, categoryConfidence: 0)
        let candidates = FieldCandidates(reading, totals: CandidateProposer.totals(reading), checks: Checks(), tax: nil,
                                         options: AnalysisOptions())
        let choice = Choice.learned(model, candidates: candidates, from: rules)
        let total = choice.total, confidence = choice.confidence
        #expect(total == Decimal(string: "24.00"))
        // σ(−3) ≈ 0.047, below the 0.6 the parameters ask for: the receipt is flagged.
        #expect(abs(confidence.total - 1 / (1 + exp(3.0))) < 1e-9)
        #expect(choice.flaggedByModel == ["total"])
        #expect(ReviewDecision.fields(choice) == ["total"])
    }

    /// The shipped model scores a few receipts' candidates as `scripts/train.py` did when it wrote
    /// the parameters (`make train` writes the examples beside them).
    @Test func theShippedModelsScoreCandidatesAsTrainingDid() throws {
        let url = ReceiptsCLI.repositoryRoot.appendingPathComponent("Tests/Fixtures/learned-model-examples.json")
        let json = try JSONValue.parse(String(contentsOf: url, encoding: .utf8))
        let models = try #require(LearnedModels.shipped)
        let examples = try #require(json["examples"]?.arrayValue)
        #expect(Set(examples.compactMap { $0["readers"]?.stringValue }) == Set(models.models.keys.map(\.rawValue)),
                "examples for every shipped model")
        for example in examples {
            let readers = try #require(example["readers"]?.stringValue.flatMap(ReaderChoice.init(rawValue:)))
            let model = try #require(models[readers])
            #expect(example["version"]?.stringValue == model.version, "the examples are of another model: run make train")
            let field = try #require(example["field"]?.stringValue.flatMap(LearnedField.init(rawValue:)))
            let parameters = try #require(model.fields[field])
            let listed = example["candidates"]?.arrayValue ?? []
            let candidates = listed.map { c in
                Candidate(field: field, value: c["value"]?.stringValue ?? "", features: (c["features"]?.arrayValue ?? []).compactMap(\.doubleValue))
            }
            for (candidate, c) in zip(candidates, listed) {
                let expected = try #require(c["score"]?.doubleValue)
                #expect(abs(parameters.score(candidate.features) - expected) < 1e-9, "\(readers) \(field.rawValue) \(candidate.value)")
            }
            let (chosen, p) = try #require(model.choose(candidates))
            #expect(chosen.value == example["chosen"]?.stringValue)
            #expect(abs(p - (example["probability"]?.doubleValue ?? -1)) < 1e-9, "\(readers) \(field.rawValue): p \(p)")
        }
    }

    @Test func theShippedModelLoadsAndDecidesByDefault() async throws {
        // A model made for other features would be refused and the rules would decide silently.
        let model = try #require(LearnedModel.shipped, "the shipped parameters do not load: run make train")
        #expect(Set(model.fields.keys) == Set(LearnedField.allCases))
        // Every choice of readers' model also keeps the line items (Tesseract's since 2026-11-28).
        for readers in [ReaderChoice.both, .neural, .tesseract] {
            let withItems = try #require(LearnedModels.shipped?[readers], "no shipped model for \(readers)")
            #expect(Set(withItems.fields.keys) == Set(LearnedField.allCases), "\(readers)")
            #expect(withItems.itemKeepFrom > 0.2 && withItems.itemKeepFrom < 0.8, "\(readers)")
        }
        #expect((model.reviewBelow[.total] ?? 0) > 0.5 && (model.reviewBelow[.date] ?? 0) > 0.5)
        let text = "CORNER SHOP\n12/03/2024\nTOTAL 4.20"
        let learned = HeuristicAnalyzer().analyze(text: text)
        var rulesOnly = HeuristicAnalyzer()
        rulesOnly.models = nil
        let rules = rulesOnly.analyze(text: text)
        #expect(learned.total == rules.total)
        #expect(learned.confidence.total != rules.confidence.total, "the confidence is the model's probability")
    }
}
