import Foundation

/// How the pictures of one long receipt are named and ordered: `NAME-1.jpg`, `NAME-2.jpg`… (the
/// watched folder joins them; `receipts eval` reads them as one receipt beside `NAME.expected.json`),
/// and a folder's pictures in name order with numbers compared as numbers (`IMG_9` before `IMG_10`).
public enum PictureGroup {
    /// `IMG_0042-2` → (`IMG_0042`, 2): the receipt's name and the picture's number, for a file
    /// name's stem ending in `-` and a number from 1 to 99; nil otherwise.
    public static func member(_ stem: String) -> (base: String, number: Int)? {
        guard let dash = stem.lastIndex(of: "-") else { return nil }
        let digits = stem[stem.index(after: dash)...]
        guard !digits.isEmpty, digits.count <= 2, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let number = Int(digits), number >= 1, dash > stem.startIndex else { return nil }
        return (String(stem[..<dash]), number)
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
