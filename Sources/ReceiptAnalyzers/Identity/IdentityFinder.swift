import Foundation
import ReceiptModel

/// Reads what identifies the shop from a receipt's readings (issue 57): its tax or registration
/// number, phone, web domain, address, store number, and the purchase's time and receipt number
/// (`ShopIdentity`), with the fingerprint of its header rows. With two readings, each field is
/// taken from the neural reader's where it reads one (it reads print more faithfully), else from
/// Tesseract's.
package enum IdentityFinder {
    /// The receipt's identity from its readings (the first the preferred one).
    package static func find(_ readings: [Reading], currency: String?) -> ShopIdentity {
        var identity = ShopIdentity()
        let documents = readings.map(\.document)
        if let taxId = first(documents, TaxIdFinder.find) {
            identity.taxId = IdentityField(value: taxId.value, confidence: taxId.confidence, words: taxId.words)
            identity.taxIdScheme = taxId.scheme
        }
        let country = CallingCountry.of(currency: currency, taxId: identity.taxId?.value)
        if let phone = first(documents, { PhoneFinder.find($0, country: country) }) {
            identity.phone = IdentityField(value: phone.value, confidence: phone.confidence, words: phone.words)
        }
        if let web = first(documents, webDomain) { identity.web = web }
        if let address = first(readings, { AddressFinder.find($0.document, vendorRows: vendorRows($0)) }) {
            identity.address = IdentityField(value: address.value, confidence: address.confidence, words: address.words)
            identity.postcode = address.postcode
        }
        if let store = first(documents, storeNumber) { identity.storeNumber = store }
        if let time = first(readings, { TimeFinder.find($0.document, dateRow: $0.dateRow?.index) }) {
            identity.time = IdentityField(value: time.value, confidence: time.confidence, words: time.words)
        }
        if let number = first(documents, receiptNumber) { identity.receiptNumber = number }
        return identity
    }

    private static func first<T, R>(_ items: [T], _ find: (T) -> R?) -> R? {
        for item in items { if let found = find(item) { return found } }
        return nil
    }

    /// The rows the rules' vendor was read from (an address is looked for elsewhere).
    static func vendorRows(_ reading: Reading) -> Set<Int> {
        guard let box = reading.vendor?.box else { return [] }
        return Set(reading.document.lines.filter { line in line.box.map { $0.midY >= box.y && $0.midY <= box.maxY } ?? false }.map(\.index))
    }

    // MARK: Web

    static let host = Pattern(#"(?:www\s?\.\s?|https?://|@)([a-z0-9][a-z0-9\-]*(?:\.[a-z0-9\-]+)+)|\b([a-z0-9][a-z0-9\-]{2,}\.(?:com|co\.uk|org\.uk|net|org|de|fr|it|es|nl|be|ie|at|ch|com\.my|my|com\.au|co\.nz|co\.jp|jp|co\.id|us|ca|au|eu|shop|store))\b"#)

    /// The shop's web domain (`tesco.com`), its `www.` left off; not a mail provider's, a social
    /// network's or a survey's (`NamesElsewhere.domains`).
    static func webDomain(_ document: ReceiptDocument) -> IdentityField? {
        for line in document.lines {
            for match in host.matches(in: line.text.lowercased()) {
                guard var domain = match.groups[1] ?? match.groups[2] else { continue }
                domain = domain.replacingOccurrences(of: " ", with: "").trimmingCharacters(in: CharacterSet(charactersIn: ".-"))
                guard domain.contains("."), !NamesElsewhere.domains(in: "www." + domain).isEmpty else { continue }
                let words = line.words.filter { $0.text.lowercased().contains(domain.split(separator: ".").first.map(String.init) ?? domain) }
                return IdentityField(value: domain, confidence: min(0.95, line.confidence / 100), words: words)
            }
        }
        return nil
    }

    // MARK: Store number

    static let store = Pattern(#"\b(?:STORE|STR|ST|SHOP|BRANCH|FILIALE?|FIL|OUTLET|LOC(?:ATION)?|TIENDA|MAGASIN|NEGOZIO)\s*(?:NO\.?|NUMBER|NR\.?|N°|ID)?\s*[#:.]?\s*#?\s*(\d{1,6})\b"#)

    /// The branch's number: `STORE #0042`, `ST# 1234`, `Filiale 812`, `Branch No: 05`.
    static func storeNumber(_ document: ReceiptDocument) -> IdentityField? {
        for line in document.lines {
            // "SHOP NO 2, JALAN …" is an address's unit, not a branch.
            guard !VendorFinder.isAddress(line.text) || line.upper.contains("STORE") || line.upper.contains("#") else { continue }
            if let match = store.firstMatch(in: line.upper), let number = match[1] {
                let words = line.words.filter { $0.text.contains(number) }
                return IdentityField(value: number, confidence: min(0.95, line.confidence / 100 * 0.9), words: words)
            }
        }
        return nil
    }

    // MARK: Receipt number

    static let receipt = Pattern(#"\b(?:RECEIPT|RCPT|RCT|INVOICE|INV|BILL|DOC(?:UMENT)?|TRANS(?:ACTION)?|TXN|TRX|CHECK|CHK|ORDER|TICKET|BON|BELEG|RECHNUNG|FACTURA|FACTURE|RECIBO|SCONTRINO|SLIP)\s*(?:NO\.?|NUMBER|NR\.?|N°|NUM\.?|ID|#)\s*[:.]?\s*#?\s*([A-Z0-9][A-Z0-9\-/]{2,19})"#)

    /// The receipt's own number: `Receipt No: 104512`, `INV #A-00123`, `Bon-Nr. 4711`.
    static func receiptNumber(_ document: ReceiptDocument) -> IdentityField? {
        for line in document.lines {
            guard let match = receipt.firstMatch(in: line.upper), let number = match[1],
                  number.filter(\.isNumber).count >= 3 else { continue }
            let words = line.words.filter { $0.text.uppercased().contains(number) }
            return IdentityField(value: number, confidence: min(0.95, line.confidence / 100 * 0.9), words: words)
        }
        return nil
    }

    // MARK: Header

    /// A fingerprint of the receipt's first three rows with words (their letters, upper case):
    /// receipts of one shop share their header's print.
    package static func headerFingerprint(_ document: ReceiptDocument) -> String? {
        let rows = document.lines.map { String($0.upper.filter { $0.isLetter && $0.isASCII }) }.filter { $0.count >= 4 }.prefix(3)
        guard rows.count == 3 else { return nil }
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in rows.joined(separator: "|").utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return String(hash, radix: 16)
    }
}
