import Foundation

/// Helpers for money as `Decimal`. Amounts never pass through `Double`.
public enum Money {
    static let posix = Locale(identifier: "en_US_POSIX")

    /// Parses a plain decimal amount such as `"12.34"`, `"-1.5"`, `"1,007.50"` or `"RM 13.30"`.
    /// Currency symbols, codes and thousands separators are ignored; a decimal comma is accepted
    /// when it is the only separator and is followed by exactly two digits (`"16,70"`).
    public static func parse(_ text: String) -> Decimal? {
        var s = text.trimmingCharacters(in: .whitespaces)
        var negative = false
        if s.hasPrefix("-") || s.hasPrefix("−") { negative = true; s.removeFirst() }
        if s.hasPrefix("(") && s.hasSuffix(")") { negative = true; s = String(s.dropFirst().dropLast()) }
        s = String(s.filter { $0.isNumber || $0 == "." || $0 == "," })
        guard !s.isEmpty, s.contains(where: \.isNumber) else { return nil }
        if s.hasSuffix("-") { negative = true }
        let lastDot = s.lastIndex(of: ".")
        let lastComma = s.lastIndex(of: ",")
        switch (lastDot, lastComma) {
        case let (dot?, comma?):
            if comma > dot {                // 1.234,56
                s = s.replacingOccurrences(of: ".", with: "").replacingOccurrences(of: ",", with: ".")
            } else {                        // 1,234.56
                s = s.replacingOccurrences(of: ",", with: "")
            }
        case (nil, let comma?):
            let after = s.distance(from: comma, to: s.endIndex) - 1
            if s.filter({ $0 == "," }).count == 1 && after <= 2 {
                s = s.replacingOccurrences(of: ",", with: ".")      // 16,70
            } else {
                s = s.replacingOccurrences(of: ",", with: "")       // 1,234
            }
        default: break
        }
        if s.filter({ $0 == "." }).count > 1 {
            // 1.234.567 style thousands separators
            s = s.replacingOccurrences(of: ".", with: "")
        }
        if s.hasPrefix(".") { s = "0" + s }
        guard var value = Decimal(string: s, locale: posix) else { return nil }
        if negative { value.negate() }
        return value
    }
}

/// Why an amount a person or a program gave was refused, in words that finish the sentence
/// "amount …" (`is not a plain decimal such as 12.50`).
public struct AmountError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

extension Money {
    /// How many digits an amount may have before and after the point.
    public struct Limits: Sendable, Equatable {
        public var integerDigits: Int?
        public var decimals: Int?

        public init(integerDigits: Int?, decimals: Int?) {
            self.integerDigits = integerDigits
            self.decimals = decimals
        }

        /// What the API and the CLI accept: 12 digits before the point and at most 4 after it
        /// (ISO 4217's most, CLF and UYW).
        public static let input = Limits(integerDigits: 12, decimals: 4)
        /// What a store reads back: any plain decimal it wrote.
        public static let stored = Limits(integerDigits: nil, decimals: nil)
    }

    /// The largest amount `Limits.input` lets through.
    public static let maximumAmount = Decimal(string: "999999999999.9999", locale: Locale(identifier: "en_US_POSIX"))!

    /// `Limits.input` as a regular expression (for the OpenAPI document).
    public static let amountPattern = "^-?[0-9]{1,12}([.][0-9]{1,4})?$"

    /// Parses money as people and programs type it and as the stores keep it: a plain decimal
    /// (`12.50`, `-3`, `0.5`): an optional `-`, digits, optionally `.` and digits. Nothing else is
    /// read: no exponent, grouping, currency, spaces or second point (`1e3`, `1,000`, `£5`, `1.5.3`
    /// are refused, never stripped to digits). The one parser of typed money: `PATCH
    /// /v1/expenses/{id}`, `receipts expense edit` and both stores use it; `parse(_:)` is for text
    /// read off a receipt by OCR.
    public static func amount(_ text: String, limits: Limits = .input) throws(AmountError) -> Decimal {
        var scanner = Substring(text)
        let negative = scanner.first == "-"
        if negative { scanner = scanner.dropFirst() }
        let integer = scanner.prefix(while: isDigit)
        scanner = scanner.dropFirst(integer.count)
        var fraction = Substring("")
        if scanner.first == "." {
            fraction = scanner.dropFirst().prefix(while: isDigit)
            scanner = scanner.dropFirst(1 + fraction.count)
            if fraction.isEmpty { throw AmountError("is not a plain decimal such as 12.50 (got '\(text)')") }
        }
        guard !integer.isEmpty, scanner.isEmpty else { throw AmountError("is not a plain decimal such as 12.50 (got '\(text)')") }
        return try exact(negative: negative, digits: String(integer + fraction), pointAt: integer.count, limits: limits)
    }

    /// A JSON number's text (`8.5`, `1e3`, `-0.25`), read exactly with the same limits as
    /// `amount(_:limits:)`; an exponent is allowed, as JSON allows it in numbers (not in strings).
    public static func amount(jsonNumber text: String, limits: Limits = .input) throws(AmountError) -> Decimal {
        var mantissa = Substring(text)
        var exponent = 0
        if let e = mantissa.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            var digits = mantissa[mantissa.index(after: e)...]
            let negativeExponent = digits.first == "-"
            if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.allSatisfy(isDigit) else { throw AmountError("is not a number (got '\(text)')") }
            // Beyond 4 digits the number is out of any range an amount has (or 0, said below).
            exponent = digits.count > 4 ? 99_999 : Int(digits)!
            if negativeExponent { exponent.negate() }
            mantissa = mantissa[..<e]
        }
        let negative = mantissa.first == "-"
        if negative { mantissa = mantissa.dropFirst() }
        let parts = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let integer = parts.first, !integer.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isDigit) }) else {
            throw AmountError("is not a number (got '\(text)')")
        }
        let fraction = parts.count > 1 ? parts[1] : ""
        return try exact(negative: negative, digits: String(integer + fraction), pointAt: integer.count + exponent, limits: limits)
    }

    /// An ASCII digit alone. (`("0"..."9").contains(c)` compares characters as strings: a digit
    /// with a combining mark, `7̷`, lies between "7" and "8" and passed for a digit.)
    private static func isDigit(_ c: Character) -> Bool { c.asciiValue.map { (0x30...0x39).contains($0) } ?? false }

    /// `digits` with the decimal point after `pointAt` of them (which may lie outside them), as an exact `Decimal`.
    private static func exact(negative: Bool, digits: String, pointAt: Int, limits: Limits) throws(AmountError) -> Decimal {
        // Leading and trailing zeros say nothing; zero is zero (a Decimal has no negative zero).
        let leading = digits.prefix(while: { $0 == "0" }).count
        guard leading < digits.count else { return .zero }
        let significant = digits.dropFirst(leading).reversed().drop(while: { $0 == "0" }).reversed()
        let point = pointAt - leading
        let integerDigits = max(0, point)
        let decimals = max(0, significant.count - point)
        if let limit = limits.integerDigits, integerDigits > limit {
            throw AmountError("is out of range (at most \(limit) digits before the point)")
        }
        if let limit = limits.decimals, decimals > limit {
            throw AmountError("has more than \(limit) decimals")
        }
        guard integerDigits + decimals <= 38 else { throw AmountError("has more digits than can be kept exactly") }
        var text = negative ? "-" : ""
        if point <= 0 {
            text += "0." + String(repeating: "0", count: -point) + String(significant)
        } else if point >= significant.count {
            text += String(significant) + String(repeating: "0", count: point - significant.count)
        } else {
            text += String(significant.prefix(point)) + "." + String(significant.dropFirst(point))
        }
        guard let value = Decimal(string: text, locale: posix) else { throw AmountError("is not a number") }
        return value
    }

    /// Money as every door prints it (records, exports, tables, CSV): the exact value with at
    /// least as many decimals as the currency has minor units (`7.5` GBP → `7.50`, `1200` JPY →
    /// `1200`, `5` KWD → `5.000`; two for an unknown currency). Digits beyond them are kept, never
    /// rounded away (a fuel price `1.459`).
    public static func format(_ amount: Decimal, currency: String?) -> String {
        let minimum = Currency.decimals(of: currency)
        var text = amount.plainString
        let decimals = text.firstIndex(of: ".").map { text.distance(from: $0, to: text.endIndex) - 1 } ?? 0
        if decimals < minimum { text += (decimals == 0 ? "." : "") + String(repeating: "0", count: minimum - decimals) }
        return text
    }
}

extension Decimal {
    /// The value as plain decimal text with `.` as separator and no exponent: `23.45`, `-0.5`, `100`.
    public var plainString: String {
        var value = self
        var text = NSDecimalString(&value, Locale(identifier: "en_US_POSIX"))
        if text.contains("e") || text.contains("E") {
            text = "\(self)"
        }
        return text
    }

    /// Rounded to `scale` fractional digits, half away from zero (as tills do).
    public func rounded(scale: Int) -> Decimal {
        var value = self
        var result = Decimal()
        NSDecimalRound(&result, &value, scale, .plain)
        return result
    }

    /// Money text with exactly two decimals: `205.5` → `"205.50"`.
    public var moneyString: String {
        let r = rounded(scale: 2)
        var text = r.plainString
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            if decimals < 2 { text += String(repeating: "0", count: 2 - decimals) }
        } else {
            text += ".00"
        }
        return text
    }
}
