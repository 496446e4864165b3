/// ISO 4217 currencies a receipt can be in, with their minor units (decimal places): what an
/// expense's `currency` may be, and how many decimals its money is printed with.
public enum Currency {
    /// Active ISO 4217 codes (funds and precious metals left out) and their minor units.
    public static let minorUnits: [String: Int] = {
        var table: [String: Int] = [:]
        for code in twoDecimals.split(separator: " ") { table[String(code)] = 2 }
        for (digits, codes) in [(0, zeroDecimals), (3, threeDecimals), (4, fourDecimals)] {
            for code in codes.split(separator: " ") { table[String(code)] = digits }
        }
        return table
    }()

    /// Every code, sorted (for `--help` texts and the OpenAPI document).
    public static let codes: [String] = minorUnits.keys.sorted()

    /// Decimals printed when the currency is unknown.
    public static let defaultMinorUnits = 2

    /// The code as ISO 4217 spells it (`"gbp"` → `"GBP"`), or nil when it is not one.
    public static func code(_ text: String) -> String? {
        let upper = text.uppercased()
        return minorUnits[upper] == nil ? nil : upper
    }

    /// The decimals of `code` (2 for an unknown or missing currency).
    public static func decimals(of code: String?) -> Int {
        code.flatMap { minorUnits[$0.uppercased()] } ?? defaultMinorUnits
    }

    /// ISO 4217's currencies without minor units, and IDR: ISO gives it two, but the sen has not
    /// circulated for decades and receipts print whole rupiah (`Rp 224.400`), so its money is read,
    /// kept and printed whole.
    private static let zeroDecimals = "BIF CLP DJF GNF IDR ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF"
    private static let threeDecimals = "BHD IQD JOD KWD LYD OMR TND"
    private static let fourDecimals = "CLF UYW"
    private static let twoDecimals = """
        AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF \
        CHE CHF CHW CNY COP COU CRC CUC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ \
        GYD HKD HNL HTG HUF ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK \
        MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB \
        SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD \
        USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG ZWL
        """
}
