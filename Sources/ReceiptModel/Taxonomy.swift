import Foundation

/// Expense categories and how to recognise them.
///
/// File format (JSON):
/// ```json
/// {"categories": [
///   {"name": "Fuel", "keywords": ["unleaded", "diesel"], "patterns": ["\\bpump\\s*\\d+"],
///    "taxDeductiblePercentage": 100},
///   {"name": "Other", "keywords": [], "taxDeductiblePercentage": 0}
/// ],
///  "fallback": "Other"}
/// ```
/// Keywords match whole words, case-insensitively; patterns are regular expressions
/// (case-insensitive). `fallback` names the category used when nothing matches (default: the last).
public struct Taxonomy: Sendable, Equatable {
    public struct Category: Sendable, Equatable {
        public var name: String
        public var keywords: [String]
        public var patterns: [String]
        /// 0–100: share of the amount that is tax deductible.
        public var taxDeductiblePercentage: Decimal

        public init(name: String, keywords: [String] = [], patterns: [String] = [], taxDeductiblePercentage: Decimal = 0) {
            self.name = name
            self.keywords = keywords
            self.patterns = patterns
            self.taxDeductiblePercentage = taxDeductiblePercentage
        }
    }

    public var categories: [Category]
    public var fallback: String

    public init(categories: [Category], fallback: String? = nil) {
        self.categories = categories
        self.fallback = fallback ?? categories.last?.name ?? "Other"
    }

    public func category(named name: String) -> Category? {
        categories.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    public var names: [String] { categories.map(\.name) }
}

extension Taxonomy {
    /// Fuel, Insurance, Maintenance, Vehicle Tax, Other.
    public static let `default` = Taxonomy(categories: [
        Category(name: "Fuel",
                 keywords: ["fuel", "unleaded", "diesel", "petrol", "gasoline", "gas station", "pump", "litre", "litres",
                            "liter", "liters", "ltr", "gallon", "gallons", "super unleaded", "v-power", "ultimate",
                            "ron95", "ron97", "ron 95", "ron 97", "shell", "esso", "bp", "texaco", "chevron",
                            "exxon", "mobil", "petronas", "caltex", "jet", "gulf", "total energies", "totalenergies",
                            "sunoco", "valero", "marathon", "arco", "76", "speedway", "circle k", "murco",
                            "bhpetrol", "petron", "aral", "agip", "repsol", "adblue",
                            // German, French, Spanish, Italian, Dutch
                            "kraftstoff", "benzin", "tankstelle", "gazole", "gasoil", "sans plomb", "carburant",
                            "gasolina", "gasoleo", "gasóleo", "benzina", "carburante", "brandstof", "gasolio",
                            "litros", "litri", "super e5", "super e10",
                            // Charging an electric car
                            "charging", "charge point", "chargepoint", "laadpaal", "ladestation"],
                 // A pump's volume: 5 litres or more with 2–3 decimals ("42.31 L"), gallons to the
                 // thousandth ("12.503 Gal"), or any volume at a unit price ("4.20 L @ 1.459");
                 // not a bottle on a grocery receipt ("WATER 1.5L", "MILK 2.27L").
                 patterns: [#"\bpump\s*(no\.?|#)?\s*\d+"#,
                            #"(?<![\d.,])(?:[5-9]|[1-9]\d{1,2})[.,]\d{2,3}\s*(?:l|ltr|litres?|liters?)\b"#,
                            #"(?<![\d.,])\d{1,3}[.,]\d{3}\s*(?:gal|gallons?)\b"#,
                            #"\d[.,]\d+\s*(?:l|ltr|litres?|liters?|gal|gallons?)\s*(?:@|x|×|\*)"#,
                            // "lt 26,82 x 1,689": the unit before the volume
                            #"\b(?:l|lt|ltr)\s+\d{1,3}[.,]\d{2,3}\s*(?:@|x|×|\*)"#,
                            // A pump in German, French, Spanish, Italian ("Saeule 5", "Pompe 6")
                            #"\b(?:s(?:ae|ä)ule|zapfs(?:ae|ä)ule|pompe|surtidor|erogatore|pomp)\s*(?:nr\.?|n°|no\.?)?\s*\d{1,2}\b"#,
                            // Energy at a price a kWh, charged at a charging point ("24,341 kWh x € 0,59")
                            #"\d[.,]\d+\s*kwh\s*(?:@|x|×|\*)"#],
                 taxDeductiblePercentage: 100),
        Category(name: "Insurance",
                 keywords: ["insurance", "premium", "policy", "cover", "insurer", "underwriter", "policy number",
                            "no claims", "excess", "versicherung", "assurance", "seguro", "assicurazione", "verzekering"],
                 patterns: [#"\bpolicy\s*(no|number|#)"#],
                 taxDeductiblePercentage: 100),
        Category(name: "Maintenance",
                 keywords: ["mot", "tyre", "tyres", "tire", "tires", "service", "servicing", "parts", "garage",
                            "car wash", "carwash", "oil change", "brake", "brakes", "wiper", "wipers", "battery",
                            "alignment", "exhaust", "clutch", "labour", "labor", "repair", "repairs", "valet",
                            "autocentre", "auto centre", "halfords", "kwik fit", "kwik-fit", "mechanic", "bodyshop",
                            "spares", "autospares", "auto parts", "autoparts", "car parts", "headlamp", "headlight",
                            "bulb", "bulbs", "engine oil", "motor oil", "spark plug", "spark plugs", "coolant",
                            "antifreeze", "oil filter", "air filter", "wiper blade", "wiper blades",
                            "inspektion", "werkstatt", "reifen", "ölwechsel", "bremsen", "ölfilter", "luftfilter", "arbeitslohn", "autohaus", "entretien", "vidange",
                            "pneus", "pneumatiques", "neumaticos", "neumáticos", "tagliando", "officina",
                            "onderhoud", "banden",
                            // Malay and Indonesian
                            "bengkel", "servis", "suku cadang", "ganti oli", "oli mesin", "busi", "kampas rem"],
                 patterns: [],
                 taxDeductiblePercentage: 100),
        Category(name: "Vehicle Tax",
                 keywords: ["dvla", "vehicle tax", "road tax", "vehicle excise duty", "ved", "registration fee",
                            "vehicle licence", "vehicle license", "kfz steuer", "kraftfahrzeugsteuer"],
                 patterns: [],
                 taxDeductiblePercentage: 100),
        Category(name: "Other", taxDeductiblePercentage: 0),
    ], fallback: "Other")
}

// MARK: - File format

extension ReceiptError.Code {
    /// A taxonomy file cannot be read or makes no sense.
    public static let taxonomy = Self("taxonomy")
}

extension Taxonomy {
    /// Reads a taxonomy file (see the type's documentation for the format).
    public init(contentsOf url: URL) throws {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ReceiptError(.taxonomy, file: url.path, "cannot read taxonomy file (\(error.localizedDescription))")
        }
        let json: JSONValue
        do { json = try JSONValue.parse(data) } catch {
            throw ReceiptError(.taxonomy, file: url.path, "not valid JSON (\(error))")
        }
        try self.init(json: json, file: url.path)
    }

    public init(json: JSONValue, file: String = "taxonomy") throws {
        guard let list = json["categories"]?.arrayValue, !list.isEmpty else {
            throw ReceiptError(.taxonomy, file: file, "expected {\"categories\": [...]} with at least one category")
        }
        var categories: [Category] = []
        for (i, item) in list.enumerated() {
            guard let name = item["name"]?.stringValue, !name.isEmpty else {
                throw ReceiptError(.taxonomy, file: file, "category #\(i + 1) has no \"name\"")
            }
            let keywords = (item["keywords"]?.arrayValue ?? []).compactMap(\.stringValue)
            let patterns = (item["patterns"]?.arrayValue ?? []).compactMap(\.stringValue)
            for p in patterns where (try? NSRegularExpression(pattern: p)) == nil {
                throw ReceiptError(.taxonomy, file: file, "category \"\(name)\": invalid pattern \(p)")
            }
            let pct = item["taxDeductiblePercentage"]?.decimalValue ?? 0
            guard pct >= 0, pct <= 100 else {
                throw ReceiptError(.taxonomy, file: file, "category \"\(name)\": taxDeductiblePercentage must be 0–100")
            }
            categories.append(Category(name: name, keywords: keywords, patterns: patterns, taxDeductiblePercentage: pct))
        }
        let fallback = json["fallback"]?.stringValue
        if let fallback, !categories.contains(where: { $0.name == fallback }) {
            throw ReceiptError(.taxonomy, file: file, "fallback \"\(fallback)\" is not one of the categories")
        }
        self.init(categories: categories, fallback: fallback)
    }
}
