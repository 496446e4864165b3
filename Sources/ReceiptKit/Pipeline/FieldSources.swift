import Foundation

/// Where on the image each drafted field was read: the words of the first reading whose text is
/// the field's value, found after the analysis (the analyzer is not asked). The review page
/// highlights them when a field is focused, so checking a value is a glance, not a search.
///
/// Boxes are in the pixels of the image OCR ran on (`imageWidth` × `imageHeight`: the upright
/// image, scaled; a page scan cropped to its receipt is the one case where they are offsets into
/// the crop). A field whose value is not printed as such (a category, a vendor spelled otherwise)
/// has no words.
public struct FieldSources: Sendable, Equatable {
    public var imageWidth: Int
    public var imageHeight: Int
    /// Field name (`vendor`, `date`, `total`, `tax`, `currency`) → its words, top to bottom.
    public var fields: [(field: String, words: [OCRWord])]

    public static func == (a: FieldSources, b: FieldSources) -> Bool { a.json == b.json }

    /// The words each of `analysis`'s fields was read from, in `ocr`.
    public static func locate(_ analysis: ReceiptAnalysis, in ocr: OCRResult) -> FieldSources {
        var fields: [(String, [OCRWord])] = []
        func add(_ name: String, _ words: [OCRWord]) { if !words.isEmpty { fields.append((name, words)) } }
        if let vendor = analysis.vendor { add("vendor", vendorWords(vendor, ocr.lines)) }
        if let date = analysis.date { add("date", dateWords(date, ocr.lines)) }
        let totalWords = analysis.total.map { amountWords($0, ocr.lines, labels: ["total", "balance", "due", "amount", "paid", "sum"]) } ?? []
        add("total", totalWords)
        if let tax = analysis.tax { add("tax", amountWords(tax, ocr.lines, labels: ["tax", "vat", "gst", "mwst", "tva", "hst"])) }
        if let currency = analysis.currency { add("currency", currencyWords(currency, ocr.lines, near: totalWords.first)) }
        // What identifies the shop: the words the analyzer read each field from.
        for (name, field) in analysis.identity.fields { if let field { add(name, field.words) } }
        return FieldSources(imageWidth: ocr.imageWidth, imageHeight: ocr.imageHeight, fields: fields)
    }

    /// `{"imageWidth", "imageHeight", "vendor": [{"text", "box": [x, y, width, height]}], …}`.
    public var json: JSONValue {
        var pairs: [(String, JSONValue)] = [("imageWidth", .int(imageWidth)), ("imageHeight", .int(imageHeight))]
        for (field, words) in fields {
            pairs.append((field, .array(words.map { word in
                .object([("text", .string(word.text)),
                         ("box", .array([word.box.x, word.box.y, word.box.width, word.box.height].map { .int($0) }))])
            })))
        }
        return .object(pairs)
    }

    // MARK: Rules

    /// Amounts: words whose digits are the value (`£90.70`, `90,70`, `90.70GBP`). Of several,
    /// the one on a line with a label (`TOTAL` for a total, `VAT` for tax), else the lowest:
    /// totals are printed below the items they add up.
    static func amountWords(_ value: Decimal, _ lines: [OCRLine], labels: [String]) -> [OCRWord] {
        var best: (score: Int, y: Int, word: OCRWord)?
        for line in lines {
            let text = line.text.lowercased()
            var score = labels.contains(where: { text.contains($0) }) ? 2 : 0
            if text.contains("sub") { score -= 1 }
            for word in line.words where amount(in: word.text) == value {
                if best == nil || score > best!.score || (score == best!.score && word.box.y > best!.y) {
                    best = (score, word.box.y, word)
                }
            }
        }
        return best.map { [$0.word] } ?? []
    }

    /// The number a word prints, its currency signs and letters left out; a lone comma is a
    /// decimal comma (`90,70`), a comma beside a point groups thousands (`1,090.70`).
    static func amount(in text: String) -> Decimal? {
        var kept = String(text.filter { $0.isNumber || $0 == "." || $0 == "," })
        guard kept.contains(where: \.isNumber) else { return nil }
        if kept.contains(".") { kept.removeAll { $0 == "," } } else { kept = kept.replacingOccurrences(of: ",", with: ".") }
        guard kept.contains(".") || kept.count <= 6 else { return nil }
        return Decimal(string: kept, locale: Locale(identifier: "en_US_POSIX"))
    }

    private static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Dates: a word holding day, month and year as numbers in any order (`02/08/2023`,
    /// `2023-08-02`, `02.08.23`), else up to three neighbouring words with the day, the month's
    /// name and the year (`2 Aug 2023`).
    static func dateWords(_ date: CalendarDate, _ lines: [OCRLine]) -> [OCRWord] {
        let year = [date.year, date.year % 100]
        for line in lines {
            for word in line.words {
                let numbers = word.text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                guard numbers.count == 3 else { continue }
                if numbers.contains(date.day), numbers.contains(date.month), numbers.contains(where: year.contains),
                   numbers.filter({ $0 == date.day || $0 == date.month || year.contains($0) }).count == 3 {
                    return [word]
                }
            }
        }
        let month = monthNames[date.month - 1]
        for line in lines {
            let words = line.words
            for start in words.indices {
                let window = Array(words[start..<min(words.count, start + 3)])
                let joined = window.map { $0.text.lowercased() }.joined(separator: " ")
                let numbers = joined.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                if joined.contains(month), numbers.contains(date.day), numbers.contains(where: year.contains) {
                    return window.filter { word in
                        let t = word.text.lowercased()
                        return t.contains(month) || t.contains(where: \.isNumber)
                    }
                }
            }
        }
        return []
    }

    /// The vendor: the line with most of the vendor's words (at least half of them), the topmost
    /// of equals; its words that are the vendor's.
    static func vendorWords(_ vendor: String, _ lines: [OCRLine]) -> [OCRWord] {
        let wanted = Set(tokens(vendor))
        guard !wanted.isEmpty else { return [] }
        var best: (matched: Int, words: [OCRWord])?
        for line in lines {
            let words = line.words.filter { word in tokens(word.text).contains(where: wanted.contains) }
            let matched = Set(words.flatMap { tokens($0.text) }).intersection(wanted).count
            if matched * 2 >= wanted.count, matched > (best?.matched ?? 0) { best = (matched, words) }
        }
        return best?.words ?? []
    }

    private static func tokens(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init).filter { $0.count >= 2 }
    }

    /// The currency: a word with its code or sign (`GBP`, `£`), on the total's line first.
    static func currencyWords(_ code: String, _ lines: [OCRLine], near total: OCRWord?) -> [OCRWord] {
        let signs: [String: [String]] = ["GBP": ["£"], "EUR": ["€"], "USD": ["$"], "JPY": ["¥"], "CAD": ["$"], "AUD": ["$"]]
        let marks = [code] + (signs[code] ?? [])
        let found = lines.flatMap(\.words).filter { word in marks.contains { word.text.uppercased().contains($0) } }
        if let total, let same = found.first(where: { abs($0.box.midY - total.box.midY) < max(total.box.height, 1) }) { return [same] }
        return found.first.map { [$0] } ?? []
    }
}
