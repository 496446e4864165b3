import Foundation

/// How the pictures of one long receipt are named and ordered: `NAME-1.jpg`, `NAME-2.jpg`… (the
/// watched folder joins them; `receipts eval` reads them as one receipt beside `NAME.expected.json`),
/// and a folder's pictures in name order with numbers compared as numbers (`IMG_9` before `IMG_10`).
public enum PictureGroup {
    /// `IMG_0042-2` → (`IMG_0042`, 2): the receipt's name and the picture's number, for a file
    /// name's stem ending in `-` and a number from 1 to 99; nil otherwise, and nil for a stem
    /// ending in a date (`receipt-2024-03-14`, `scan-14-03-24`, `statement-2024-03`): that number
    /// is a day or a month, and receipts of the 14th and the 15th are two receipts.
    public static func member(_ stem: String) -> (base: String, number: Int)? {
        guard let dash = stem.lastIndex(of: "-") else { return nil }
        let digits = stem[stem.index(after: dash)...]
        guard !digits.isEmpty, digits.count <= 2, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let number = Int(digits), number >= 1, dash > stem.startIndex, !endsInDate(stem) else { return nil }
        return (String(stem[..<dash]), number)
    }

    /// Whether a stem ends in a date whose parts `-` joins: year-month-day or year-month (a year
    /// of four digits from 1900 to 2099), or day-month-year and month-day-year with a year of two
    /// digits (the other parts of one or two digits).
    static func endsInDate(_ stem: String) -> Bool {
        // The numbers at the end joined by `-` (at most three, last one first), and what comes
        // before the earliest of them (nil: the stem's start).
        var parts: [Substring] = []
        var rest = Substring(stem)
        var before: Character?
        while true {
            let digits = rest.reversed().prefix { $0.isASCII && $0.isNumber }.count
            guard digits > 0 else { break }
            parts.append(rest.suffix(digits))
            rest = rest.dropLast(digits)
            before = rest.last
            guard parts.count < 3, rest.last == "-" else { break }
            rest = rest.dropLast()
        }
        let n = parts.reversed().map { (text: $0, value: Int($0) ?? -1) }
        func year4(_ p: (text: Substring, value: Int)) -> Bool { p.text.count == 4 && (1900...2099).contains(p.value) }
        func small(_ p: (text: Substring, value: Int), _ range: ClosedRange<Int>) -> Bool { p.text.count <= 2 && range.contains(p.value) }
        // year-month-day: 2024-03-14.
        if n.count == 3, year4(n[0]), small(n[1], 1...12), small(n[2], 1...31) { return true }
        // year-month: 2024-03 (also the last two of three numbers). A camera's picture number
        // (`IMG_1987-2`) is not a year: only after a `-`, a space or nothing.
        if n.count >= 2, year4(n[n.count - 2]), small(n[n.count - 1], 1...12),
           n.count == 3 || before == nil || before == " " || before == "-" {
            return true
        }
        // day-month-year and month-day-year with a two-digit year: 14-03-24, 03-14-24.
        if n.count == 3, n[2].text.count == 2, small(n[0], 1...31), small(n[1], 1...31), n[0].value <= 12 || n[1].value <= 12 {
            return true
        }
        return false
    }

    /// Names in the order a person reads them: numbers within them compared as numbers.
    public static func inNameOrder(_ names: [String]) -> [String] {
        names.sorted { a, b in
            let (x, y) = (chunks(a), chunks(b))
            for (p, q) in zip(x, y) where p != q {
                if let m = Int(p), let n = Int(q), m != n { return m < n }
                return p < q
            }
            return x.count != y.count ? x.count < y.count : a < b
        }
    }

    /// `IMG_10.jpg` → `IMG_`, `10`, `.jpg`.
    private static func chunks(_ name: String) -> [String] {
        var out: [String] = [], current = ""
        var digits = false
        for c in name {
            let isDigit = c.isASCII && c.isNumber
            if !current.isEmpty && isDigit != digits { out.append(current); current = "" }
            digits = isDigit
            current.append(c)
        }
        if !current.isEmpty { out.append(current) }
        return out
    }
}
