import Foundation

struct VendorFinding: Sendable, Equatable {
    var name: String
    var confidence: Double
}

/// Finds the merchant's name among the header rows.
///
/// Rows that are addresses, phone/fax numbers, registration numbers or generic headings
/// (`TAX INVOICE`, `WELCOME`, `RECEIPT`) are skipped; a row naming a company (`SDN BHD`, `LTD`,
/// `GMBH`, …) is preferred, and `trading as` names win over the legal name.
enum VendorFinder {
    static let companySuffixes = ["SDN BHD", "SDN", "BHD", "BERHAD", "S B", "LTD", "LIMITED", "PLC", "INC", "LLC",
                                  "GMBH", "PTE", "CORP", "CORPORATION", "CO LTD", "S L", "S A", "SARL", "B V", "BV",
                                  "SRL", "S R L", "AG", "KG", "ENTERPRISE", "ENTERPRISES", "TRADING", "PTY", "LLP",
                                  "SPA", "S P A", "OY", "AB", "NV", "SAS"]
    static let skipWords = [
        "TAX INVOICE", "INVOICE", "RECEIPT", "WELCOME", "THANK", "THANKS", "CASHIER", "TABLE", "DATE", "TIME",
        "ORDER", "SIMPLIFIED", "OFFICIAL", "COPY", "MEMBER", "TEL", "FAX", "PHONE", "TELEPHONE", "HP", "MOBILE",
        "EMAIL", "E MAIL", "WWW", "COM", "HTTP", "HTTPS", "GST", "VAT", "REG", "REGISTRATION", "CO REG", "ROC",
        "ABN", "TIN", "SST", "NO", "COMPANY NO", "BUSINESS", "SERVER", "HOST", "GUEST", "GUESTS", "CHECK", "CHK",
        "TRANS", "TERMINAL", "STORE", "STORE NO", "OPEN", "HOURS", "DAILY", "MON", "TUE", "WED", "THU", "FRI",
        "SAT", "SUN", "CUSTOMER", "BILL", "POS", "TILL", "CASH", "SALE", "SALES", "DOCUMENT", "FACTURA", "FACTURE",
        "RECHNUNG", "QUITTUNG", "BON", "KASSENBON", "TICKET", "DUPLICATE", "REPRINT", "FEEDBACK", "SURVEY",
        "VISIT", "WIFI", "FOLLOW", "LIKE US", "TAX", "TRN", "ID", "OPERATOR", "STAFF", "CLERK", "COUNTER",
    ]
    static let addressWords = [
        "JALAN", "JLN", "LOT", "NO", "TAMAN", "LORONG", "PERSIARAN", "LEBUH", "KAMPUNG", "KG", "BANDAR", "BATU",
        "ROAD", "RD", "STREET", "ST", "AVENUE", "AVE", "BLVD", "BOULEVARD", "LANE", "LN", "DRIVE", "DR", "WAY",
        "HIGHWAY", "HWY", "SUITE", "STE", "FLOOR", "FLR", "BLOCK", "BLK", "UNIT", "LEVEL", "PLAZA", "CENTRE",
        "CENTER", "MALL", "SQUARE", "SQ", "PARKWAY", "PKWY", "PLACE", "PL", "COURT", "CT", "STRASSE", "STR",
        "STRAAT", "RUE", "CALLE", "VIA", "PIAZZA", "PLATZ", "AVDA", "AVENIDA", "CARRER", "WEG", "GASSE",
        "SELANGOR", "KUALA LUMPUR", "JOHOR", "MALAYSIA", "PENANG", "PERAK", "MELAKA", "PAHANG", "SABAH",
        "SARAWAK", "KEDAH", "KELANTAN", "TERENGGANU", "PERLIS", "PUTRAJAYA", "NEGERI SEMBILAN", "SINGAPORE",
        "USA", "UK", "UNITED KINGDOM", "PO BOX", "P O BOX",
    ]
    private static let phonePattern = Pattern(#"(\+?\d[\d\s\-().]{6,}\d)"#)
    private static let postcodePattern = Pattern(#"\b\d{5}\b|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b"#, caseInsensitive: false)

    static func find(_ document: ReceiptDocument) -> VendorFinding? {
        let header = Array(document.lines.prefix(while: { line in
            // The header ends where the amounts start.
            AmountParser.amounts(in: line.text).isEmpty || line.index < 3
        }).prefix(14))
        let rows = header.isEmpty ? Array(document.lines.prefix(8)) : header
        var best: (name: String, score: Double)? = nil
        for (position, line) in rows.enumerated() {
            let label = LabelText(line.text)
            // "Trading as" names win.
            if let range = line.upper.range(of: "T/A ") ?? line.upper.range(of: "TRADING AS ") {
                let name = clean(String(line.text[range.upperBound...]))
                if name.count >= 3 { return VendorFinding(name: name, confidence: 0.8) }
            }
            let name = clean(line.text)
            guard isPlausibleName(name, label: label) else { continue }
            let company = label.hasAny(companySuffixes) && !label.hasAny(["CO REG", "COMPANY NO", "REG NO", "ROC"])
            var score = 10 - Double(position) * 1.2
            if company { score += 9 }
            score += (line.confidence - 70) / 15
            let letters = name.filter(\.isLetter).count
            score += min(3, Double(letters) / 5)
            if name == name.uppercased() { score += 0.5 }
            if best == nil || score > best!.score { best = (name, score) }
            _ = company
        }
        guard var best else { return nil }
        // A company suffix printed alone on the next row ("ABC TRADING" / "SDN BHD").
        if let i = rows.firstIndex(where: { clean($0.text) == best.name }), i + 1 < rows.count {
            let next = clean(rows[i + 1].text)
            let nextLabel = LabelText(next)
            if nextLabel.words.count <= 2, nextLabel.hasAny(["SDN BHD", "BHD", "BERHAD", "LTD", "LIMITED", "INC", "LLC", "GMBH"]),
               !LabelText(best.name).hasAny(companySuffixes) {
                best.name += " " + next
            }
        }
        let confidence = min(0.9, max(0.2, best.score / 25))
        return VendorFinding(name: best.name, confidence: confidence)
    }

    static func isPlausibleName(_ name: String, label: LabelText) -> Bool {
        let letters = name.filter(\.isLetter).count
        guard letters >= 3 else { return false }
        let visible = name.filter { !$0.isWhitespace }.count
        guard Double(letters) / Double(max(1, visible)) >= 0.6 else { return false }
        if label.hasAny(skipWords) && !label.hasAny(companySuffixes) { return false }
        if label.hasAny(addressWords) && !label.hasAny(companySuffixes) { return false }
        if phonePattern.matches(name) { return false }
        if postcodePattern.matches(name.uppercased()) && !label.hasAny(companySuffixes) { return false }
        // Mostly one-letter or two-letter fragments: OCR noise.
        let words = label.words
        let longWords = words.filter { $0.count >= 3 }
        guard !longWords.isEmpty, Double(longWords.count) / Double(words.count) >= 0.4 else { return false }
        return true
    }

    /// Removes OCR noise around a name: stray punctuation, one-letter fragments at the ends,
    /// and common misreadings of company suffixes (`SON BHD` → `SDN BHD`).
    static func clean(_ text: String) -> String {
        var tokens = text.split(whereSeparator: \.isWhitespace).map(String.init)
        let trim = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "&()'.")).inverted
        tokens = tokens.map { $0.trimmingCharacters(in: trim) }.filter { !$0.isEmpty }
        func isJunk(_ t: String) -> Bool {
            t.count == 1 && t != "&" || t.count == 2 && t != t.uppercased() || !t.contains(where: { $0.isLetter || $0.isNumber })
        }
        while tokens.count > 1, let first = tokens.first, isJunk(first) { tokens.removeFirst() }
        while tokens.count > 1, let last = tokens.last, isJunk(last) { tokens.removeLast() }
        var name = tokens.joined(separator: " ")
        for (wrong, right) in [(" SON BHD", " SDN BHD"), (" 5DN BHD", " SDN BHD"), (" SDN BHO", " SDN BHD"),
                               (" SDN 8HD", " SDN BHD"), (" SDN. BHD", " SDN. BHD"), (" SON. BHD", " SDN. BHD"),
                               (" SDN BND", " SDN BHD"), (" SDN BKD", " SDN BHD"), (" SDNBHD", " SDN BHD")] {
            name = name.replacingOccurrences(of: wrong, with: right, options: .caseInsensitive)
        }
        if name.uppercased().hasSuffix(" BHO") { name = String(name.dropLast(3)) + "BHD" }
        return name.trimmingCharacters(in: CharacterSet(charactersIn: " .,:;-_|"))
    }
}
