import Foundation
import ReceiptAnalyzers
import ReceiptModel

/// Checks a model's answer before it is trusted and turns it into a `ReceiptAnalysis`: amounts
/// become exact decimals (never through `Double`), dates must be real ISO calendar dates,
/// currencies ISO 4217 codes, the category one of the taxonomy's names, and tax no more than the
/// total. Whatever is dropped or changed is listed in `warnings` and marks the result for review.
package enum AnalysisNormalizer {
    package struct Outcome {
        package var analysis: ReceiptAnalysis
        package var warnings: [String]
    }

    package static func normalize(_ json: JSONValue, analyzer: String, options: AnalysisOptions,
                          today: CalendarDate? = nil) -> Outcome {
        let today = today ?? options.today ?? .today()
        var warnings: [String] = []
        var analysis = ReceiptAnalysis(analyzer: analyzer)
        var weak: Set<String> = []       // fields whose value was changed or dropped

        analysis.vendor = text(json[AnalysisField.vendor.key])

        if let raw = json[AnalysisField.date.key], !raw.isNull {
            if let date = date(raw), (1990...today.year + 1).contains(date.year) {
                analysis.date = date
            } else {
                warnings.append("date \(raw.serialized()) is not a plausible YYYY-MM-DD date; dropped")
                weak.insert(AnalysisField.date.key)
            }
        }

        for field in [AnalysisField.total, AnalysisField.tax] {
            guard let raw = json[field.key], !raw.isNull else { continue }
            if let value = amount(raw) {
                if case .string = raw { weak.insert(field.key) }
                if field == .total { analysis.total = value } else { analysis.tax = value }
            } else {
                warnings.append("\(field.key) \(raw.serialized()) is not an amount; dropped")
                weak.insert(field.key)
            }
        }
        if let tax = analysis.tax {
            if tax < 0 {
                warnings.append("tax \(tax.plainString) is negative; dropped")
                analysis.tax = nil
                weak.insert(AnalysisField.tax.key)
            } else if let total = analysis.total, total >= 0, tax > total {
                warnings.append("tax \(tax.plainString) is above the total \(total.plainString); dropped")
                analysis.tax = nil
                weak.insert(AnalysisField.tax.key)
            }
        }

        if let raw = json[AnalysisField.currency.key], !raw.isNull {
            if let code = currencyCode(raw.stringValue ?? "") {
                analysis.currency = code
            } else {
                warnings.append("currency \(raw.serialized()) is not an ISO 4217 code; dropped")
                weak.insert(AnalysisField.currency.key)
            }
        }
        var currencyDefaulted = false
        if analysis.currency == nil, let fallback = options.defaultCurrency {
            analysis.currency = fallback
            currencyDefaulted = true
        }

        let taxonomy = options.taxonomy
        if let name = json[AnalysisField.category.key]?.stringValue?.trimmingCharacters(in: .whitespaces),
           let category = taxonomy.category(named: name) {
            analysis.category = category.name
        } else {
            let raw = json[AnalysisField.category.key] ?? .null
            if !raw.isNull { warnings.append("category \(raw.serialized()) is not in the taxonomy; used \(taxonomy.fallback)") }
            analysis.category = taxonomy.fallback
            weak.insert(AnalysisField.category.key)
        }

        for item in json[AnalysisField.lineItems.key]?.arrayValue ?? [] {
            guard let description = text(item["description"]) else { continue }
            analysis.lineItems.append(LineItem(description: description,
                                               quantity: item["quantity"].flatMap(amount),
                                               unitPrice: item["unitPrice"].flatMap(amount),
                                               amount: item["amount"].flatMap(amount)))
        }

        // Confidence: the model's own figure (0.8 when it gave none), 0 for a missing value, at most
        // 0.3 for a value that had to be repaired or replaced.
        let reported = json[AnalysisField.confidence.key]
        func score(_ key: String, present: Bool) -> Double {
            guard present else { return 0 }
            var value = reported?[key]?.doubleValue ?? 0.8
            value = min(1, max(0, value.isFinite ? value : 0))
            return weak.contains(key) ? min(value, 0.3) : value
        }
        var confidence = FieldConfidence(
            vendor: score(AnalysisField.vendor.key, present: analysis.vendor != nil),
            date: score(AnalysisField.date.key, present: analysis.date != nil),
            total: score(AnalysisField.total.key, present: analysis.total != nil),
            tax: score(AnalysisField.tax.key, present: analysis.tax != nil),
            currency: currencyDefaulted ? 0.3 : score(AnalysisField.currency.key, present: analysis.currency != nil),
            category: score(AnalysisField.category.key, present: true))
        analysis.confidence = confidence
        // A missing or doubtful total, date or vendor; a repaired value (a warning) is weak already.
        var review = [("total", confidence.total), ("date", confidence.date), ("vendor", confidence.vendor)]
            .filter { $0.1 < 0.5 }.map(\.0)
        if analysis.tax != nil && confidence.tax < 0.5 { review.append("tax") }
        if review.isEmpty && !warnings.isEmpty { review = ["total", "date", "vendor"] }
        analysis.flag(review)
        return Outcome(analysis: analysis, warnings: warnings)
    }

    private static func text(_ value: JSONValue?) -> String? {
        guard let s = value?.stringValue else { return nil }
        let collapsed = s.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return collapsed.isEmpty ? nil : collapsed
    }

    /// A JSON number read from its exact text, or a string such as `"1,234.50"` or `"£12.50"`.
    package static func amount(_ value: JSONValue) -> Decimal? {
        switch value {
        case .number(let text):
            return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        case .string(let text):
            return Money.parse(text)
        default:
            return nil
        }
    }

    /// `YYYY-MM-DD`, also with a time after it (`2024-03-05T00:00:00Z`) or slashes (`2024/03/05`).
    package static func date(_ value: JSONValue) -> CalendarDate? {
        guard var text = value.stringValue?.trimmingCharacters(in: .whitespaces) else { return nil }
        text = text.replacingOccurrences(of: "/", with: "-")
        if text.count > 10, let t = text.firstIndex(where: { $0 == "T" || $0 == " " }), text.distance(from: text.startIndex, to: t) == 10 {
            text = String(text[..<t])
        }
        return CalendarDate(iso: text)
    }

    private static let symbols: [String: String] = [
        "£": "GBP", "€": "EUR", "US$": "USD", "RM": "MYR", "S$": "SGD", "A$": "AUD", "C$": "CAD",
        "NZ$": "NZD", "HK$": "HKD", "₹": "INR", "₩": "KRW", "₽": "RUB", "₺": "TRY", "₪": "ILS",
    ]

    private static let isoCodes: Set<String> = Set(Locale.commonISOCurrencyCodes.map { $0.uppercased() })

    /// An ISO 4217 code, accepting lower case and the unambiguous symbols (`£`, `€`, `RM`, …).
    package static func currencyCode(_ raw: String) -> String? {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if let code = symbols[text.uppercased()] ?? symbols[text] { return code }
        let upper = text.uppercased()
        guard upper.count == 3, upper.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        if isoCodes.isEmpty { return upper }          // no ICU data: accept the shape
        return isoCodes.contains(upper) ? upper : nil
    }
}
