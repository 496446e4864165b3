import Foundation
import Testing
import ReceiptModel
import ReceiptAnalyzers

@Suite struct VendorFinderTests {
    func vendor(_ text: String) -> String? { VendorFinder.find(ReceiptDocument(text: text))?.name }

    @Test func skipsHeadingsAddressesAndNumbers() {
        let text = """
        TAX INVOICE
        WELCOME
        BRIGHTWAY HARDWARE SDN BHD (123456-K)
        NO 12, JALAN MAJU 3, TAMAN MAJU
        43000 KAJANG, SELANGOR
        TEL: 03-8736 1234
        GST ID: 001234567890
        """
        #expect(vendor(text) == "BRIGHTWAY HARDWARE SDN BHD")
    }

    @Test func firstNameLineOfAPlainReceipt() {
        let text = """
        Harbour Fish Bar
        21 Quay Street
        Bristol BS1 4DB
        Tel 0117 555 0199
        """
        #expect(vendor(text) == "Harbour Fish Bar")
    }

    @Test func repairsTheCompanySuffix() {
        #expect(vendor("KEDAI RUNCIT MESRA SON BHD\nJALAN BESAR") == "KEDAI RUNCIT MESRA SDN BHD")
    }

    @Test func companySuffixOnTheNextRow() {
        #expect(vendor("GOLDEN LEAF TRADING\nSDN BHD (98765-A)\nLOT 5, JALAN SS2") == "GOLDEN LEAF TRADING SDN BHD")
    }

    @Test func tradingAsNameWins() {
        #expect(vendor("NORTHGATE MOTORS LTD\nT/A QUICKFIT AUTOCENTRE\n12 Mill Lane") == "QUICKFIT AUTOCENTRE")
    }

    /// A capital letter opening a name in capitals is part of it; a lone fragment is not.
    @Test func keepsInitialsOpeningTheName() {
        #expect(vendor("L TWO FLORIST & HANDICRAFT\nNO 3, JALAN SS2/24") == "L TWO FLORIST & HANDICRAFT")
        #expect(vendor("B & BEST RESTAURANT\nNO 3, JALAN SS2/24") == "B & BEST RESTAURANT")
        #expect(vendor("C W KHOO HARDWARE SDN BHD\nNO 3, JALAN SS2/24") == "C W KHOO HARDWARE SDN BHD")
        // An I is what OCR makes of a bar or a logo's stroke; a letter before a name in small
        // letters is a speck.
        #expect(vendor("I TRANSIT\n12 Mill Lane") == "TRANSIT")
        #expect(vendor("x Harbour Fish Bar\n21 Quay Street") == "Harbour Fish Bar")
    }

    /// A company form continuing the name below it, with a row of specks (a logo's edge) between.
    @Test func joinsTheNameAboveRowsOfSpecks() {
        #expect(vendor("POPULAR BOOK\naa y - | ;\nCO. (M) SDN BHD\n(Co. No. 113825-W)\nNO 3, JALAN SS2/24")
                == "POPULAR BOOK CO. (M) SDN BHD")
        #expect(vendor("POPULAR BOOK\nCO. (M) SDN BHD\nNO 3, JALAN SS2/24") == "POPULAR BOOK CO. (M) SDN BHD")
    }
}

@Suite struct TaxFinderTests {
    func tax(_ text: String) -> Decimal? {
        let rows = AmountLine.build(ReceiptDocument(text: text))
        return TaxFinder.find(rows, total: TotalFinder.find(rows)?.value)?.value
    }

    @Test func salesTaxAddedOnTop() {
        #expect(tax("SUBTOTAL 18.50\nSALES TAX 8.875% 1.64\nTOTAL 20.14") == Decimal(string: "1.64"))
    }

    @Test func aServiceChargeAtARateIsNoTax() {
        #expect(tax("FISH & CHIPS 14.50\nPINT 5.20\nSubtotal 19.70\nService 10% 1.97\nTotal 21.67") == nil)
        // A local tax name at a rate, added the same way, is.
        #expect(tax("FISH & CHIPS 14.50\nPINT 5.20\nSubtotal 19.70\nIMPUESTO 10% 1.97\nTotal 21.67") == Decimal(string: "1.97"))
    }

    @Test func anUnreadableLabelBetweenSubtotalAndTotalIsTheTaxRow() {
        // "TAX" misread as "gtx": the only row between subtotal and total, its amount their difference.
        #expect(tax("GUMBO 9.50\nBREAD PUDDING 4.99\nSubtotal 14.49\ngtx 1.32\nTotal 15.81\nVISA 15.81") == Decimal(string: "1.32"))
        // A carrier bag or a deposit is added the same way, and is no tax.
        #expect(tax("MILK 1.10\nBREAD 1.20\nSubtotal 2.30\nBag 0.10\nTotal 2.40") == nil)
        // A row with a readable label is not guessed at.
        #expect(tax("GUMBO 9.50\nBREAD PUDDING 4.99\nSubtotal 14.49\nDelivery 1.32\nTotal 15.81") == nil)
    }

    @Test func vatIncludedRowWithBaseAndTax() {
        #expect(tax("TOTAL 28.95\nBTW 6% 28.95 1.64") == Decimal(string: "1.64"))
    }

    @Test func includedRateWithoutAnAmountIsComputed() {
        // 24.00 × 20 / 120 = 4.00
        #expect(tax("TOTAL £24.00\nPRICES INCLUDE VAT AT 20%") == Decimal(string: "4.00"))
    }

    @Test func severalRatesAreSummed() {
        let text = """
        SUBTOTAL 100.00
        GST 5% 2.00
        PST 7% 4.20
        TOTAL 106.20
        """
        #expect(tax(text) == Decimal(string: "6.20"))
    }

    @Test func taxNumbersAreNotTaxAmounts() {
        #expect(tax("GST REG NO: 001234567890\nTOTAL 9.00") == nil)
    }

    @Test(arguments: ["MwSt 19% 3.19", "TVA 20,0% 2,50", "IVA 10% 0,43", "VAT 20% 1.87", "SST 6% 0.60", "GST 0.51"])
    func readsTaxLabelsOfSeveralCountries(line: String) throws {
        let expected = try #require(AmountParser.amounts(in: line).last?.value)
        #expect(tax(line + "\nTOTAL 99.99") == expected)
    }
}

@Suite struct CurrencyDetectorTests {
    func currency(_ text: String) -> String? {
        let doc = ReceiptDocument(text: text)
        return CurrencyDetector.detect(doc, amounts: AmountLine.build(doc))?.code
    }

    @Test(arguments: [
        ("TOTAL £12.50", "GBP"), ("SUMME 16,70 €", "EUR"), ("TOTAL RM 9.00", "MYR"), ("TOTAL US$ 5.00", "USD"),
        ("AMOUNT DUE S$ 14.20", "SGD"), ("TOTAL AED 45.00", "AED"), ("TOTAL CHF 18.40", "CHF"),
    ])
    func symbolsAndCodes(text: String, expected: String) {
        #expect(currency(text) == expected)
    }

    @Test func countryEvidence() {
        #expect(currency("KEDAI MAJU SDN BHD\nJALAN AMPANG, KUALA LUMPUR\nTOTAL 9.00") == "MYR")
        #expect(currency("JOE'S DINER\nAUSTIN, TX 78701\nTOTAL $12.40") == "USD")
        // Malaysian tills sometimes print `$` for ringgit.
        #expect(currency("KEDAI MAJU SDN BHD\nSELANGOR\nTOTAL $9.00") == "MYR")
        // A Canadian postal code or sales tax makes `$` Canadian dollars.
        #expect(currency("SHELL\n2250 Yonge St\nToronto ON M4S 2C6\nTotal $64.30") == "CAD")
        #expect(currency("PETRO STATION\nFuel $64.30\nHST 13% incl. $7.40\nTotal $64.30") == "CAD")
        // A UK VAT number, with its GB or in its printed groups after VAT; nine digits otherwise are not one.
        #expect(currency("AUTOPARTS DIRECT LTD\nVAT No GB123456789\nBrake pads 45.00\nTotal 126.00") == "GBP")
        #expect(currency("SPARKLE CAR WASH\nVAT 544 0917 20\nMINI VALET 12.00\nTOTAL 12.00") == "GBP")
        #expect(currency("SPARKLE CAR WASH\nREF 544 0917 20\nMINI VALET 12.00\nTOTAL 12.00") == nil)
        // `$` and a North American phone number: US dollars; the phone alone names no currency, and
        // Canadian evidence outweighs it.
        #expect(currency("MESA RIDGE GAS\nDenver, c0 80206\n(303) 555-0126\nTOTAL $31.74") == "USD")
        #expect(currency("MESA RIDGE GAS\n(303) 555-0126\nTOTAL 31.74") == nil)
        #expect(currency("SHELL\nToronto ON M4S 2C6\n(416) 555-0199\nTotal $64.30") == "CAD")
        // A euro country's tax on a receipt with decimal commas; a tax name alone is not enough.
        #expect(currency("ALBERT HEIJN\nBROOD 2,49\nKAAS 5,99\nTOTAAL 8,48\nBTW 9% 0,70") == "EUR")
        #expect(currency("CORNER SHOP\nBREAD 2.49\nTOTAL 8.48\nBTW 9% 0.70") == nil)
    }

    @Test func malaysianRegistrationNumbersOutweighAStraySymbol() {
        // A 12-digit GST number and a company number with its check letter; the ¥ is a misread speck.
        #expect(currency("KEDAI ROTI MAJU\n(Co No. 319481-T)\nGST No: 001287233536\nTOTAL 11.25\nTERIMA KASIH ¥") == "MYR")
        #expect(currency("KEDAI ROTI MAJU\nGST ID : 001661886464\nSUB TOTAL 295.00\nTOTAL 312.70") == "MYR")
        #expect(currency("CORNER SHOP\nGST REG 201234567A\nTOTAL 12.40") == nil)
    }

    @Test func unknownStaysUnknown() {
        #expect(currency("CORNER SHOP\nTOTAL $12.40") == nil)
        #expect(currency("CORNER SHOP\nTOTAL 12.40") == nil)
    }
}

@Suite struct CategoryClassifierTests {
    func category(_ text: String) -> String {
        CategoryClassifier(taxonomy: .default).classify(ReceiptDocument(text: text), vendor: nil).name
    }

    @Test func fuel() {
        #expect(category("SHELL ASHFORD\nPUMP 04 UNLEADED\n40.12 L @ 1.459\nTOTAL £58.54") == "Fuel")
        // A pump's volume alone names the purchase.
        #expect(category("FORECOURT 12\n38.50 L 1.859 EUR/L\nMONTANT 71.57 EUR") == "Fuel")
        #expect(category("QUICK STOP 7\n12.503 Gal\nTOTAL $61.25") == "Fuel")
        #expect(category("FARM SHOP\n4.20 L x 1.25\nTOTAL 5.25") == "Fuel")
    }

    @Test func bottlesOnAGroceryReceiptAreNotFuel() {
        #expect(category("TESCO EXTRA\nWATER 1.5L 0.95\nMILK 2.27L 1.45\nCOLA 1.75 L 2.10\nBALANCE DUE 4.50") == "Other")
    }

    @Test func maintenance() {
        #expect(category("KWIK FIT\nMOT TEST 54.85\n2 X TYRE 185/65R15 120.00") == "Maintenance")
    }

    @Test func europeanWords() {
        #expect(category("AUTOHAUS MÜLLER GmbH\nInspektion 1.034,50\nBetrag EUR 1.231,06") == "Maintenance")
        #expect(category("STATION AVIA\nGazole 38,50\nMONTANT 71,57 EUR") == "Fuel")
        #expect(category("ALLIANZ VERSICHERUNG\nBeitrag 312,00") == "Insurance")
    }

    @Test func insurance() {
        #expect(category("ACME INSURANCE\nPOLICY NUMBER MC-123\nANNUAL PREMIUM 420.00") == "Insurance")
    }

    @Test func vehicleTax() {
        #expect(category("DVLA\nVEHICLE TAX 12 MONTHS\nTOTAL 180.00") == "Vehicle Tax")
    }

    @Test func restaurantIsOther() {
        #expect(category("HARBOUR FISH BAR\n21 Quay Street\nTable 4\nCOD & CHIPS 9.50\nTOTAL 9.50\nSERVICE NOT INCLUDED") == "Other")
    }

    @Test func customTaxonomy() throws {
        let taxonomy = try Taxonomy(json: JSONValue.parse(#"{"categories": [{"name": "Meals", "keywords": ["chips", "cod"]}, {"name": "Misc"}]}"#))
        let found = CategoryClassifier(taxonomy: taxonomy).classify(ReceiptDocument(text: "COD & CHIPS 9.50"), vendor: nil)
        #expect(found.name == "Meals")
    }
}

/// The currencies whose money has no minor units are found from their marks on whole numbers
/// (`¥5,160`, `Rp 224.400`, `12,312원`, `48.000đ`): the amounts themselves are read only once the
/// currency is known. Made-up rows.
@Suite struct WholeUnitCurrencyTests {
    func currency(_ text: String) -> String? {
        let doc = ReceiptDocument(text: text)
        return CurrencyDetector.detect(doc, amounts: AmountLine.build(doc))?.code
    }

    @Test(arguments: [
        ("TOTAL ¥5,160", "JPY"), ("合計 7,324円", "JPY"), ("TOTAL Rp 224.400", "IDR"), ("합계 12,312원", "KRW"),
        ("TONG CONG 48.000đ", "VND"), ("TOTAL 48.000 VND", "VND"),
    ])
    func marksOnWholeNumbers(text: String, expected: String) {
        #expect(currency(text) == expected)
    }
}

