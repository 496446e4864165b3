import Foundation
import ReceiptModel

/// A tax or registration number read from a receipt.
package struct TaxIdFinding: Sendable {
    package var value: String
    package var scheme: String
    package var checked: Bool
    package var line: ReceiptLine
    package var words: [OCRWord]
    package var confidence: Double
}

/// Finds the shop's tax or registration number: after its label (`VAT No`, `GST ID`, `ABN`,
/// `USt-IdNr`, `P.IVA`, `Co. Reg. No`…), or written with its country's prefix (`GB 123 4567 89`,
/// `DE136695976`), or as a Malaysian company number in brackets (`(860671-D)`). A number of a
/// scheme with check digits is given only when they pass (`TaxIdScheme`). Of several, one that
/// passes its check digits, then a labelled tax number, then a registration number.
package enum TaxIdFinder {
    /// A label and the schemes its number is read as, most specific first.
    struct Label {
        let pattern: Pattern
        let schemes: [TaxIdScheme]
        /// 2: a tax number; 1: a company's registration.
        let rank: Int
    }

    static let europe: [TaxIdScheme] = [.gbVAT, .deVAT, .frVAT, .itVAT, .esVAT, .nlVAT, .beVAT, .atVAT, .ptVAT, .plVAT]

    static let labels: [Label] = [
        Label(pattern: Pattern(#"\bGSTIN\b[\s:.#-]*"#), schemes: [.inGSTIN], rank: 2),
        Label(pattern: Pattern(#"\bABN\b[\s:.#-]*"#), schemes: [.auABN], rank: 2),
        Label(pattern: Pattern(#"\b(?:F?EIN|TAX\s*ID)\b(?:\s*(?:NO|NUMBER|#))?[\s:.#-]*"#), schemes: [.usEIN], rank: 2),
        Label(pattern: Pattern(#"\bSST\b(?:\s*(?:ID|NO|REG(?:\s*NO)?|REGISTRATION(?:\s*NO)?))?[\s:.#-]*"#), schemes: [.mySST, .myTax], rank: 2),
        Label(pattern: Pattern(#"\bGST\b(?:\s*(?:ID|NO|REG(?:\s*NO)?|REGISTRATION(?:\s*NO)?|REG\.?\s*ID))?[\s:.#-]*"#),
              schemes: [.myTax, .inGSTIN, .registration], rank: 2),
        Label(pattern: Pattern(#"\b(?:VAT|MWST|UST|TVA|BTW|IVA|MOMS|ALV|DPH)(?:[\s.-]*(?:REG(?:ISTRATION)?|ID(?:NR)?|NO|NR|NUMBER|N°|#|IDNR))*[\s:.#-]*"#),
              schemes: europe + [.siren], rank: 2),
        Label(pattern: Pattern(#"\b(?:UST[\s.-]*ID[\s.-]*NR|USt-?IdNr|UID(?:[\s.-]*NR)?|P\.?\s?IVA|PARTITA\s+IVA|N\.?\s?I\.?\s?F|C\.?\s?I\.?\s?F|NIP|SIRET|SIREN|CODICE\s+FISCALE)\b[\s:.#-]*"#),
              schemes: europe + [.siret, .siren], rank: 2),
        Label(pattern: Pattern(#"\b(?:CO\.?\s*REG(?:N|ISTRATION)?|COMPANY\s*(?:REG(?:ISTRATION)?\s*)?NO|REG(?:ISTRATION)?\.?\s*NO|ROC|BUSINESS\s*(?:REG\s*)?NO)\b[\s:.#-]*"#),
              schemes: [.registration], rank: 1),
    ]

    /// A number written with its country's prefix, anywhere on the receipt.
    static let prefixed = Pattern(#"\b(GB|DE|FR|IT|ES|NL|BE|AT|PT|PL)\s?((?:U)?[0-9A-Z]{2}[0-9 ]{7,14}(?:B\d{2})?)\b"#, caseInsensitive: false)
    /// Japan's qualified invoice number: `T` and 13 digits.
    static let japanese = Pattern(#"\bT\s?(\d{13})\b"#, caseInsensitive: false)
    /// A Malaysian company's number in brackets after its name: `(860671-D)`, `(201901000005 (1234567-X))`.
    static let bracketed = Pattern(#"\((\d{5,8}\s?-\s?[A-Z])\)"#, caseInsensitive: false)

    package static func find(_ document: ReceiptDocument) -> TaxIdFinding? {
        var found: [(finding: TaxIdFinding, rank: Int)] = []
        for line in document.lines {
            let upper = line.upper
            for label in labels {
                for match in label.pattern.matches(in: upper) {
                    let after = (upper as NSString).substring(from: match.offset + ((match.groups[0] ?? "") as NSString).length)
                    if let (value, scheme) = read(after, schemes: label.schemes) {
                        found.append((finding(value, scheme, line), scheme.hasChecksum ? 3 : label.rank))
                    }
                }
            }
            for match in prefixed.matches(in: upper) {
                guard let country = match.groups[1], let body = match.groups[2],
                      let scheme = europe.first(where: { $0.name.hasPrefix(country) }),
                      let value = scheme.normalize(country + body) else { continue }
                found.append((finding(value, scheme, line), 3))
            }
            for match in japanese.matches(in: upper) {
                if let body = match.groups[1], let value = TaxIdScheme.jpNumber.normalize("T" + body) {
                    found.append((finding(value, .jpNumber, line), 3))
                }
            }
            for match in bracketed.matches(in: upper) {
                if let body = match.groups[1], let value = TaxIdScheme.registration.normalize(body) {
                    found.append((finding(value, .registration, line), 1))
                }
            }
        }
        // The strongest kind first, then the one printed first.
        return found.enumerated().max { a, b in a.element.rank != b.element.rank ? a.element.rank < b.element.rank : a.offset > b.offset }?
            .element.finding
    }

    /// The first number after a label that one of `schemes` reads: the tokens after the label
    /// taken one by one (a number may be printed in groups: `123 4567 89`), at most five.
    static func read(_ text: String, schemes: [TaxIdScheme]) -> (String, TaxIdScheme)? {
        let tokens = text.split(whereSeparator: { $0.isWhitespace }).prefix(5).map(String.init)
        var joined = ""
        var best: (String, TaxIdScheme)?
        for token in tokens {
            // A rate or an amount ends it: `VAT 20% 12.34` prints no number.
            if token.contains("%") || moneyShape.matches(token) { break }
            let part = token.trimmingCharacters(in: CharacterSet(charactersIn: ":.,;()[]"))
            guard part.contains(where: { $0.isNumber }) || (joined.isEmpty && part.count <= 3 && part.allSatisfy(\.isLetter)) else { break }
            joined += part
            // Of the schemes that read it, one whose check digits pass first, else the first listed;
            // a longer reading of the number replaces a shorter one of a scheme without check digits.
            let readings = schemes.compactMap { scheme in scheme.normalize(joined).map { ($0, scheme) } }
            if let pick = readings.first(where: { $0.1.hasChecksum }) ?? readings.first { best = pick }
            if best?.1.hasChecksum == true { return best }
        }
        return best
    }

    private static let moneyShape = Pattern(#"\d[.,]\d{2}\)?$"#)

    private static func finding(_ value: String, _ scheme: TaxIdScheme, _ line: ReceiptLine) -> TaxIdFinding {
        let digits = value.filter(\.isNumber)
        let words = line.words.filter { word in
            let d = word.text.filter(\.isNumber)
            return d.count >= 2 && digits.contains(d)
        }
        let read = (words.isEmpty ? line.confidence : words.map(\.confidence).min()!) / 100
        return TaxIdFinding(value: value, scheme: scheme.name, checked: scheme.hasChecksum, line: line, words: words,
                            confidence: min(0.99, read * (scheme.hasChecksum ? 1 : 0.85)))
    }
}
