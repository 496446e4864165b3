import Foundation

/// The tax and registration numbers receipts print, by scheme: how each is written and, where the
/// scheme has one, its check digits (a number read with a slip fails them, and is not given).
///
/// Sources of the checksums: the European Commission's VIES algorithms for VAT numbers (GB, DE, FR,
/// IT, ES, NL, BE, AT, PT, PL), the Australian Business Register (ABN: weights 10,1,3,…,19, mod 89),
/// the National Tax Agency of Japan (corporate number: check digit 9 − Σ mod 9), the GSTN (India:
/// Luhn mod 36), INSEE (SIREN / SIRET: Luhn). Malaysia's GST and SST numbers, US EINs and company
/// registration numbers have no published check digit: their form alone is checked.
package struct TaxIdScheme: Sendable {
    /// `GB VAT`, `MY GST`, `AU ABN`…
    package let name: String
    /// Whether a number of this scheme carries check digits (`isValid` checks them).
    package let hasChecksum: Bool
    /// The number as the scheme writes it (letters and digits, upper case), or nil when `raw` is
    /// not one of this scheme's (its form or its check digits).
    package let normalize: @Sendable (String) -> String?

    /// The schemes tried on a number after a label, most specific first.
    package static let all: [TaxIdScheme] = [gbVAT, deVAT, frVAT, itVAT, esVAT, nlVAT, beVAT, atVAT, ptVAT, plVAT, auABN, jpNumber,
                                             inGSTIN, siret, siren]

    // MARK: Europe

    static let gbVAT = TaxIdScheme(name: "GB VAT", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "GB")
        guard s.count == 9 || s.count == 12, s.allSatisfy(\.isASCIIDigit) else { return nil }
        let d = digits(String(s.prefix(9)))
        let sum = zip(d.prefix(7), [8, 7, 6, 5, 4, 3, 2]).map(*).reduce(0, +) + d[7] * 10 + d[8]
        return sum % 97 == 0 || (sum + 55) % 97 == 0 ? "GB" + s : nil
    }

    static let deVAT = TaxIdScheme(name: "DE VAT", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "DE")
        guard s.count == 9, s.allSatisfy(\.isASCIIDigit) else { return nil }
        let d = digits(s)
        var p = 10
        for x in d.prefix(8) {
            var t = (x + p) % 10
            if t == 0 { t = 10 }
            p = (2 * t) % 11
        }
        let check = 11 - p == 10 ? 0 : 11 - p
        return check == d[8] ? "DE" + s : nil
    }

    static let frVAT = TaxIdScheme(name: "FR VAT", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "FR")
        guard s.count == 11, s.suffix(9).allSatisfy(\.isASCIIDigit), let siren = Int(s.suffix(9)), luhn(String(s.suffix(9))) else { return nil }
        if let key = Int(s.prefix(2)) { return key == (12 + 3 * (siren % 97)) % 97 ? "FR" + s : nil }
        // A key of letters (new numbers): its form only, and only written with its country.
        return strip(raw, prefix: "").hasPrefix("FR") && s.prefix(2).allSatisfy(\.isLetter) ? "FR" + s : nil
    }

    static let itVAT = TaxIdScheme(name: "IT VAT", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "IT")
        guard s.count == 11, s.allSatisfy(\.isASCIIDigit), luhn(s) else { return nil }
        return "IT" + s
    }

    static let esVAT = TaxIdScheme(name: "ES NIF", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "ES")
        guard s.count == 9 else { return nil }
        let letters = Array("TRWAGMYFPDXBNJZSQVHLCKE")
        let chars = Array(s)
        // DNI (8 digits and a letter) or NIE (X, Y or Z, 7 digits and a letter).
        if let last = chars.last, last.isLetter {
            var body = String(chars.dropLast())
            if let first = body.first, "XYZ".contains(first) { body = String("XYZ".firstIndex(of: first)!.utf16Offset(in: "XYZ")) + body.dropFirst() }
            if body.count == 8, let n = Int(body) { return letters[n % 23] == last ? "ES" + s : nil }
        }
        // CIF: a letter, 7 digits, a control digit or letter.
        guard let first = chars.first, first.isLetter, chars[1..<8].allSatisfy(\.isASCIIDigit) else { return nil }
        let d = chars[1..<8].map { Int(String($0))! }
        var sum = 0
        for (i, x) in d.enumerated() { sum += i % 2 == 0 ? (x * 2) / 10 + (x * 2) % 10 : x }
        let control = (10 - sum % 10) % 10
        let mark = chars[8]
        return mark == Character(String(control)) || mark == Array("JABCDEFGHI")[control] ? "ES" + s : nil
    }

    static let nlVAT = TaxIdScheme(name: "NL VAT", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "NL")
        guard s.count == 12, s.prefix(9).allSatisfy(\.isASCIIDigit), s.dropFirst(9).first == "B",
              s.suffix(2).allSatisfy(\.isASCIIDigit) else { return nil }
        let d = digits(String(s.prefix(9)))
        let old = zip(d.prefix(8), [9, 8, 7, 6, 5, 4, 3, 2]).map(*).reduce(0, +) - d[8]
        // Since 2020 sole traders' numbers are checked mod 97 over "NL" and the number, letters as 10…35.
        let text = "NL" + s
        var remainder = 0
        for c in text {
            let value = c.isASCIIDigit ? String(c) : String(Int(c.asciiValue! - 55))
            for digit in value { remainder = (remainder * 10 + Int(String(digit))!) % 97 }
        }
        return old % 11 == 0 || remainder == 1 ? text : nil
    }

    static let beVAT = TaxIdScheme(name: "BE VAT", hasChecksum: true) { raw in
        var s = strip(raw, prefix: "BE")
        if s.count == 9 { s = "0" + s }
        guard s.count == 10, s.allSatisfy(\.isASCIIDigit), let body = Int(s.prefix(8)), let check = Int(s.suffix(2)) else { return nil }
        return 97 - body % 97 == check ? "BE" + s : nil
    }

    static let atVAT = TaxIdScheme(name: "AT VAT", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "AT")
        guard s.count == 9, s.first == "U", s.dropFirst().allSatisfy(\.isASCIIDigit) else { return nil }
        let d = digits(String(s.dropFirst()))
        var sum = 0
        for (i, x) in d.prefix(7).enumerated() { sum += i % 2 == 0 ? x : (x * 2) / 10 + (x * 2) % 10 }
        return (96 - sum) % 10 == d[7] ? "AT" + s : nil
    }

    static let ptVAT = TaxIdScheme(name: "PT NIF", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "PT")
        guard s.count == 9, s.allSatisfy(\.isASCIIDigit) else { return nil }
        let d = digits(s)
        let r = zip(d.prefix(8), [9, 8, 7, 6, 5, 4, 3, 2]).map(*).reduce(0, +) % 11
        return (r < 2 ? 0 : 11 - r) == d[8] ? "PT" + s : nil
    }

    static let plVAT = TaxIdScheme(name: "PL NIP", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "PL")
        guard s.count == 10, s.allSatisfy(\.isASCIIDigit) else { return nil }
        let d = digits(s)
        return zip(d.prefix(9), [6, 5, 7, 2, 3, 4, 5, 6, 7]).map(*).reduce(0, +) % 11 == d[9] ? "PL" + s : nil
    }

    static let siret = TaxIdScheme(name: "FR SIRET", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "")
        return s.count == 14 && s.allSatisfy(\.isASCIIDigit) && luhn(s) ? s : nil
    }

    static let siren = TaxIdScheme(name: "FR SIREN", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "")
        return s.count == 9 && s.allSatisfy(\.isASCIIDigit) && luhn(s) ? s : nil
    }

    // MARK: Elsewhere

    static let auABN = TaxIdScheme(name: "AU ABN", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "")
        guard s.count == 11, s.allSatisfy(\.isASCIIDigit) else { return nil }
        var d = digits(s)
        d[0] -= 1
        return zip(d, [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19]).map(*).reduce(0, +) % 89 == 0 ? s : nil
    }

    static let jpNumber = TaxIdScheme(name: "JP T-number", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "T")
        guard s.count == 13, s.allSatisfy(\.isASCIIDigit) else { return nil }
        let d = digits(s)
        var sum = 0
        for (n, x) in d.dropFirst().reversed().enumerated() { sum += x * (n % 2 == 0 ? 1 : 2) }
        return 9 - sum % 9 == d[0] ? "T" + s : nil
    }

    static let inGSTIN = TaxIdScheme(name: "IN GSTIN", hasChecksum: true) { raw in
        let s = strip(raw, prefix: "")
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard s.count == 15, s.prefix(2).allSatisfy(\.isASCIIDigit) else { return nil }
        var sum = 0
        for (i, c) in s.prefix(14).enumerated() {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            let p = v * (i % 2 == 0 ? 1 : 2)
            sum += p / 36 + p % 36
        }
        return alphabet[(36 - sum % 36) % 36] == s.last ? s : nil
    }

    /// Malaysia's GST (12 digits) and SST (`W10-1808-32000123`) registration numbers.
    static let myTax = TaxIdScheme(name: "MY GST", hasChecksum: false) { raw in
        let s = strip(raw, prefix: "")
        if s.count == 12, s.allSatisfy(\.isASCIIDigit) { return s }
        return nil
    }

    static let mySST = TaxIdScheme(name: "MY SST", hasChecksum: false) { raw in
        let s = strip(raw, prefix: "")
        guard (13...17).contains(s.count), s.first?.isLetter == true, s.dropFirst().allSatisfy(\.isASCIIDigit) else { return nil }
        return s
    }

    /// A US employer identification number (`12-3456789`).
    static let usEIN = TaxIdScheme(name: "US EIN", hasChecksum: false) { raw in
        let s = strip(raw, prefix: "")
        return s.count == 9 && s.allSatisfy(\.isASCIIDigit) && !s.hasPrefix("00") ? s : nil
    }

    /// A company registration number (`123456-X`, `201901012345`): its form only.
    static let registration = TaxIdScheme(name: "company registration", hasChecksum: false) { raw in
        let s = strip(raw, prefix: "")
        let numerals = s.filter(\.isASCIIDigit).count
        guard (5...14).contains(s.count), numerals >= 5, numerals >= s.count - 2 else { return nil }
        return s
    }

    // MARK: Helpers

    /// Letters and digits, upper case, a country prefix taken off.
    static func strip(_ raw: String, prefix: String) -> String {
        let s = raw.uppercased().filter { $0.isASCIIDigit || ("A"..."Z").contains($0) }
        return !prefix.isEmpty && s.hasPrefix(prefix) ? String(s.dropFirst(prefix.count)) : s
    }

    static func digits(_ s: String) -> [Int] { s.compactMap { $0.wholeNumberValue } }

    /// The Luhn check over all of `s`'s digits (the last one the check digit).
    static func luhn(_ s: String) -> Bool {
        var sum = 0
        for (i, x) in digits(s).reversed().enumerated() {
            let y = i % 2 == 1 ? x * 2 : x
            sum += y > 9 ? y - 9 : y
        }
        return sum % 10 == 0
    }
}
