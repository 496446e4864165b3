import Foundation

/// The words of a row, upper-cased and with OCR slips in common receipt words repaired, for
/// matching labels such as `GRAND TOTAL` or `SUB-TOTAL`.
struct LabelText: Sendable {
    /// Words joined by single spaces, with a space at both ends: `" GRAND TOTAL "`.
    let spaced: String
    /// The same words with no spaces: `"GRANDTOTAL"`.
    let compact: String
    let words: [String]
    private let wordSet: Set<String>

    /// Keywords that OCR often misreads by one letter (`TOTAI`, `T0TAL`, `CHANGF`).
    static let vocabulary: [String] = [
        "TOTAL", "SUBTOTAL", "AMOUNT", "CHANGE", "ROUNDING", "ROUNDED", "BALANCE", "PAYABLE", "INCLUSIVE",
        "INCLUDING", "EXCLUDING", "EXCLUSIVE", "INVOICE", "RECEIPT", "DISCOUNT", "TENDERED", "PAYMENT",
        "CASHIER", "GRAND", "SUMME", "JUMLAH", "SAVINGS",
    ]

    init(_ text: String) {
        var words: [String] = []
        var current = ""
        for c in text.uppercased() {
            if c.isLetter || c.isNumber {
                current.append(c)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        words = words.map(LabelText.repair).flatMap(LabelText.splitTrailingDigits)
        self.words = words
        self.wordSet = Set(words)
        self.spaced = " " + words.joined(separator: " ") + " "
        self.compact = words.joined()
    }

    /// True when the row holds the phrase as whole words (`"GRAND TOTAL"`), or glued
    /// (`GRANDTOTAL`) for phrases of several words and at least five letters.
    func has(_ phrase: String) -> Bool {
        if !phrase.contains(" ") { return wordSet.contains(phrase) }
        if spaced.contains(" " + phrase + " ") { return true }
        if phrase.contains(" ") {
            let glued = phrase.replacingOccurrences(of: " ", with: "")
            return glued.count >= 5 && compact.contains(glued)
        }
        return false
    }

    func hasAny(_ phrases: [String]) -> Bool { phrases.contains(where: has) }

    /// `TAX1` → `TAX`, `1`; `GST6` → `GST`, `6`.
    private static func splitTrailingDigits(_ word: String) -> [String] {
        guard let last = word.last, last.isNumber, word.count >= 4 else { return [word] }
        let letters = word.prefix(while: \.isLetter)
        let rest = word.dropFirst(letters.count)
        guard letters.count >= 3, rest.allSatisfy(\.isNumber) else { return [word] }
        return [String(letters), String(rest)]
    }

    /// Repairs one word: letters for digits inside words (`T0TAL`), and one-letter slips in the
    /// vocabulary (`TOTAI` → `TOTAL`).
    private static func repair(_ word: String) -> String {
        guard word.count >= 4, word.contains(where: \.isLetter) else { return word }
        var w = word
        if w.filter(\.isNumber).count <= 1 {
            w = String(w.map { c -> Character in
                switch c {
                case "0": return "O"
                case "1": return "L"
                case "5": return "S"
                case "8": return "B"
                default: return c
                }
            })
        }
        if vocabularySet.contains(w) { return w }
        if (4...9).contains(w.count), w.allSatisfy({ $0.isASCII && $0.isLetter }) {
            let bytes = Array(w.utf8)
            for (i, v) in vocabularyBytes.enumerated() where abs(v.count - bytes.count) <= 1 && v[0] == bytes[0] || v.last == bytes.last && v.count == bytes.count {
                if editDistance(v, bytes, limit: 1) <= 1 { return vocabulary[i] }
            }
        }
        return w.count >= 5 && !w.contains(where: \.isNumber) ? w : word
    }

    private static let vocabularySet = Set(vocabulary)
    private static let vocabularyBytes = vocabulary.map { Array($0.utf8) }

    static func editDistance(_ a: String, _ b: String) -> Int {
        editDistance(Array(a.utf8), Array(b.utf8), limit: Int.max)
    }

    /// Levenshtein distance over bytes; stops early once every path exceeds `limit`.
    static func editDistance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMin = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                rowMin = min(rowMin, current[j])
            }
            if rowMin > limit { return rowMin }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
