import Foundation
import Testing
import ReceiptModel
@testable import ReceiptAnalyzers

/// What identifies the shop, read from the receipt (issue 57): tax numbers with their check digits,
/// phones normalized with the receipt's country, web domains, addresses, store numbers, the time.
@Suite struct IdentityFinderTests {
    func identity(_ text: String, currency: String? = nil) -> ShopIdentity {
        let reading = Reading(document: ReceiptDocument(text: text), options: AnalysisOptions(defaultCurrency: currency))
        return IdentityFinder.find([reading], currency: currency ?? reading.currency?.code)
    }

    @Test(arguments: [
        ("VAT Reg No: GB 123 4567 82", "GB123456782", "GB VAT"),      // mod 97
        ("USt-IdNr. DE136695976", "DE136695976", "DE VAT"),
        ("P.IVA 01114601006", "IT01114601006", "IT VAT"),
        ("ABN 51 824 753 556", "51824753556", "AU ABN"),              // the ATO's example
        ("TVA intracom. FR40303265045", "FR40303265045", "FR VAT"),
        ("GST ID : 000306020352", "000306020352", "MY GST"),
        ("BTW NL004495445B01", "NL004495445B01", "NL VAT"),
    ])
    func taxNumbersWithTheirScheme(line: String, value: String, scheme: String) {
        let found = identity("SOME SHOP\n\(line)\nTOTAL 12.00")
        #expect(found.taxId?.value == value)
        #expect(found.taxIdScheme == scheme)
    }

    @Test func aTaxNumberFailingItsCheckDigitsIsNotGiven() {
        // GB 123 4567 82 with its last digit misread.
        #expect(identity("SOME SHOP\nVAT No: GB 123 4567 83\nTOTAL 12.00").taxId == nil)
        #expect(identity("SOME SHOP\nUSt-IdNr. DE136695977\nTOTAL 12.00").taxId == nil)
    }

    @Test func aRateOrAnAmountAfterVatIsNoNumber() {
        #expect(identity("SHOP\nVAT 20% 12.34 56.78\nTOTAL 69.12").taxId == nil)
    }

    @Test func aMalaysianCompanyNumberInBrackets() {
        let found = identity("GARDENIA BAKERIES (KL) SDN BHD (139386-X)\nLOT 3, JALAN PELABUR 23/1\nTOTAL 12.00", currency: "MYR")
        #expect(found.taxId?.value == "139386X")
        #expect(found.taxIdScheme == "company registration")
    }

    @Test func phonesAreNormalizedWithTheReceiptsCountry() {
        #expect(identity("SHOP\nTEL: 03-7805 1234\nTOTAL RM 12.00", currency: "MYR").phone?.value == "+60378051234")
        #expect(identity("SHOP\nTel 020 7946 0018\nTOTAL £12.00", currency: "GBP").phone?.value == "+442079460018")
        #expect(identity("DINER\n(512) 555-0142\nTOTAL $12.00", currency: "USD").phone?.value == "+15125550142")
        #expect(identity("SHOP\nPhone +44 (0)20 7946 0018\nTOTAL 12.00").phone?.value == "+442079460018")
        // No country: the digits as printed.
        #expect(identity("LA TAURINA\nTlf. 918539389\nTOTAL 4,70").phone?.value == "918539389")
    }

    @Test func aFaxIsNotThePhone() {
        #expect(identity("SHOP\nFAX: 03-7805 9999 TEL: 03-7805 1234\nTOTAL RM 12.00", currency: "MYR").phone?.value == "+60378051234")
        #expect(identity("SHOP\nFAX 03-7805 9999\nTOTAL RM 12.00", currency: "MYR").phone == nil)
    }

    @Test func aDateIsNoPhone() {
        #expect(identity("SHOP\n12/03/2024 14:05\nTOTAL 12.00").phone == nil)
    }

    @Test func theWebDomainNotAMailProvidersOrASurveys() {
        #expect(identity("SHOP\nwww.Tesco.com\nTOTAL 12.00").web?.value == "tesco.com")
        #expect(identity("SHOP\nhelp@kestrel-fuel.co.uk\nTOTAL 12.00").web?.value == "kestrel-fuel.co.uk")
        #expect(identity("SHOP\nshop@gmail.com\nTOTAL 12.00").web == nil)
        #expect(identity("SHOP\nwww.tellsubway.com\nTOTAL 12.00").web == nil)
    }

    @Test func theAddressAsPrintedInOneLine() {
        let found = identity("""
            MR D.I.Y. (M) SDN BHD
            (860671-D)
            LOT 1851-A & 1851-B, JALAN KPB 6,
            KAWASAN PERINDUSTRIAN BALAKONG,
            43300 SERI KEMBANGAN, SELANGOR
            (TESCO PUTRA NILAI)
            -INVOICE-
            TOTAL 30.90
            """, currency: "MYR")
        #expect(found.address?.value == "LOT 1851-A & 1851-B, JALAN KPB 6, KAWASAN PERINDUSTRIAN BALAKONG, 43300 SERI KEMBANGAN, SELANGOR (TESCO PUTRA NILAI)")
        #expect(found.postcode == "43300")
    }

    @Test func theStoreNumber() {
        #expect(identity("WALMART\nST# 5748 OP# 00000158 TE# 58\nTOTAL 12.00").storeNumber?.value == "5748")
        #expect(identity("SHOP\nStore #0042\nTOTAL 12.00").storeNumber?.value == "0042")
    }

    @Test func theTimeOfThePurchaseNotOpeningHours() {
        #expect(identity("SHOP\nOPEN 9:00 AM - 9:00 PM\nDATE 12/03/2024 2:05 PM\nTOTAL 12.00").time?.value == "14:05")
        #expect(identity("SHOP\nMon-Fri 08:00-20:00\nTime: 09.41\nTOTAL 12.00").time?.value == "09:41")
        #expect(identity("SHOP\n14:03Num. 0012\nTOTAL 12.00").time?.value == "14:03")
        #expect(TimeFinder.clock(in: "14:03Num.") == "14:03")
    }

    @Test func theReceiptsNumber() {
        #expect(identity("SHOP\nReceipt No: 104512\nTOTAL 12.00").receiptNumber?.value == "104512")
        #expect(identity("SHOP\nINV # A-00123\nTOTAL 12.00").receiptNumber?.value == "A-00123")
    }

    @Test func theAnalysisCarriesThemWithConfidenceAndKeys() throws {
        let text = """
            KESTREL FUEL LTD
            12 HIGH STREET, LEEDS LS1 4AB
            Tel 0113 496 0123
            VAT No: GB 123 4567 82
            12/03/2024 14:05
            TOTAL £40.00
            """
        let analysis = HeuristicAnalyzer().analyze(text: text, options: AnalysisOptions(defaultCurrency: "GBP"))
        #expect(analysis.identity.phone?.value == "+441134960123")
        #expect(analysis.identity.time?.value == "14:05")
        #expect(analysis.shopKeys[.taxId] == "GB123456782")
        #expect(analysis.shopKeys[.phone] == "134960123")
        #expect(analysis.shopKeys[.name] == "kestrelfuelltd")
        let json = analysis.json
        #expect(json["vendorTaxId"]?.stringValue == "GB123456782")
        #expect(json["vendorPhone"]?.stringValue == "+441134960123")
        #expect(json["time"]?.stringValue == "14:05")
        #expect((json["confidence"]?["vendorPhone"]?.doubleValue ?? 0) > 0.5)
        // Read back as stored.
        let back = ReceiptAnalysis(json: try JSONValue.parse(json.serialized()))
        #expect(back.identity.phone?.value == "+441134960123")
        #expect(back.shopKeys == analysis.shopKeys)
    }
}
