import Foundation
import ReceiptModel

package struct VendorFinding: Sendable, Equatable {
    package var name: String
    package var confidence: Double
    /// Lowest OCR confidence (0–100) of the name's words.
    package var readConfidence: Double = 100
    /// Mean OCR confidence (0–100) of the rows the name was read from.
    package var meanConfidence: Double = 100
    /// Where those rows are on the image, when word boxes are known.
    package var box: BoundingBox? = nil
    /// The OCR words of those rows (empty for plain text).
    package var words: [OCRWord] = []
}

/// Finds the merchant's name among the header rows.
///
/// Rows that are addresses, phone/fax numbers, registration numbers or generic headings
/// (`TAX INVOICE`, `WELCOME`, `RECEIPT`) are skipped; a row naming a company (`SDN BHD`, `LTD`,
/// `GMBH`, …) is preferred, and `trading as` names win over the legal name.
package enum VendorFinder {
    package static let companySuffixes: PhraseList = ["SDN BHD", "SDN", "BHD", "BERHAD", "S B", "LTD", "LIMITED", "PLC", "INC", "LLC",
                                  "GMBH", "PTE", "CORP", "CORPORATION", "CO LTD", "S L", "S A", "SARL", "B V", "BV",
                                  "SRL", "S R L", "ENTERPRISE", "ENTERPRISES", "TRADING", "PTY", "LLP", "S P A"]
    package static let skipWords: PhraseList = [
        "TAX INVOICE", "INVOICE", "RECEIPT", "WELCOME", "THANK", "THANKS", "CASHIER", "TABLE", "DATE", "TIME",
        "ORDER", "SIMPLIFIED", "OFFICIAL", "COPY", "MEMBER", "TEL", "FAX", "PHONE", "TELEPHONE", "HP", "MOBILE",
        "EMAIL", "E MAIL", "WWW", "COM", "HTTP", "HTTPS", "GST", "VAT", "REG", "REGISTRATION", "CO REG", "ROC",
        "ABN", "TIN", "SST", "NO", "COMPANY NO", "BUSINESS", "SERVER", "HOST", "GUEST", "GUESTS", "CHECK", "CHK",
        "TRANS", "TERMINAL", "STORE", "STORE NO", "OPEN", "HOURS", "DAILY", "MON", "TUE", "WED", "THU", "FRI",
        "SAT", "SUN", "CUSTOMER", "BILL", "POS", "TILL", "CASH", "SALE", "SALES", "DOCUMENT", "FACTURA", "FACTURE",
        "RECHNUNG", "QUITTUNG", "BON", "KASSENBON", "TICKET", "DUPLICATE", "REPRINT", "FEEDBACK", "SURVEY",
        "VISIT", "WIFI", "FOLLOW", "LIKE US", "TAX", "TRN", "ID", "OPERATOR", "STAFF", "CLERK", "COUNTER",
        "QTY", "DESCRIPTION", "ITEM", "PRICE", "UNIT PRICE",
    ]
    package static let addressWords: PhraseList = [
        "JALAN", "JLN", "LOT", "NO", "TAMAN", "LORONG", "PERSIARAN", "LEBUH", "KAMPUNG", "KG", "BANDAR", "BATU",
        "ROAD", "RD", "STREET", "ST", "AVENUE", "AVE", "BLVD", "BOULEVARD", "LANE", "LN", "DRIVE", "DR", "WAY",
        "HIGHWAY", "HWY", "SUITE", "STE", "FLOOR", "FLR", "BLOCK", "BLK", "UNIT", "LEVEL", "PLAZA", "CENTRE",
        "CENTER", "MALL", "SQUARE", "SQ", "PARKWAY", "PKWY", "PLACE", "PL", "COURT", "CT", "STRASSE", "STR",
        "STRAAT", "RUE", "CALLE", "VIA", "PIAZZA", "PLATZ", "AVDA", "AVENIDA", "CARRER", "WEG", "GASSE",
        "SELANGOR", "KUALA LUMPUR", "JOHOR", "MALAYSIA", "PENANG", "PERAK", "MELAKA", "PAHANG", "SABAH",
        "SARAWAK", "KEDAH", "KELANTAN", "TERENGGANU", "PERLIS", "PUTRAJAYA", "NEGERI SEMBILAN", "SINGAPORE",
        "USA", "UK", "UNITED KINGDOM", "PO BOX", "P O BOX", "KAWASAN", "PERINDUSTRIAN", "SEKSYEN", "PUSAT",
        "KOMPLEKS", "WISMA", "MUKIM", "JAYA", "INDUSTRIAL", "ESTATE", "PARK", "TMN", "LRG", "JLN", "SG", "SUNGAI",
    ]
    private static let phonePattern = Pattern(#"(\+?\d[\d\s\-().]{6,}\d)"#)
    /// "Boston MA 02110", "SPRINGFIELD IL 62701-1234": a US city, state and ZIP code.
    private static let usCityLine = Pattern(#"\b[A-Z]{2}[\s.,]+\d{5}(-\d{4})?\b"#, caseInsensitive: false)
    private static let postcodePattern = Pattern(#"\b\d{5}\b|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b"#, caseInsensitive: false)

    package static func find(_ document: ReceiptDocument, rows amountRows: [AmountLine]? = nil) -> VendorFinding? {
        // A letter's or an e-mail's sender, as a person reads it: the From of an e-mail, the trading
        // name a letter states (issue 58); never the addressee (`headerRows` leaves that block out).
        if let sender = LetterParts.emailSender(document) ?? LetterParts.tradingName(document) {
            return VendorFinding(name: sender, confidence: 0.8)
        }
        let found = findInHeader(document, rows: amountRows)
        // "THANK YOU FOR SHOPPING AT KOHL'S", "The Meijer Team appreciates your business": the store
        // names itself at the foot when its logo above was not read as text. The legal name of a
        // company, or a header name agreeing with it, stays.
        guard let signed = signOffName(document) else { return found }
        if let found {
            let a = NameMatching.normalized(found.name), b = NameMatching.normalized(signed)
            if LabelText(found.name).hasAny(companySuffixes) || a.contains(b) || b.contains(a) { return found }
        }
        return VendorFinding(name: signed, confidence: 0.5)
    }

    private static let signOffPatterns = [
        Pattern(#"\b(?:THE|The)\s+([A-Z][A-Za-z'’&.\-]*(?:\s+[A-Z][A-Za-z'’&.\-]*){0,2})\s+(?:TEAM|Team)\b"#, caseInsensitive: false),
        Pattern(#"\bTHANKS?(?:\s+YOU)?\s+FOR\s+(?:(?:SHOPPING|DINING|EATING|STAYING)\s+(?:AT|WITH)|CHOOSING|VISITING)\s+([A-Z0-9][A-Z0-9'’&.\-]*(?:\s+[A-Z0-9][A-Z0-9'’&.\-]*){0,3})"#, caseInsensitive: false),
    ]
    private static let genericSignOff: Set<String> = ["US", "OUR", "THIS", "STORE", "SHOP", "SALES", "MANAGEMENT", "SERVICE",
                                                      "CUSTOMER", "WHOLE", "ENTIRE", "STAFF", "HERE", "TODAY", "YOUR", "A", "AN", "LOCAL"]

    /// The name a sign-off row gives the store, if any.
    package static func signOffName(_ document: ReceiptDocument) -> String? {
        for line in document.lines {
            let text = line.text
            for (i, pattern) in signOffPatterns.enumerated() {
                // The team pattern reads names as printed ("The Meijer Team"); the shopping one in capitals.
                let subject = i == 0 ? text : text.uppercased()
                guard let m = pattern.firstMatch(in: subject), let raw = m[1] else { continue }
                // The name ends with its sentence: "AT TESCO. PLEASE COME AGAIN".
                let sentence = raw.components(separatedBy: ". ").first!.split(whereSeparator: { "!,;:".contains($0) }).first.map(String.init) ?? raw
                let name = sentence.trimmingCharacters(in: CharacterSet(charactersIn: " .,!-'’"))
                let label = LabelText(name)
                guard let first = label.words.first, !genericSignOff.contains(first),
                      !label.words.contains(where: { ["TEAM", "AGAIN", "AND", "FOR"].contains($0) }),
                      name.filter(\.isLetter).count >= 3, line.confidence >= 60 else { continue }
                // Back to the row's own spelling.
                if i == 1, let range = line.text.range(of: name, options: .caseInsensitive) { return String(line.text[range]) }
                return name
            }
        }
        return nil
    }

    /// The name among the header rows: a `trading as` name wins outright; otherwise every row that
    /// may be a name (`looksLikeName`, not `isSlogan` nor a `logoFragment`) gets a score
    /// (`nameScore`), and the best row, joined with the rows around it that belong to the name
    /// (`brandAboveCompany` … `companyNameWrapped`), is the vendor.
    package static func findInHeader(_ document: ReceiptDocument, rows amountRows: [AmountLine]? = nil) -> VendorFinding? {
        let rows = headerRows(document, rows: amountRows)
        if let name = tradingAsName(rows) { return VendorFinding(name: name, confidence: 0.8) }
        let scored = Header(rows)
        guard let best = scored.best else { return nil }
        if let brand = brandAboveCompany(best, scored) { return scored.finding(scored.names[brand], rows: brand...brand, score: best.score) }
        var choice = Choice(best)
        joinContinuation(&choice, scored)
        if !choice.joinedAbove { joinBusinessBelow(&choice, scored) }
        let label = LabelText(choice.name)
        joinSuffixBelow(&choice, label: label, scored)
        if !choice.joinedAbove { joinWrappedName(&choice, label: label, scored) }
        return scored.finding(choice.name, rows: choice.used, score: best.score)
    }

    /// The rows the name is looked for in: those above the first row printing an amount (from the
    /// fourth row on), at most 14; the first 8 when an amount is printed sooner.
    private static func headerRows(_ document: ReceiptDocument, rows amountRows: [AmountLine]?) -> [ReceiptLine] {
        let amountRows = amountRows ?? AmountLine.build(document)
        let end = amountRows.first(where: { !$0.amounts.isEmpty && $0.line.index >= 3 })?.line.index ?? document.lines.count
        // An addressee's block (a name with a title and its address, `Invoice to:` and the
        // customer) is never the sender (issue 58).
        let addressee = LetterParts.addresseeRows(document)
        let header = Array(document.lines.prefix(min(end, 14))).filter { !addressee.contains($0.index) }
        return header.isEmpty ? Array(document.lines.prefix(8)).filter { !addressee.contains($0.index) } : header
    }

    /// Every header row that may be the name (what `findInHeader` weighs, before it joins rows
    /// around the best one), best first: each as a finding of its own row, with its score's rank.
    package static func headerNames(_ document: ReceiptDocument, rows amountRows: [AmountLine]? = nil) -> [(finding: VendorFinding, rank: Int)] {
        let scored = Header(headerRows(document, rows: amountRows))
        var plausible: [(row: Int, score: Double)] = []
        for (row, score) in scored.scores.enumerated() { if let score { plausible.append((row, score)) } }
        plausible.sort { a, b in a.score != b.score ? a.score > b.score : a.row < b.row }
        return plausible.enumerated().map { rank, entry in
            (scored.finding(scored.names[entry.row], rows: entry.row...entry.row, score: entry.score), rank)
        }
    }

    /// "Trading as" names win: the first row's name after `T/A` or `TRADING AS`.
    private static func tradingAsName(_ rows: [ReceiptLine]) -> String? {
        for line in rows {
            if line.upper.contains("/" as Character) || line.upper.contains("TRADING"),
               let range = line.upper.range(of: "T/A ") ?? line.upper.range(of: "TRADING AS ") {
                let name = clean(String(line.text[range.upperBound...]))
                if name.count >= 3 { return name }
            }
        }
        return nil
    }

    /// A header row considered as the name.
    private struct NameRow {
        let line: ReceiptLine
        let position: Int
        /// The row's text cleaned (`clean(confidentText)`).
        let name: String
        let label: LabelText
        /// "A UNIT OF … LLP", "OPERATED BY … LTD": the owner of the business, not its name.
        let owner: Bool
        /// Names a company (not its registration number, nor its owner).
        let company: Bool
        /// An address row came before it.
        let afterAddress: Bool
        let height: Int?
        /// The median print size of the header.
        let typicalHeight: Int?

        init(_ line: ReceiptLine, position: Int, name: String, afterAddress: Bool, height: Int?, typicalHeight: Int?) {
            self.line = line
            self.position = position
            self.name = name
            label = LabelText(name)
            owner = label.hasAny(ownerPhrases)
            company = label.hasAny(companySuffixes) && !label.hasAny(["CO REG", "COMPANY NO", "REG NO", "ROC"]) && !owner
            self.afterAddress = afterAddress
            self.height = height
            self.typicalHeight = typicalHeight
        }
    }

    /// The header rows with their names and the scores of those that may be the name.
    private struct Header {
        let rows: [ReceiptLine]
        let names: [String]
        /// Print size: the name is usually the largest text of the header.
        let heights: [Int?]
        /// Each row's score as the name; nil for a row that cannot be it.
        private(set) var scores: [Double?] = []
        private(set) var companies: [Bool] = []

        init(_ rows: [ReceiptLine]) {
            self.rows = rows
            let texts = rows.map(confidentText)
            names = zip(rows, texts).map { clean($1, keeping: surelyRead($0)) }
            heights = rows.map(textHeight)
            let sortedHeights = heights.compactMap { $0 }.sorted()
            let typicalHeight = sortedHeights.isEmpty ? nil : sortedHeights[sortedHeights.count / 2]
            var addressSeen = false
            for (position, line) in rows.enumerated() {
                let row = NameRow(line, position: position, name: names[position], afterAddress: addressSeen,
                                  height: heights[position], typicalHeight: typicalHeight)
                companies.append(row.company)
                guard looksLikeName(row) else {
                    if isAddress(line.text) { addressSeen = true }
                    scores.append(nil)
                    continue
                }
                let slogan = isSlogan(row.label) || endsLikeASentence(texts[position], label: row.label)
                scores.append(slogan || logoFragment(row) ? nil : nameScore(row))
            }
        }

        /// May be the name.
        func plausible(_ i: Int) -> Bool { scores[i] != nil }

        /// The best-scoring row (the first on a tie).
        var best: Best? {
            var best: Best? = nil
            for (i, score) in scores.enumerated() {
                guard let score else { continue }
                if best == nil || score > best!.score { best = Best(name: names[i], score: score, row: i, company: companies[i]) }
            }
            return best
        }

        /// The finding for a name read from some of the header's rows; `score` is the best row's.
        func finding(_ name: String, rows used: ClosedRange<Int>, score: Double) -> VendorFinding {
            let usedRows = rows[used]
            let box = usedRows.compactMap(\.box).reduce(nil as BoundingBox?) { partial, next in partial.map { $0.union(next) } ?? next }
            return VendorFinding(name: name, confidence: min(0.9, max(0.2, score / 25)),
                                 readConfidence: usedRows.map(weakestWord).min() ?? 100,
                                 meanConfidence: usedRows.map(\.confidence).reduce(0, +) / Double(usedRows.count), box: box,
                                 words: usedRows.flatMap(\.words))
        }
    }

    /// The best-scoring row.
    private struct Best {
        var name: String
        var score: Double
        var row: Int
        var company: Bool
    }

    /// The name as it grows by the rows around the best one.
    private struct Choice {
        var name: String
        var row: Int
        var company: Bool
        var used: ClosedRange<Int>
        /// The row above was joined (`joinContinuation`).
        var joinedAbove = false

        init(_ best: Best) {
            name = best.name
            row = best.row
            company = best.company
            used = best.row...best.row
        }
    }

    // MARK: - Which rows may be the name

    /// A plausible name (`isPlausibleName`), on a row that is not a US city line nor contact
    /// details (unless it names a company), or a name after a street (`namedAfterStreet`).
    private static func looksLikeName(_ row: NameRow) -> Bool {
        namedAfterStreet(row)
            || isPlausibleName(row.name, label: row.label) && !(usCityLine.matches(row.line.upper) && !row.company) && !hasPhoneNumber(row)
    }

    /// "ONE MILL STREET" as the first, clearly read row with no house number is a name.
    private static func namedAfterStreet(_ row: NameRow) -> Bool {
        row.position == 0 && row.line.confidence >= 85 && !row.name.contains(where: \.isNumber)
            && row.label.hasAny(addressWords) && isPlausibleName(row.name, label: row.label, allowAddressWords: true)
    }

    /// A phone number on the row ("myNEWScareline : 1800 88 1231") makes it contact details.
    private static func hasPhoneNumber(_ row: NameRow) -> Bool {
        row.line.text.contains(where: \.isNumber) && phonePattern.matches(row.line.text) && !row.company
    }

    /// Low-confidence fragments ("ies", "Map. iO") are what OCR makes of logos and stains.
    private static func logoFragment(_ row: NameRow) -> Bool {
        row.line.confidence < 50 && (row.label.words.map(\.count).max() ?? 0) < 5
    }

    // MARK: - Scoring a row as the name

    /// A row's score as the name: 10 for the first row, 1.2 less for each row down, then each of
    /// `nameScoreRules` in turn.
    private static func nameScore(_ row: NameRow) -> Double {
        nameScoreRules.reduce(10 - Double(row.position) * 1.2) { score, rule in score + rule(row) }
    }

    private static let nameScoreRules: [@Sendable (NameRow) -> Double] = [
        printSize, companyForm, belowAddress, ownerNamed, readConfidence, nameLength, inCapitals,
    ]

    /// Print size: larger than the header's typical text counts for the row (up to 3), smaller
    /// against it (down to -1), when the row was read with some confidence.
    private static func printSize(_ row: NameRow) -> Double {
        guard let h = row.height, let typical = row.typicalHeight, typical > 0, row.line.confidence >= 45 else { return 0 }
        return min(3, max(-1, 3 * (Double(h) / Double(typical) - 1)))
    }

    /// A company name; the legal entity in small print further down ("UNIT OF … LLP") counts less.
    private static func companyForm(_ row: NameRow) -> Double {
        row.company ? (row.position <= 4 ? 9 : 5) : 0
    }

    /// Below an address (and no company name).
    private static func belowAddress(_ row: NameRow) -> Double {
        row.afterAddress && !row.company ? -4 : 0
    }

    /// Naming the owner of the business ("OPERATED BY …").
    private static func ownerNamed(_ row: NameRow) -> Double {
        row.owner ? -4 : 0
    }

    /// OCR confidence: above 70 counts for the row, below against it.
    private static func readConfidence(_ row: NameRow) -> Double {
        (row.line.confidence - 70) / 15
    }

    /// Letters: up to 2 for a name of 12 letters or more.
    private static func nameLength(_ row: NameRow) -> Double {
        min(2, Double(row.name.filter(\.isLetter).count) / 6)
    }

    /// Printed in capitals.
    private static func inCapitals(_ row: NameRow) -> Double {
        row.name == row.name.uppercased() ? 0.5 : 0
    }

    // MARK: - The rows around the best one

    /// A brand printed above the operator's legal name (the best row, a company), within two
    /// rows: the trading name wins.
    private static func brandAboveCompany(_ best: Best, _ header: Header) -> Int? {
        guard best.company else { return nil }
        return logoSizedBrand(above: best, header) ?? brandStartingName(above: best, header)
    }

    /// A logo-sized brand right above the operator's legal name ("FamilyMart" over
    /// "Maxincome Resources Sdn Bhd").
    private static func logoSizedBrand(above best: Best, _ header: Header) -> Int? {
        guard let companyHeight = header.heights[best.row], companyHeight > 0 else { return nil }
        return (max(0, best.row - 2)..<best.row).last(where: { i in
            header.plausible(i) && header.rows[i].confidence >= 80 && header.names[i].filter(\.isLetter).count >= 4
                && !LabelText(header.names[i]).hasAny(companySuffixes)
                && Double(header.heights[i] ?? 0) >= 2.5 * Double(companyHeight)
        })
    }

    /// A brand printed above the legal name that starts with it ("Harbourline Insurance" over
    /// "Harbourline Insurance Services Ltd").
    private static func brandStartingName(above best: Best, _ header: Header) -> Int? {
        (max(0, best.row - 2)..<best.row).first(where: { i in
            header.plausible(i) && header.names[i].count >= 4
                && NameMatching.normalized(best.name).hasPrefix(NameMatching.normalized(header.names[i]))
        })
    }

    /// A row that only continues the name above it: "(SEMENYIH) SDN BHD", "TRADING", "SDN. BHD.".
    /// A row of specks between the two (what OCR makes of a logo's edge or a stain: "aa y - |")
    /// is passed over.
    private static func joinContinuation(_ choice: inout Choice, _ header: Header) {
        let row = choice.row, names = header.names
        guard row > 0 else { return }
        var above = row - 1
        if above > 0, names[above].filter(\.isLetter).count < 3, !header.plausible(above) { above -= 1 }
        guard header.plausible(above) || names[above].filter(\.isLetter).count >= 4,
              isContinuation(names[row]), !isAddress(names[above]),
              !LabelText(names[above]).hasAny(skipWords) else { return }
        choice.name = names[above] + " " + choice.name
        choice.joinedAbove = true
        choice.used = above...row
    }

    /// A one-word brand over what the business is: "SPARKLE" / "HAND CAR WASH".
    private static func joinBusinessBelow(_ choice: inout Choice, _ header: Header) {
        let row = choice.row, names = header.names
        guard row + 1 < header.rows.count, header.plausible(row + 1), LabelText(choice.name).words.count == 1,
              !choice.company, !isAddress(names[row + 1]) else { return }
        let next = LabelText(names[row + 1])
        let sameCase = (names[row + 1] == names[row + 1].uppercased()) == (choice.name == choice.name.uppercased())
        if sameCase, (2...4).contains(next.words.count), let last = next.words.last, businessWords.contains(last),
           (textHeight(header.rows[row + 1]) ?? 0) <= (textHeight(header.rows[row]) ?? Int.max) {
            choice.name += " " + names[row + 1]
            choice.used = row...(row + 1)
        }
    }

    /// A company suffix printed on the next row ("ABC TRADING" / "SDN BHD (12345-X)",
    /// "AIK HUAT ENTERPRISE" / "(SETIA ALAM) SDN BHD"). `label` is the name's so far.
    private static func joinSuffixBelow(_ choice: inout Choice, label: LabelText, _ header: Header) {
        let row = choice.row, names = header.names
        let legal = ["SDN", "BHD", "BERHAD", "LTD", "LIMITED", "INC", "LLC", "GMBH", "PLC"]
        guard row + 1 < header.rows.count, !label.hasAny(["SDN", "BHD", "BERHAD", "S B", "LTD", "LIMITED", "INC", "LLC", "GMBH"]) else { return }
        let next = LabelText(names[row + 1])
        if let first = next.words.first, let last = next.words.last,
           legal.contains(first) || legal.contains(last) && next.words.count <= 4 && !isAddress(names[row + 1]) {
            choice.name += " " + names[row + 1]
            choice.company = true
            choice.used = choice.used.lowerBound...(row + 1)
        }
    }

    /// A company name wrapped over two rows: "LEMON TREE RESTAURANT" / "JTJ FOODS SDN BHD".
    /// `label` is the name's before `joinSuffixBelow`.
    private static func joinWrappedName(_ choice: inout Choice, label: LabelText, _ header: Header) {
        let row = choice.row, names = header.names, rows = header.rows
        guard choice.company, row > 0, header.plausible(row - 1), label.words.count <= 5,
              similarHeight(rows[row - 1], rows[row]),
              rows[row - 1].confidence >= 60, !LabelText(names[row - 1]).hasAny(companySuffixes),
              names[row - 1].filter(\.isLetter).count >= 4,
              (names[row - 1] == names[row - 1].uppercased()) == (choice.name == choice.name.uppercased()) else { return }
        choice.name = names[row - 1] + " " + choice.name
        choice.used = (row - 1)...choice.used.upperBound
    }

    package static let ownerPhrases: PhraseList = ["UNIT OF", "DIVISION OF", "OPERATED BY", "OWNED BY", "MANAGED BY", "A MEMBER OF",
                                           "FRANCHISEE OF", "SUBSIDIARY OF"]

    /// Greetings and slogans: several little words ("Welcome To The", "Your fast and friendly
    /// checkout was"), or opening with YOUR / OUR / WE.
    package static func isSlogan(_ label: LabelText) -> Bool {
        let little: Set<String> = ["THE", "TO", "YOUR", "OUR", "WE", "YOU", "WAS", "AND", "FOR", "ARE", "IS", "OF", "AT", "WITH", "BE", "IT", "NOT", "WILL", "ALL", "PLEASE"]
        guard let first = label.words.first else { return false }
        if ["YOUR", "OUR", "WE"].contains(first) { return true }
        let count = label.words.filter(little.contains).count
        return count >= 2 && Double(count) >= 0.4 * Double(label.words.count)
    }

    /// A row that ends like a sentence, in a lowercase word and a stop or a comma: a strapline
    /// ("Gourmet without attitude,", "More saving.", "You decide what's inside."), not a name
    /// ("Pizza Hut Inc." ends in a company form, "Smith & Co." in a capital).
    package static func endsLikeASentence(_ text: String, label: LabelText) -> Bool {
        let tokens = text.split(whereSeparator: \.isWhitespace)
        guard tokens.count >= 2, let last = tokens.last, let stop = last.last, ".,!".contains(stop),
              !label.hasAny(companySuffixes) else { return false }
        let word = last.dropLast()
        return word.count >= 3 && word.allSatisfy { $0.isLowercase || $0 == "'" || $0 == "’" }
    }

    /// Words that say what a business is, ending a name's second row.
    package static let businessWords: Set<String> = [
        "WASH", "CARWASH", "RESTAURANT", "CAFE", "BAKERY", "HOTEL", "BAR", "GRILL", "KITCHEN", "PHARMACY", "MARKET",
        "SUPERMARKET", "STORE", "SHOP", "GARAGE", "MOTORS", "TYRES", "PARKING", "DINER", "PIZZERIA", "BISTRO", "DELI",
        "STATION", "SERVICES", "CENTRE", "CENTER", "PUB", "INN", "TAVERN", "BRASSERIE", "TRATTORIA", "FOODS",
    ]

    /// Rows that cannot be a name by themselves: only company-form words, or a bracketed
    /// branch or region followed by the company form.
    package static func isContinuation(_ name: String) -> Bool {
        let label = LabelText(name)
        let forms: Set<String> = ["SDN", "BHD", "BERHAD", "S", "B", "SB", "TRADING", "ENTERPRISE", "ENTERPRISES", "LTD",
                                  "LIMITED", "PLC", "INC", "LLC", "GMBH", "PTE", "CO", "CORP", "CORPORATION", "M"]
        guard !label.words.isEmpty else { return false }
        if label.words.allSatisfy(forms.contains) { return true }
        return name.hasPrefix("(") && label.hasAny(["SDN BHD", "SDN", "BHD", "BERHAD", "S B", "LTD", "PTE"])
    }

    /// The lowest OCR confidence among the row's words of three or more letters (its mean when
    /// it has none): one misread word spoils a name.
    package static func weakestWord(_ line: ReceiptLine) -> Double {
        let words = line.words.filter { $0.text.filter(\.isLetter).count >= 3 }
        return words.map(\.confidence).min() ?? line.confidence
    }

    /// The height of the row's capital-size text (its tallest words), nil without word boxes.
    package static func textHeight(_ line: ReceiptLine) -> Int? {
        let heights = line.words.filter { $0.text.filter(\.isLetter).count >= 2 }.map(\.box.height).sorted()
        guard !heights.isEmpty else { return nil }
        return heights[(heights.count - 1) * 3 / 4]
    }

    /// The row's text without low-confidence specks at either end.
    package static func confidentText(_ line: ReceiptLine) -> String {
        guard !line.words.isEmpty else { return line.text }
        var words = line.words[...]
        func speck(_ w: OCRWord) -> Bool {
            // ("Sere," after "Panera Bread": its punctuation does not make it a word.)
            w.confidence < 40 && (w.text.count <= 2 || w.text != w.text.uppercased() && w.text.filter(\.isLetter).count <= 4)
        }
        while words.count > 1, let w = words.first, speck(w) { words = words.dropFirst() }
        while words.count > 1, let w = words.last, speck(w) { words = words.dropLast() }
        return words.map(\.text).joined(separator: " ")
    }

    /// Which ends of a row are words read with certainty (confidence 95 or more, letters only):
    /// a widely spaced logo read as `m eijer` or `Li quor Library`, and names such as `El Farol`
    /// or `FLYING J`, keep their short words there (`dropJunkAtEnds` would take them for specks).
    package static func surelyRead(_ line: ReceiptLine) -> NameEnds {
        func sure(_ word: OCRWord?) -> Bool {
            guard let word, line.words.count > 1 else { return false }
            return word.confidence >= 95 && word.text.allSatisfy(\.isLetter)
        }
        return NameEnds(first: sure(line.words.first), last: sure(line.words.last))
    }

    /// Ends of a name's row that cleaning keeps as they are.
    package struct NameEnds: Sendable {
        var first = false
        var last = false
    }

    /// Printed in the same font size (a logo line is taller than the legal name under it).
    package static func similarHeight(_ a: ReceiptLine, _ b: ReceiptLine) -> Bool {
        guard let ha = a.words.map(\.box.height).max(), let hb = b.words.map(\.box.height).max(), ha > 0, hb > 0 else { return true }
        return Double(max(ha, hb)) <= 1.3 * Double(min(ha, hb))
    }

    package static func isAddress(_ text: String) -> Bool {
        let label = LabelText(text)
        return label.hasAny(addressWords) || postcodePattern.matches(text.uppercased())
    }

    package static func isPlausibleName(_ name: String, label: LabelText, allowAddressWords: Bool = false) -> Bool {
        let letters = name.filter(\.isLetter).count
        guard letters >= 3 else { return false }
        let visible = name.filter { !$0.isWhitespace }.count
        guard Double(letters) / Double(max(1, visible)) >= 0.6 else { return false }
        if label.hasAny(skipWords) && !label.hasAny(companySuffixes) { return false }
        if !allowAddressWords && label.hasAny(addressWords) && !label.hasAny(companySuffixes) { return false }
        if phonePattern.matches(name) { return false }
        if postcodePattern.matches(name.uppercased()) && !label.hasAny(companySuffixes) { return false }
        // Mostly one-letter fragments: OCR noise. ("MR D.I.Y. (M)" is fine: its tokens are whole.)
        let tokens = name.split(whereSeparator: \.isWhitespace)
        let solid = tokens.filter { $0.filter { $0.isLetter || $0.isNumber }.count >= 2 }
        guard label.words.contains(where: { $0.count >= 3 }),
              Double(solid.count) / Double(max(1, tokens.count)) >= 0.5 else { return false }
        // A branch name in brackets: "(IOI PUCHONG)".
        if name.hasPrefix("(") && name.hasSuffix(")") { return false }
        return true
    }

    /// Removes OCR noise around a name: stray punctuation, one-letter fragments at the ends,
    /// and common misreadings of company suffixes (`SON BHD` → `SDN BHD`). The row's tokens
    /// (`nameTokens`) go through each of `cleaningSteps` in turn, then are joined (`joinedName`).
    /// `keeping` names ends read with certainty, which are not dropped as specks.
    package static func clean(_ text: String, keeping ends: NameEnds = NameEnds()) -> String {
        joinedName(cleaningSteps(ends).reduce(nameTokens(text)) { tokens, step in step(tokens) })
    }

    /// The row's tokens, a registration number glued to a token split off and misread characters
    /// mended (`mendedToken`).
    private static func nameTokens(_ text: String) -> [String] {
        text.split(whereSeparator: \.isWhitespace).flatMap { token -> [Substring] in
            // "RETAIL SB(306295-X)": a registration number glued to the name.
            guard let open = token.firstIndex(of: "("), open != token.startIndex,
                  token[open...].filter(\.isNumber).count >= 4 else { return [token] }
            return [token[..<open], token[open...]]
        }.map(mendedToken)
    }

    /// Brackets read as braces or square brackets, `S/B` and a final `I` misread, a digit among
    /// letters (`lettersForDigit`).
    private static func mendedToken(_ token: Substring) -> String {
        var t = lettersForDigit(String(token))
        if t.contains(where: { "{}[]".contains($0) }) {
            t = String(t.map { c -> Character in c == "{" || c == "[" ? "(" : c == "}" || c == "]" ? ")" : c })
        }
        // "$/B", "5/B": the "S/B" (Sendirian Berhad) suffix misread.
        if t.count == 3, t.hasSuffix("/B") || t.hasSuffix("/8") || t.hasSuffix("/R"), "$5S".contains(t.first!) { return "S/B" }
        // "JIAWE|", "JIAWE!": a final I read as a bar.
        if t.count >= 4, let last = t.last, last == "|" || last == "!",
           t.dropLast().suffix(3).allSatisfy({ $0.isLetter && $0.isUppercase }) { t = String(t.dropLast()) + "I" }
        return t
    }

    /// One digit among the letters of a word is a letter misread: `C0.` → `CO.`, `S0ON` → `SOON`,
    /// `8OOK` → `BOOK`, `1DEA` → `IDEA`, `1ndia` → `India`, `vi1lage` → `village`. A 0 anywhere (with a letter
    /// beside it); a 1, 5 or 8 only with letters on both sides or opening three letters or more,
    /// so `A1`, `B2B`, `HTB001` and `7-ELEVEN` stay as printed.
    package static func lettersForDigit(_ token: String) -> String {
        let chars = Array(token)
        let digits = chars.indices.filter { chars[$0].isASCIIDigit }
        guard digits.count == 1, let i = digits.first else { return token }
        let core = chars.filter { !".,".contains($0) }
        guard core.allSatisfy({ $0.isLetter || $0.isASCIIDigit }) else { return token }
        let before = i > chars.startIndex ? chars[i - 1] : nil, after = i + 1 < chars.count ? chars[i + 1] : nil
        let lower = [before, after].compactMap { $0 }.filter(\.isLetter).allSatisfy(\.isLowercase)
        let letter: Character
        switch chars[i] {
        case "0":
            guard before?.isLetter == true || after?.isLetter == true, !lower else { return token }
            letter = "O"
        case "1", "5", "8":
            let inside = before?.isLetter == true && after?.isLetter == true
            let opening = i == 0 && chars.dropFirst().prefix(3).count == 3 && chars.dropFirst().prefix(3).allSatisfy(\.isLetter)
            guard inside || opening else { return token }
            // Opening a word it is a capital (`1ndia` → `India`).
            let small = lower && !opening
            switch chars[i] {
            case "1": letter = small ? "l" : "I"
            case "5": letter = small ? "s" : "S"
            default:
                guard !small else { return token }
                letter = "B"
            }
        default: return token
        }
        var mended = chars
        mended[i] = letter
        return String(mended)
    }

    /// The steps `clean` takes over a name's tokens, in order.
    private static func cleaningSteps(_ ends: NameEnds) -> [@Sendable ([String]) -> [String]] { [
        keepStoreNumber, trimPunctuation, { dropJunkAtEnds($0, keeping: ends) }, mendSdnBhd, dropRegistrationNumber, dropAddressAfterCompanyForm,
        dropBracketedNumber, dropTrailingNumbers, completeSdnBhd, mendInitialsAndSuffixes,
    ] }

    /// "Sports Authority # 484": the store number stays with the name.
    private static func keepStoreNumber(_ tokens: [String]) -> [String] {
        var tokens = tokens
        for i in tokens.indices.dropLast().reversed() where tokens[i] == "#" && tokens[i + 1].allSatisfy(\.isASCIIDigit) {
            tokens[i] += tokens.remove(at: i + 1)
        }
        return tokens
    }

    /// Punctuation around the tokens (but brackets, apostrophes, dots, `&` and `#`), and specks
    /// glued to a word.
    private static func trimPunctuation(_ tokens: [String]) -> [String] {
        let trim = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "&()'.#")).inverted
        return tokens.map { $0.trimmingCharacters(in: trim) }.filter { !$0.isEmpty }.map { t in
            // "—sSUBANG": a speck read as a small letter glued to a capitalised word.
            t.count >= 5 && t.first!.isLowercase && t.dropFirst().allSatisfy({ $0.isUppercase && $0.isLetter }) ? String(t.dropFirst()) : t
        }
    }

    /// One-letter fragments (but `&`), two-letter ones not in capitals and punctuation at either
    /// end. A capital letter opening a name in capitals is an initial, not a fragment: "L TWO
    /// FLORIST", "B & BEST RESTAURANT", "C W KHOO HARDWARE".
    private static func dropJunkAtEnds(_ tokens: [String], keeping ends: NameEnds = NameEnds()) -> [String] {
        func isJunk(_ t: String) -> Bool {
            t.count == 1 && t != "&" || t.count == 2 && t != t.uppercased() || !t.contains(where: { $0.isLetter || $0.isNumber })
        }
        /// A capital letter (not `I`: a bar, a border or a logo's stroke is read as one) before
        /// words in capitals with at least four letters.
        func isInitial(_ i: Int) -> Bool {
            guard tokens[i].count == 1, let c = tokens[i].first, c.isUppercase, c.isLetter, c != "I" else { return false }
            let rest = tokens[(i + 1)...].filter { $0.contains(where: \.isLetter) }
            return rest.allSatisfy { $0 == $0.uppercased() } && rest.joined().filter(\.isLetter).count >= 4
        }
        // The initials opening the name, and `&`s after them, kept as they are.
        var kept = 0
        while kept < tokens.count - 1, isInitial(kept) || kept > 0 && tokens[kept] == "&" { kept += 1 }
        if kept > 0 { return Array(tokens[..<kept]) + dropJunkAtEnds(Array(tokens[kept...]), keeping: NameEnds(last: ends.last)) }
        var tokens = tokens
        while !ends.first, tokens.count > 1, let first = tokens.first, isJunk(first) { tokens.removeFirst() }
        while !ends.last, tokens.count > 1, let last = tokens.last, isJunk(last) { tokens.removeLast() }
        return tokens
    }

    /// "SON BHD", "SDN BILD", "SIN BHD": the Malaysian company suffix misread.
    private static func mendSdnBhd(_ tokens: [String]) -> [String] {
        var tokens = tokens
        for i in tokens.indices.dropLast() {
            let a = tokens[i].uppercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")),
                b = tokens[i + 1].uppercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
            // "SDA RMD": both misread, the second still ending in the D of BHD.
            if a.count == 3, LabelText.editDistance(a, "SDN") <= 1, (3...4).contains(b.count),
               LabelText.editDistance(b, "BHD") <= (b.count == 4 ? 2 : 1)
                || a.hasPrefix("SD") && b.count == 3 && b.hasSuffix("D") && b.allSatisfy(\.isLetter) {
                tokens[i] = tokens[i].hasSuffix(".") ? "SDN." : "SDN"
                tokens[i + 1] = tokens[i + 1].hasSuffix(".") ? "BHD." : "BHD"
            }
        }
        return tokens
    }

    /// Registration numbers after the name: "(1248717-W)", "273500-U", "(139386 X)".
    private static func dropRegistrationNumber(_ tokens: [String]) -> [String] {
        var tokens = tokens
        let legalForms: Set<String> = ["BHD", "BHD.", "S/B", "BERHAD", "LTD", "LTD.", "LIMITED", "SB"]
        if let suffixEnd = tokens.lastIndex(where: { legalForms.contains($0.uppercased()) }),
           suffixEnd + 1 < tokens.count,
           tokens[(suffixEnd + 1)...].contains(where: { $0.filter(\.isNumber).count >= 2 }) {
            tokens.removeSubrange((suffixEnd + 1)...)
        } else if let suffixEnd = tokens.indices.dropLast().first(where: { legalForms.contains(tokens[$0].uppercased())
                      && tokens[$0 + 1].hasPrefix("(") && tokens[$0 + 1].filter(\.isNumber).count >= 4 }) {
            // "MYNEWS RETAIL SB (306295-X) FKA BISON STORES SB": the name ends at its number.
            tokens.removeSubrange((suffixEnd + 1)...)
        }
        return tokens
    }

    /// "… Services Ltd, 3 Quay Street": the address after the company form.
    private static func dropAddressAfterCompanyForm(_ tokens: [String]) -> [String] {
        var tokens = tokens
        if let suffixEnd = tokens.firstIndex(where: { ["LTD", "LTD.", "LTD,", "LIMITED", "LIMITED,", "PLC", "PLC,", "LLC", "LLC,", "INC", "INC.", "INC,", "GMBH", "GMBH,"].contains($0.uppercased()) }),
           suffixEnd + 1 < tokens.count, tokens[suffixEnd + 1].first?.isNumber == true || isAddress(tokens[(suffixEnd + 1)...].joined(separator: " ")) {
            tokens.removeSubrange((suffixEnd + 1)...)
        }
        return tokens
    }

    /// A bracketed registration number split over tokens at the end: "(139386 X)".
    private static func dropBracketedNumber(_ tokens: [String]) -> [String] {
        var tokens = tokens
        if let open = tokens.lastIndex(where: { $0.hasPrefix("(") }), open > 0, tokens.last?.hasSuffix(")") == true,
           tokens[open...].joined().filter(\.isNumber).count >= 4 {
            tokens.removeSubrange(open...)
        }
        return tokens
    }

    /// Numbers at the end (three digits or more, or bracketed), but a store number (`#484`).
    private static func dropTrailingNumbers(_ tokens: [String]) -> [String] {
        var tokens = tokens
        while tokens.count > 1, let last = tokens.last, !last.hasPrefix("#"),
              last.filter(\.isNumber).count >= 3 || last.hasPrefix("(") && last.contains(where: \.isNumber) {
            tokens.removeLast()
        }
        return tokens
    }

    /// SDN is always followed by BHD: "… SDN. pro", "… SDN" at the end of the row, "… SDR".
    private static func completeSdnBhd(_ tokens: [String]) -> [String] {
        var tokens = tokens
        if let last = tokens.last?.uppercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")), tokens.count >= 2 {
            let previous = tokens[tokens.count - 2].uppercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
            if last == "SDN" || last.count == 3 && LabelText.editDistance(last, "SDN") == 1 && last.hasPrefix("SD") {
                tokens[tokens.count - 1] = "SDN"
                tokens.append("BHD")
            } else if previous == "SDN", last != "BHD", last.count <= 4, !last.contains(where: \.isNumber) {
                tokens[tokens.count - 1] = "BHD"
            }
        }
        return tokens
    }

    /// Dotted initials (`mendedInitials`), `S/B` misread, and `¥` read for Y.
    private static func mendInitialsAndSuffixes(_ tokens: [String]) -> [String] {
        tokens.map { t in
            if let initials = mendedInitials(t) { return initials }
            switch t.uppercased() {
            case "5/B", "S/8", "5/8": return "S/B"
            case _ where t.contains("¥"): return t.replacingOccurrences(of: "¥", with: "Y")
            default: return t
            }
        }
    }

    /// Dotted initials: "D.1.Y." is D.I.Y.; a letter read twice ("D.I.YY.", "D.I.Y¥.") is one.
    private static func mendedInitials(_ t: String) -> String? {
        guard t.count >= 4, t.filter({ $0 == "." }).count >= 2 else { return nil }
        let parts = t.split(separator: ".", omittingEmptySubsequences: false).map { part -> String in
            let mapped = String(part.map { c -> Character in c == "1" ? "I" : c == "0" ? "O" : c == "¥" ? "Y" : c })
            return mapped.count == 2 && mapped.first == mapped.last && mapped.first!.isLetter ? String(mapped.prefix(1)) : mapped
        }
        guard parts.filter({ !$0.isEmpty }).count >= 2, parts.allSatisfy({ $0.count <= 1 }) else { return nil }
        return parts.joined(separator: ".")
    }

    /// The tokens joined, an apostrophe misread before a final S mended (`McDonald?s`), a final
    /// `BHO` read for BHD, and punctuation at the ends trimmed.
    private static func joinedName(_ tokens: [String]) -> String {
        var name = tokens.joined(separator: " ")
        if name.contains(where: { $0 == "?" || $0 == "’" || $0 == "`" }) {
            name = name.replacingOccurrences(of: #"(?<=[A-Za-z])[?’`](?=[Ss]\b)"#, with: "'", options: .regularExpression)
        }
        if name.uppercased().hasSuffix(" BHO") { name = String(name.dropLast(3)) + "BHD" }
        return name.trimmingCharacters(in: CharacterSet(charactersIn: " .,:;-_|"))
    }
}
