import Foundation
import Testing
import ReceiptModel
@testable import ReceiptAnalyzers

/// The driver's receipts of Europe and the US (issue 46): VAT tables of several rates, a total
/// and its VAT on one row, garage invoices that break their items down by kind, fuel and charging
/// named in other languages. The rows are written here as tills and apps print them.
@Suite struct DriverReceiptTests {
    func rows(_ text: String) -> [AmountLine] { AmountLine.build(ReceiptDocument(text: text)) }

    func total(_ text: String) -> Decimal? { TotalFinder.find(rows(text))?.value }

    func tax(_ text: String) -> Decimal? {
        let rows = rows(text)
        return TaxFinder.find(rows, total: TotalFinder.find(rows)?.value)?.value
    }

    func category(_ text: String) -> String {
        CategoryClassifier(taxonomy: .default).classify(ReceiptDocument(text: text), vendor: nil).name
    }

    // MARK: VAT tables

    @Test func aVatTableOfTwoRatesIsTheSumOfItsRows() {
        // A German fuel receipt: fuel and a screen wash at 19 %, pretzels at 7 %.
        let text = """
        Saeule 5 Super E5
        22,62 l x 1,799 EUR/l 40,69 A
        Scheibenreiniger 1l 4,99 A
        2 x 1,29 Laugenbrezel 2,58 B
        SUMME EUR 48,26
        girocard 48,26
        MwSt-Satz Netto MwSt Brutto
        A 19,0% 38,39 7,29 45,68
        B 7,0% 2,41 0,17 2,58
        Summe 40,80 7,46 48,26
        """
        #expect(tax(text) == Decimal(string: "7.46"))
        // Without the sum row, the rows still add up.
        #expect(tax(text.replacingOccurrences(of: "Summe 40,80 7,46 48,26", with: "")) == Decimal(string: "7.46"))
        // A row of one rate printed again elsewhere is still only a part of the tax.
        #expect(tax(text + "\ndavon MwSt 19% 7,29") == Decimal(string: "7.46"))
    }

    @Test func aVatAnalysisWhoseFirstRowIsTheZeroRate() {
        // A UK garage: the MOT outside the scope of VAT, the parts and labour at 20 %; no VAT row
        // among the totals.
        let text = """
        O MOT test (class 4) 1 54.85 54.85
        S Front brake pads 1 41.60 41.60
        S Brake fluid 1L 1 9.90 9.90
        S Labour (hrs) 0.75 60.00 45.00
        Net total 151.35
        Invoice total £170.65
        Paid by Visa £170.65
        VAT analysis
        Code Rate Net VAT
        O 0.00% 54.85 0.00
        S 20.00% 96.50 19.30
        """
        #expect(tax(text) == Decimal(string: "19.30"))
        // The rows as the title's own: no column heading between.
        #expect(tax(text.replacingOccurrences(of: "Code Rate Net VAT\n", with: "")) == Decimal(string: "19.30"))
    }

    @Test func aRowsTaxMisreadByOneDigitIsTheGrossLessTheNet() {
        // 12,41 net and 14,77 gross at 19 %: the tax is 2,36, whatever digit was misread.
        let text = "SUMME EUR 14,77\nBAR 14,77\nMwSt Netto MwSt Brutto\nA 19% 12,41 7,36 14,77"
        #expect(tax(text) == Decimal(string: "2.36"))
    }

    @Test func aTableOfTheZeroRateAloneIsNoTable() {
        // Nothing charged at a rate: the rules read the rows as before (none is a tax table's sum).
        #expect(tax("TOTAL 4.50\nVAT RATE NET VAT\nZ 0.00% 4.50 0.00") == 0)
    }

    // MARK: a total and its tax on one row

    @Test func theTotalsRowNamingTheTaxIncludedAfterIt() {
        let uk = "Energy 35.809 kWh @ £0.79/kWh £28.29\nOverstay fee £0.00\nTotal £28.29 incl. VAT £4.72"
        #expect(total(uk) == Decimal(string: "28.29"))
        #expect(tax(uk) == Decimal(string: "4.72"))
        let fr = "GAZOLE 37,06 L x 1,689 62,59\nTOTAL TTC 62,59 EUR dont TVA 10,43 EUR"
        #expect(total(fr) == Decimal(string: "62.59"))
        #expect(tax(fr) == Decimal(string: "10.43"))
        // The total's own label naming the tax is one row as before.
        #expect(total("TOTAL INCL. GST 6% 9.00") == Decimal(string: "9.00"))
        #expect(tax("TOTAL INCL. GST 6% 9.00") == Decimal(string: "0.51"))
    }

    @Test func germanNetAndInvoiceAmounts() {
        let text = "Nettobetrag 240,35\nzzgl. 19% MwSt 45,67\nRechnungsbetrag EUR 286,02"
        #expect(total(text) == Decimal(string: "286.02"))
        #expect(tax(text) == Decimal(string: "45.67"))
        #expect(rows(text)[0].role == .subtotal)
    }

    // MARK: items

    @Test func aBreakdownByKindUnderTheItemsIsNoItem() {
        let text = """
        BRAKE PADS FRONT (SET) 1 69.99 69.99
        BRAKE ROTOR FRONT 2 38.75 77.50
        LABOR FRONT BRAKES (HR) 1.8 120.00 216.00
        SHOP SUPPLIES 1 12.00 12.00
        PARTS 147.49
        LABOR 216.00
        SHOP SUPPLIES 12.00
        SUBTOTAL 375.49
        SALES TAX 7.5% ON PARTS 11.06
        TOTAL $386.55
        """
        let items = LineItemParser.parse(rows(text))
        #expect(items.compactMap(\.amount) == ["69.99", "77.50", "216.00", "12.00"].compactMap { Decimal(string: $0) })
        // Items that happen to add up in two halves with no subtotal or total of that sum stay items.
        let halves = "TEA 2.00\nCAKE 3.00\nSOUP 4.00\nBREAD 1.00\nTOTAL 12.00"
        #expect(LineItemParser.parse(rows(halves)).count == 4)
    }

    // MARK: category

    @Test func chargingAnElectricCarIsFuel() {
        #expect(category("Voltpad\nLaadbewijs\nEnergie 24,341 kWh x € 0,59 € 14,36\nTotaal incl. btw € 14,71") == "Fuel")
        #expect(category("Chargeway\nCharging receipt\nEnergy 35.809 kWh @ £0.79/kWh £28.29\nTotal £28.29") == "Fuel")
        // A household's electricity bill prints kWh without a price at the pump.
        #expect(category("CITY ENERGY\nUsage 312 kWh\nAmount due 98.20") == "Other")
    }

    @Test func fuelAndGaragesInOtherLanguages() {
        #expect(category("STAZIONE SAN ROCCO\nGASOLIO SELF P.4 22% 45,30\nlt 26,82 x 1,689\nTOTALE COMPLESSIVO 45,30") == "Fuel")
        #expect(category("ESTACION EL PINAR\nPRODUCTO LITROS PRECIO IMPORTE\nGasoleo A 35,73 1,529 54,63") == "Fuel")
        #expect(category("Sternkreuz\nSaeule 5 Super E5\nSUMME EUR 48,26") == "Fuel")
        #expect(category("Bergmann GmbH\nÖlfilter 1 12,90\nArbeitslohn Inspektion 1,5 89,00 133,50") == "Maintenance")
    }

    // MARK: the neural reader's pound sign

    @Test func aPoundReadAsFBeforeASentencesStop() {
        let words = ["Insurance", "Premium", "Tax", "of", "f67.70."].enumerated().map { i, w in
            OCRWord(text: w, confidence: 90, box: BoundingBox(x: 10 + 120 * i, y: 10, width: 100, height: 20))
        }
        let ocr = OCRResult(text: "Insurance Premium Tax of f67.70.", lines: [OCRLine(words: words)], meanConfidence: 90,
                            imageWidth: 800, imageHeight: 100, sourceWidth: 800, sourceHeight: 100)
        let mended = NeuralSymbols.mend(ocr)
        #expect(mended.text == "Insurance Premium Tax of £67.70.")
        #expect(mended.lines[0].words.last?.text == "£67.70.")
        // A word that only starts with f is left alone.
        #expect(NeuralSymbols.mend(OCRResult(text: "fuel 12.50", lines: [], meanConfidence: 90, imageWidth: 1, imageHeight: 1,
                                             sourceWidth: 1, sourceHeight: 1)).text == "fuel 12.50")
    }
}
