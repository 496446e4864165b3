import ReceiptModel
/// Mends letters OCR confuses (`BAKERLES` → `BAKERIES`, `Heauty` → `Beauty`) in a name's words,
/// with the OCR language's dictionary as the judge.
///
/// Only a word that OCR read with low confidence, that the dictionary does not hold, and that
/// exactly one dictionary word explains by one confusion (or two, when one does not) is changed:
/// names are full of proper nouns (`KAISON`, `SANYU`) that a dictionary would "correct" into
/// other words, and those are mostly read with high confidence.
package enum WordRepair {
    /// Words shorter than this are left alone (too many dictionary words one letter apart).
    package static let minimumLength = 4
    /// Words read with at least this OCR confidence are taken as read, but long ones.
    package static let trustedConfidence = 85.0
    /// Words this long are checked however confidently they were read: OCR's slips in long words
    /// (`OISTRIBUTION`, `BAKERLES`) come with high confidence too, and a proper noun this long one
    /// confusion from exactly one dictionary word is rare. (Measured on the 762 labelled receipts:
    /// from 7 letters, three names mended and none spoilt; from 5, 3 more mended but 24 spoilt —
    /// `SANYU` → `SANYO`, `KAISON` → `RAISON`, `Caffe` → `Gaffe`.)
    package static let alwaysCheckedLength = 7

    /// Letters Tesseract reads for one another on receipts (each pair both ways).
    package static let confusions: [Character: [Character]] = {
        let pairs: [(Character, Character)] = [
            ("I", "L"), ("I", "T"), ("I", "J"), ("O", "U"), ("O", "D"), ("O", "Q"), ("U", "V"), ("V", "Y"),
            ("H", "B"), ("H", "N"), ("B", "G"), ("G", "C"), ("M", "W"), ("M", "N"), ("K", "R"), ("E", "F"),
        ]
        var table: [Character: [Character]] = [:]
        for (a, b) in pairs {
            table[a, default: []].append(b)
            table[b, default: []].append(a)
        }
        return table
    }()

    /// The upper-cased words of `finding`'s name worth a dictionary check: letters only, long
    /// enough, and read with low confidence or very long.
    package static func suspects(in finding: VendorFinding) -> [String] {
        var confidence: [String: Double] = [:]
        for word in finding.words {
            for token in letterRuns(word.text) {
                let key = token.uppercased()
                confidence[key] = min(confidence[key] ?? 100, word.confidence)
            }
        }
        var seen = Set<String>()
        return letterRuns(finding.name).map { $0.uppercased() }.filter { word in
            word.count >= minimumLength && ((confidence[word] ?? 100) < trustedConfidence || word.count >= alwaysCheckedLength)
                && seen.insert(word).inserted
        }
    }

    /// Every word one confusion away from `word` (upper case).
    package static func oneConfusionAway(_ word: String) -> [String] {
        let letters = Array(word)
        var out: [String] = []
        for (i, letter) in letters.enumerated() {
            for other in confusions[letter] ?? [] {
                var changed = letters
                changed[i] = other
                out.append(String(changed))
            }
        }
        return out
    }

    /// Every word two confusions away from `word` (upper case).
    package static func twoConfusionsAway(_ word: String) -> [String] {
        Array(Set(oneConfusionAway(word).flatMap(oneConfusionAway)).subtracting([word]))
    }

    /// The words `word` may have been, fewest confusions first: one confusion away, then two.
    package static func variants(of word: String) -> [[String]] {
        [oneConfusionAway(word), twoConfusionsAway(word)]
    }

    /// The words to look up for `suspects`: each one and its variants.
    package static func lookups(for suspects: [String]) -> [String] {
        suspects.flatMap { [$0] + variants(of: $0).joined() }
    }

    /// `name` with each suspect the dictionary does not hold replaced by the one dictionary word
    /// that explains it with the fewest confusions (left alone when there is none, or several).
    package static func repair(_ name: String, suspects: [String], known: Set<String>) -> String {
        var replacements: [String: String] = [:]
        for word in suspects where !known.contains(word) {
            for tier in variants(of: word) {
                let found = Set(tier.filter(known.contains))
                if found.count == 1 { replacements[word] = found.first }
                if !found.isEmpty { break }
            }
        }
        guard !replacements.isEmpty else { return name }
        var out = ""
        var run = ""
        func flush() {
            if let fixed = replacements[run.uppercased()] { out += matchingCase(fixed, of: run) } else { out += run }
            run = ""
        }
        for c in name {
            if c.isLetter && c.isASCII { run.append(c) } else { flush(); out.append(c) }
        }
        flush()
        return out
    }

    /// Runs of ASCII letters in `text`.
    package static func letterRuns(_ text: String) -> [Substring] {
        text.split { !($0.isLetter && $0.isASCII) }
    }

    /// `word` (upper case) written the way `original` is: all capitals, capitalized, or lower case.
    package static func matchingCase(_ word: String, of original: String) -> String {
        if original == original.uppercased() { return word }
        if original == original.lowercased() { return word.lowercased() }
        return word.prefix(1) + word.dropFirst().lowercased()
    }
}
