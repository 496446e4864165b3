import Foundation

/// Helpers for money as `Decimal`. Amounts never pass through `Double`.
public enum Money {
    private static let posix = Locale(identifier: "en_US_POSIX")

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
