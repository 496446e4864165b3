import Foundation
import Testing
import ReceiptModel
@testable import ReceiptAnalyzers
@testable import TestHelpers

/// Issue 58: documents that are not till receipts — insurers' letters, the DVLA's and councils'
/// e-mails, invoices — read as a person reads them.
@Suite struct LetterTests {
    static let depositLetter = """
    Hastwell Direct
    PO Box 418, Bexhill-on-Sea TN39 3LW
    Mr Arjun Kowalski
    14 Elm Grove
    Leicester
    LE2 3FD
    12 March 2025
    Dear Mr Kowalski,
    Thank you for your payment.
    Annual premium £3,458.64
    Amount paid £518.80
    10 monthly instalments of £293.98
    Yours sincerely,
    Hastwell Direct is a trading name of Advantage Cover Company Limited.
    """

    static func reading(_ text: String) -> Reading {
        Reading(ocr: ocrResult(text), options: AnalysisOptions(today: CalendarDate(year: 2025, month: 12, day: 1)))
    }

    @Test func theSenderIsTheVendorNeverTheAddressee() {
        let document = ReceiptDocument(text: Self.depositLetter)
        #expect(LetterParts.isLetter(document))
        #expect(LetterParts.tradingName(document) == "Hastwell Direct")
        let addressee = LetterParts.addresseeRows(document)
        #expect(addressee == [2, 3, 4, 5, 7])
        #expect(VendorFinder.find(document)?.name == "Hastwell Direct")
        // Without the trading name, the letterhead; the addressee's block is left out.
        let plain = ReceiptDocument(text: Self.depositLetter.replacingOccurrences(
            of: "Hastwell Direct is a trading name of Advantage Cover Company Limited.", with: ""))
        #expect(VendorFinder.find(plain)?.name == "Hastwell Direct")
        let above = ReceiptDocument(text: "Mr Arjun Kowalski\n14 Elm Grove\nLeicester LE2 3FD\nHastwell Direct\nPolicy schedule\nAmount paid £518.80")
        #expect(VendorFinder.find(above)?.name == "Hastwell Direct")
        // A shop named like a person (`MR D.I.Y.`) stays the vendor of a till receipt.
        #expect(!LetterParts.isPersonalName("MR D.I.Y."))
        #expect(LetterParts.isPersonalName("MRS P NWOSU"))
        // A till receipt headed by a name with a title and no address, salutation or label keeps it.
        let shop = ReceiptDocument(text: "MR TOBY CARVERY\n12/03/2024\nROAST 9.50\nTOTAL 9.50")
        #expect(LetterParts.addresseeRows(shop).isEmpty && !LetterParts.isLetter(shop))
    }

    @Test func aStatementsAccountHolderWithoutATitleIsNoVendor() {
        let statement = ReceiptDocument(text: """
        Fuelwise
        Fuelwise Card Services, PO Box 77, Leeds LS1 9FW
        Northern Cabs Ltd
        5 Station Yard
        Leeds LS11 5QR
        Monthly statement
        Balance brought forward £312.40
        Amount due £245.18
        """)
        #expect(LetterParts.addresseeRows(statement) == [2, 3, 4])
        #expect(VendorFinder.find(statement)?.name == "Fuelwise")
        // A till receipt's one address is the shop's.
        let till = ReceiptDocument(text: "Corner Shop\nHigh Street Stores Ltd\n5 Station Yard\nLeeds LS11 5QR\nTOTAL 4.20")
        #expect(LetterParts.addresseeRows(till).isEmpty)
    }

    @Test func anEmailsSenderIsItsFrom() {
        let email = """
        From: DVLA <vehicle.tax@notifications.dvla.gov.uk>
        To: s.mensah@example.com
        Subject: Vehicle tax confirmation
        Dear Samuel Mensah,
        Amount paid £195.00
        """
        #expect(LetterParts.emailSender(ReceiptDocument(text: email)) == "DVLA")
        // No name before the address: the address's domain; a personal mailbox forwarding it is not the sender.
        let forwarded = """
        From: Jo Bloggs <jo.bloggs@gmail.com>
        Subject: Fwd: your permit
        From: <noreply@ashdown-council.gov.uk>
        Amount charged £65.00
        """
        #expect(LetterParts.emailSender(ReceiptDocument(text: forwarded)) == "Ashdowncouncil")
        #expect(VendorFinder.find(ReceiptDocument(text: email))?.name == "DVLA")
    }

    @Test func theAmountPaidTodayIsTheTotalNotTheAnnualPremium() throws {
        let reading = Self.reading(Self.depositLetter)
        #expect(reading.total?.value == Decimal(string: "518.80"))
        let candidates = CandidateProposer.totals(reading)
        let names = CandidateProposer.features(for: .total)
        func feature(_ name: String, _ value: String) throws -> Double {
            try #require(candidates.first { $0.value == value }).features[names.firstIndex(of: name)!]
        }
        #expect(try feature("letter.paidNow", "518.80") == 1)
        #expect(try feature("letter.period", "3458.64") == 1)
        #expect(try feature("letter.period", "518.80") == 0)
        // On a till receipt "amount paid" is cash tendered: no letter, no paid-now feature.
        let till = Self.reading("CORNER SHOP\nTOTAL 4.20\nAMOUNT PAID 5.00\nCHANGE 0.80")
        #expect(till.total?.value == Decimal(string: "4.20"))
        let tendered = try #require(CandidateProposer.totals(till).first { $0.value == "5.00" })
        #expect(tendered.features[names.firstIndex(of: "letter.paidNow")!] == 0)
    }

    @Test func aDepositNamesItselfAmongTheItems() {
        let text = Self.depositLetter.replacingOccurrences(of: "Amount paid £518.80", with: "Deposit paid today £518.80")
        let reading = Self.reading(text)
        #expect(reading.total?.value == Decimal(string: "518.80"))
        let items = PartPayment.items(reading.lineItems, total: reading.total?.value, rows: reading.rows)
        #expect(items.count == 1)
        #expect(items.first?.description == "Deposit paid today")
        #expect(items.first?.amount == Decimal(string: "518.80"))
        // Items that add up to the total stay.
        let kept = [LineItem(description: "Deposit", amount: Decimal(string: "518.80"))]
        #expect(PartPayment.items(kept, total: Decimal(string: "518.80"), rows: reading.rows) == kept)
    }

    @Test func theAddresseeIsAVendorCandidateMarkedSo() throws {
        let reading = Self.reading(Self.depositLetter)
        let candidates = CandidateProposer.vendor(reading)
        let names = CandidateProposer.features(for: .vendor)
        let sender = try #require(candidates.first)
        #expect(sender.value == "Hastwell Direct")
        #expect(sender.features[names.firstIndex(of: "letter.sender")!] == 1)
        #expect(sender.features[names.firstIndex(of: "letter.addressee")!] == 0)
        #expect(!candidates.contains { $0.value.contains("Kowalski") && $0.features[names.firstIndex(of: "letter.addressee")!] == 0 })
    }
}
