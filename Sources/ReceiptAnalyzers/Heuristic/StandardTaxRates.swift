import Foundation

/// The VAT, GST or sales-tax rates a country charges (standard and reduced), by the currency a
/// receipt is in: a tax that one of them explains on the receipt's total is far more likely its
/// tax than an amount none explains (7.36 on a 14.77 bill is no rate; 2.36 is 19 % inside it).
/// Currencies whose taxes vary by place (USD: each state's and city's sales tax) have none.
package enum StandardTaxRates {
    package static func rates(currency: String?) -> [Decimal] {
        guard let currency else { return [] }
        return (byCurrency[currency.uppercased()] ?? []).map { Decimal(string: $0)! }
    }

    private static let byCurrency: [String: [String]] = [
        "GBP": ["20", "5"],
        // The euro area's standard and reduced rates (2024–2026).
        "EUR": ["19", "7", "20", "10", "5.5", "2.1", "21", "9", "6", "12", "22", "4", "5", "23", "13", "13.5",
                "24", "25.5", "14", "17", "8", "3", "16", "18", "15", "11"],
        "CHF": ["8.1", "2.6", "3.8", "7.7"],
        "SEK": ["25", "12", "6"], "DKK": ["25"], "NOK": ["25", "15", "12"], "PLN": ["23", "8", "5"],
        "CZK": ["21", "12"], "HUF": ["27", "18", "5"], "RON": ["19", "9", "5", "21", "11"],
        "MYR": ["6", "10", "8", "5"], "SGD": ["9", "8", "7"], "AUD": ["10"], "NZD": ["15"],
        "JPY": ["10", "8"], "INR": ["5", "12", "18", "28"], "IDR": ["11", "12", "10"], "THB": ["7"],
        "CAD": ["5", "13", "15", "14.975", "12", "11"], "ZAR": ["15"],
    ]

    /// Whether `rate` of `base`, or the tax inside `base` at `rate` (`base × rate / (100 + rate)`),
    /// is `value` to the cent.
    package static func explains(_ value: Decimal, rate: Decimal, base: Decimal) -> Bool {
        abs(base * rate / 100 - value) <= 0.011 || abs(base * rate / (100 + rate) - value) <= 0.011
    }
}
