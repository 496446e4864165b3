import Foundation

/// The highest tax a receipt of a country may carry, by the currency it is in: a tax is a share of
/// the gross it is charged in, `rate / (100 + rate)`, whether added on top (sales tax) or included
/// (VAT), so a tax above that share of the total is no tax of that country (a UK bill of 83.83
/// carries at most 13.97 of VAT at 20 %; 28.98 is the net of something, an item, a misread).
///
/// The rates are the highest a receipt meets, reduced rates aside (checked 2026-12; sources):
/// - GBP 20: the UK's standard VAT rate (HMRC, "VAT rates", gov.uk/guidance/rates-of-vat-on-different-goods-and-services).
/// - EUR 25.5: the highest standard rate of the euro area, Finland's since 1 Sep 2024 (Croatia 25,
///   Greece 24, Ireland and Portugal 23); European Commission, "VAT rates applied in the Member
///   States of the EU" (taxation-customs.ec.europa.eu, July 2025).
/// - The rest of the EU from the same table: HUF 27, SEK 25, DKK 25, PLN 23, CZK 21, RON 21 (from
///   1 Aug 2025), BGN 20; NOK 25 and ISK 24 (their tax authorities), CHF 8.1 (ESTV, since 2024).
/// - USD 25: US sales taxes are set by states and cities. The highest combined state and local
///   general rates are about 11.5 % (Tax Foundation, "State and Local Sales Tax Rates, 2025"), but
///   a driver meets higher local taxes on the same receipt line: parking taxes of 18.375 % (New York
///   City) to 25 % (San Francisco's parking tax), and restaurant and hotel taxes above the general
///   rate. 25 % on the net is 20 % of the gross: anything above is flagged.
/// - CAD 15 (HST, Atlantic provinces), AUD 10 (GST), NZD 15 (GST), SGD 9 (GST 2024), MYR 10 (SST's
///   sales tax; GST was 6 % until 2018), JPY 10, INR 28 (GST's top slab), IDR 12 (PPN), THB 7,
///   ZAR 15, each the country's revenue authority's published rate.
/// - Any other or unknown currency 27: the highest standard VAT rate anywhere in Europe (Hungary).
/// The table with its sources and each rate's share of the gross: docs/tax-ceilings.md (change both together).
package enum TaxCeilings {
    /// The highest rate (percent) the country of `currency` charges; 27 when unknown.
    package static func highestRate(currency: String?) -> Decimal {
        guard let currency, let rate = byCurrency[currency.uppercased()] else { return unknownRate }
        return Decimal(string: rate)!
    }

    /// The largest share of a gross amount its tax may be: `rate / (100 + rate)`.
    package static func ceiling(currency: String?) -> Decimal {
        let rate = highestRate(currency: currency)
        return rate / (100 + rate)
    }

    /// Whether `tax` is more than the country of `currency` allows in a gross of `total` (a cent of
    /// rounding allowed).
    package static func exceeds(_ tax: Decimal, total: Decimal, currency: String?) -> Bool {
        total > 0 && tax > total * ceiling(currency: currency) + Decimal(string: "0.01")!
    }

    private static let unknownRate: Decimal = 27

    private static let byCurrency: [String: String] = [
        "GBP": "20", "EUR": "25.5", "HUF": "27", "SEK": "25", "DKK": "25", "PLN": "23", "CZK": "21", "RON": "21",
        "BGN": "20", "NOK": "25", "ISK": "24", "CHF": "8.1", "USD": "25", "CAD": "15", "AUD": "10", "NZD": "15",
        "SGD": "9", "MYR": "10", "JPY": "10", "INR": "28", "IDR": "12", "THB": "7", "ZAR": "15",
    ]
}
