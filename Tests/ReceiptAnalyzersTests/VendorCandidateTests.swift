import Foundation
import Testing
import ReceiptModel
@testable import ReceiptAnalyzers

/// The names the vendor is chosen among: the rules' pick, the other header rows, and the names a
/// receipt gives its shop elsewhere when its logo is no text.
@Suite struct VendorCandidateTests {
    func names(_ text: String) -> [NameElsewhere] { NamesElsewhere.find(ReceiptDocument(text: text)) }

    @Test func aWebAddressOrMailDomainNamesTheShop() {
        #expect(NamesElsewhere.domains(in: "Visit www.fiveguys.co.uk") == ["fiveguys"])
        #expect(NamesElsewhere.domains(in: "help@tesco.com") == ["tesco"])
        #expect(NamesElsewhere.domains(in: "https://shop.harbour-fish.de/ok") == ["harbourfish"])
        #expect(NamesElsewhere.domains(in: "WWW.ELBORRACHO.CO.UK") == ["elborracho"])
        // Mail providers, social networks and survey sites name no shop; nor does an amount.
        #expect(NamesElsewhere.domains(in: "bookings@gmail.com facebook.com/us") == [])
        #expect(NamesElsewhere.domains(in: "Tell us: www.tellsubway.co.uk") == [])
        // A shop's own survey site still names it.
        #expect(NamesElsewhere.domains(in: "survey.harbourfish.com") == ["harbourfish"])
        #expect(NamesElsewhere.domains(in: "TOTAL 12.50 CASH 20.00") == [])
    }

    @Test func aDomainTakesTheSpellingOfTheWordsThatSpellIt() {
        let found = names("""
        FRIES 3.50
        TOTAL 3.50
        Thank you for eating at Five Guys
        www.fiveguys.co.uk
        """)
        #expect(found.map(\.name).contains("Five Guys"))
        #expect(found.first { $0.kind == .web }?.name == "Five Guys")
    }

    @Test func theCardSlipsMerchantLineAndTheThanksAtTheFoot() {
        let found = names("""
        12.50
        MERCHANT: CASTLEGATE PARKING
        MERCHANT ID 00123456
        THANK YOU FOR SHOPPING AT KOHL'S
        """)
        #expect(found.map(\.kind) == [.merchant, .signOff])
        #expect(found.map(\.name) == ["CASTLEGATE PARKING", "KOHL'S"])
    }

    @Test func everyHeaderRowThatMayBeTheNameIsACandidateOnce() throws {
        let reading = Reading(document: ReceiptDocument(text: """
        BRIGHTWAY
        BRIGHTWAY HARDWARE SDN BHD
        NO 12, JALAN MAJU 3
        TEL: 03-8736 1234
        CEMENT 2 X 20.00 40.00
        TOTAL 40.00
        www.brightway.com.my
        """), options: AnalysisOptions())
        let candidates = CandidateProposer.vendor(reading)
        let values = candidates.map(\.value)
        let names = CandidateProposer.features(for: .vendor)
        func feature(_ c: Candidate, _ name: String) -> Double { c.features[names.firstIndex(of: name)!] }
        // The rules' pick first, the only one marked so; both header rows; no address or phone.
        #expect(values.first == reading.vendor?.name)
        #expect(candidates.map { feature($0, "rulesPick") } == [1] + Array(repeating: 0, count: candidates.count - 1))
        #expect(Set(values).isSuperset(of: ["BRIGHTWAY", "BRIGHTWAY HARDWARE SDN BHD"]))
        #expect(!values.contains { $0.contains("JALAN") || $0.contains("TEL") })
        #expect(Set(values.map(NameMatching.normalized)).count == values.count)
        // The header row the domain spells agrees with it; the longer name holds it.
        let brand = try #require(candidates.first { $0.value == "BRIGHTWAY" })
        #expect(feature(brand, "agreesWeb") == 1)
        #expect(feature(brand, "fromWeb") == 0 && feature(brand, "headerRank") > 0)
    }
}
