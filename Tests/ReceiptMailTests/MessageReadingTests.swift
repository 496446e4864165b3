import Foundation
import Testing
@testable import ReceiptKit
@testable import ReceiptMail
@testable import TestHelpers

/// TestReceipts/email through the real GMime and libxml2: what each message becomes.
@Suite struct MessageReadingTests {
    static func eml(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("email/\(name).eml")))
    }

    static func eReceipt(_ name: String) throws -> EReceipt {
        let found = MessageReceipts(try MIMEMessage(eml(name)))
        #expect(found.items.count == 1)
        let item = try #require(found.items.first)
        return try #require(EReceipt(data: item.data), "\(name) is read as an e-receipt")
    }

    @Test func theHeadersAreReadDecoded() throws {
        let message = try MIMEMessage(Self.eml("fuel-app-html"))
        #expect(message.subject == "Your Pumpway receipt")
        #expect(message.from == "Pumpway <receipts@pumpway.example>")
        #expect(message.fromAddress == "receipts@pumpway.example")
        #expect(message.messageId == "r-20250603-0841-7731@pumpway.example")
        #expect(message.date?.hasPrefix("2025-06-03T08:41:12") == true)
    }

    @Test func aPhotoInsideAForwardedMessageIsFound() throws {
        let message = try MIMEMessage(Self.eml("forwarded-phone-photo"))
        let photo = try #require(message.parts.first { $0.filename == "IMG_4412.jpg" })
        #expect(photo.forwarded == 1)
        let found = MessageReceipts(message)
        #expect(found.items.count == 1)
        #expect(found.items[0].data == (try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("photo-rotated-fuel.jpg")))))
        #expect(found.items[0].name == "IMG_4412.jpg in \"Fwd: Fuel receipt\" from jo@fleet.example")
    }

    @Test func anAttachmentIsTakenByItsBytesNotItsDeclaredType() throws {
        let message = try MIMEMessage(Self.eml("heic-attachment"))
        #expect(message.parts.contains { $0.contentType == "application/octet-stream" && $0.filename == "IMG_0042.HEIC" })
        let found = MessageReceipts(message)
        #expect(found.items.count == 1 && ImageFormat.sniff(found.items[0].data) == .heic)
        let pdf = MessageReceipts(try MIMEMessage(Self.eml("insurer-pdf")))
        #expect(pdf.items.count == 1 && ImageFormat.sniff(pdf.items[0].data) == .pdf)
    }

    @Test func aLogoIsLeftOutAndTheMessageBecomesAnEReceiptWithoutAmounts() throws {
        let found = MessageReceipts(try MIMEMessage(Self.eml("logo-only")))
        #expect(found.skipped.count == 1 && found.skipped[0].hasPrefix("pumpway-logo.png:"))
        let eReceipt = try Self.eReceipt("logo-only")
        #expect(!eReceipt.hasAmounts)
        #expect(eReceipt.source.subject == "Welcome to Pumpway Rewards")
    }

    @Test func tableRowsAreRowsWithTheirCellsSideBySideAndHiddenTextIsLeftOut() throws {
        let rows = try Self.eReceipt("fuel-app-html").rows
        #expect(rows.contains(["VAT 20%", "£9.99"]))
        #expect(rows.contains(["Total paid", "£59.94"]))
        #expect(rows.first == ["Pumpway Fuels"])
        let text = rows.joined().joined(separator: " ")
        #expect(!text.contains("Thanks for your visit"), "a display:none preheader is not printed")
        #expect(!text.contains("trackOpen"), "a script is not text")
    }

    @Test func aTotalInANestedTableIsARowOfItsOwn() throws {
        let rows = try Self.eReceipt("ride-nested-table").rows
        #expect(rows.contains(["Total", "£15.75"]))
        #expect(rows.contains(["Includes VAT (20%)", "£2.63"]))
    }

    @Test func jsonLDOrderFieldsAreReadAsWritten() throws {
        let eReceipt = try Self.eReceipt("parking-app-jsonld")
        let structured = try #require(eReceipt.structured)
        #expect(structured.vendor == "ParkLink")
        #expect(structured.date == CalendarDate(iso: "2025-06-11"), "the calendar date as written, not moved to UTC")
        #expect(structured.total == Decimal(string: "6.40"))
        #expect(structured.currency == "GBP")
        #expect(structured.kind == "Order (json-ld)")
    }

    @Test func microdataInvoiceFieldsAreRead() {
        let html = """
            <div itemscope itemtype="https://schema.org/Invoice">
              <span itemprop="provider" itemscope itemtype="https://schema.org/Organization"><span itemprop="name">Kerbside Tyres</span></span>
              <time itemprop="dateCreated" datetime="2025-04-02">2 April</time>
              <div itemprop="totalPaymentDue" itemscope itemtype="https://schema.org/PriceSpecification">
                <meta itemprop="priceCurrency" content="GBP"><span itemprop="price">189.00</span></div>
              <span itemprop="totalTax">31.50</span>
            </div>
            """
        let structured = HTMLReceiptReader.read(html: html).structured
        #expect(structured == EReceipt.StructuredFields(vendor: "Kerbside Tyres", date: CalendarDate(iso: "2025-04-02"),
                                                        total: Decimal(string: "189.00"), tax: Decimal(string: "31.50"),
                                                        currency: "GBP", kind: "Invoice (microdata)"))
    }

    @Test func theStoredDocumentReadsBackAndItsReadingIsExact() throws {
        let eReceipt = try Self.eReceipt("fuel-app-html")
        #expect(EReceipt(data: eReceipt.data) == eReceipt)
        #expect(eReceipt.data == (try Self.eReceipt("fuel-app-html")).data, "the same body gives the same bytes: one receipt")
        let reading = eReceipt.reading()
        #expect(reading.meanConfidence == 100)
        let total = try #require(reading.lines.first { $0.text.hasPrefix("Total paid") })
        #expect(total.text == "Total paid £59.94")
        #expect(total.words.last!.box.maxX == EReceipt.rightEdge * EReceipt.cellWidth, "the amount ends at the right edge")
        #expect(EReceipt(data: Data("not a document".utf8)) == nil)
    }

    @Test func smallImagesAreLogosByTheirSize() throws {
        #expect(MessageReceipts.tooSmall(Data(count: 2048)) != nil)
        let photo = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-fuel-unleaded.jpg")))
        #expect(ImageDimensions.of(photo).map { [$0.width, $0.height] } == [610, 966])
        #expect(MessageReceipts.tooSmall(photo) == nil)
    }

    @Test func bytesThatAreNoMessageAreRefusedInOneLine() {
        #expect(throws: ReceiptError.self) { try MIMEMessage(Data()) }
        #expect(throws: ReceiptError.self) { try MIMEMessage(Data("\u{0}\u{1}\u{2}".utf8)) }
    }
}
