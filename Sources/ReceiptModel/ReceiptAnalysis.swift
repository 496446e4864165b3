import Foundation

/// What an analyzer read from one receipt: the `analysis` object of the NDJSON contract.
///
/// Field names and JSON shapes are a contract other tools rely on: add fields, never rename or
/// retype them. Amounts are exact decimals; `date` is a calendar date (`YYYY-MM-DD`).
public struct ReceiptAnalysis: Sendable, Equatable {
    public var vendor: String?
    public var date: CalendarDate?
    public var total: Decimal?
    public var tax: Decimal?
    /// ISO 4217 code, or nil when unknown.
    public var currency: String?
    /// A category name from the taxonomy.
    public var category: String?
    public var lineItems: [LineItem]
    public var confidence: FieldConfidence
    /// The fields a person should look at (`total`, `date`, `vendor`, `tax`, `category`), in that
    /// order, then why a receipt of several pictures may be wrong as a whole (`pictures`: two of
    /// them share no row, so they may be different receipts; `lineItems`: its items add up to far
    /// from its total). `confidence.needsReview` is true when it names the total, the date, the tax
    /// or such a reason, or the vendor is missing: a vendor read but unsure, or a category nothing
    /// on the receipt named, is named without asking for a review.
    public var review: [String] = []
    /// Name of the analyzer that produced this (`heuristic`, `gemini`, …).
    public var analyzer: String
    /// Extra facts an analyzer records (prompt used, token counts, why it fell back, …).
    public var details: [(String, JSONValue)]
    /// Every value proposed for the learned model's fields, with its features (what
    /// `receipts eval --dump-candidates` writes for `make train`). Not part of the JSON record.
    public var candidates: [Candidate] = []
    /// OCR passes read for this receipt, the first included (close-ups count); nil when the
    /// analyzer read no image.
    public var ocrPasses: Int?
    /// How long the receipt took, set by the pipeline.
    public var timings: ReceiptTimings?
    /// What identifies the shop, as printed: tax id, phone, web, address, store number, and the
    /// purchase's time and receipt number (issue 57).
    public var identity = ShopIdentity()
    /// The keys the memory of shops knows the receipt's shop by (the record's `shop.keys`).
    public var shopKeys = ShopKeys()
    /// Which rows printed the likeliest totals and dates (the record's `shop.layout`).
    public var layout = ShopLayout()
    /// What the memory of shops recognised and settled (the record's `sources.vendor.memory`).
    public var memory: MemoryUse?

    public init(
        vendor: String? = nil, date: CalendarDate? = nil, total: Decimal? = nil, tax: Decimal? = nil,
        currency: String? = nil, category: String? = nil, lineItems: [LineItem] = [],
        confidence: FieldConfidence = FieldConfidence(), analyzer: String,
        details: [(String, JSONValue)] = []
    ) {
        self.vendor = vendor
        self.date = date
        self.total = total
        self.tax = tax
        self.currency = currency
        self.category = category
        self.lineItems = lineItems
        self.confidence = confidence
        self.analyzer = analyzer
        self.details = details
    }

    /// The fields a review can name, in the order `review` lists them.
    public static let reviewableFields = ["total", "date", "vendor", "tax", "category"]

    /// The fields that, named, mark the receipt as needing review: what the expense claims.
    public static let blockingFields: Set<String> = ["total", "date", "tax"]

    /// What else a review can name, after the fields: a receipt of several pictures whose pictures
    /// share no row (`pictures`) or whose items add up to far from its total (`lineItems`). Each
    /// marks the receipt as needing review.
    public static let reviewReasons = ["pictures", "lineItems"]

    /// Marks `fields` (and `reviewReasons`) for a person's look (in `reviewableFields`' order,
    /// then `reviewReasons`', each once) and sets `confidence.needsReview`: a total, date or tax
    /// named, a reason named, or no vendor at all.
    public mutating func flag(_ fields: some Sequence<String>) {
        let wanted = Set(fields)
        review = (Self.reviewableFields + Self.reviewReasons).filter(wanted.contains)
        confidence.needsReview = review.contains(where: { Self.blockingFields.contains($0) || Self.reviewReasons.contains($0) })
            || review.contains("vendor") && vendor == nil
    }

    /// For a receipt of several pictures (`pictures` in `details`): its pictures (from 1) in runs
    /// that overlap (`PictureJoin.runs`); one run when they were all joined as parts of one
    /// receipt. Nil for a receipt of one picture.
    public var pictureRuns: [[Int]]? {
        guard let pictures = details.first(where: { $0.0 == "pictures" })?.1.arrayValue, pictures.count > 1 else { return nil }
        // A picture whose overlap was not measured (a processor that does not join) counts as joined.
        return PictureJoin.runs(overlapRows: pictures.dropFirst().map { $0["overlapRows"]?.doubleValue.map { Int($0) } ?? 1 })
    }

    public static func == (a: ReceiptAnalysis, b: ReceiptAnalysis) -> Bool {
        a.json == b.json
    }
}

public struct LineItem: Sendable, Equatable {
    public var description: String
    public var quantity: Decimal?
    public var unitPrice: Decimal?
    public var amount: Decimal?

    public init(description: String, quantity: Decimal? = nil, unitPrice: Decimal? = nil, amount: Decimal? = nil) {
        self.description = description
        self.quantity = quantity
        self.unitPrice = unitPrice
        self.amount = amount
    }
}

/// Confidence 0–1 per field; `needsReview` when a field is missing or a cross-check failed.
public struct FieldConfidence: Sendable, Equatable {
    public var vendor: Double
    public var date: Double
    public var total: Double
    public var tax: Double
    public var currency: Double
    public var category: Double
    public var needsReview: Bool

    public init(vendor: Double = 0, date: Double = 0, total: Double = 0, tax: Double = 0,
                currency: Double = 0, category: Double = 0, needsReview: Bool = true) {
        self.vendor = vendor
        self.date = date
        self.total = total
        self.tax = tax
        self.currency = currency
        self.category = category
        self.needsReview = needsReview
    }
}

// MARK: - JSON

extension ReceiptAnalysis {
    public var json: JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("vendor", .optionalString(vendor)),
            ("date", .optionalString(date?.description)),
            ("total", .money(total, currency: currency)),
            ("tax", .money(tax, currency: currency)),
            ("currency", .optionalString(currency)),
            ("category", .optionalString(category)),
            ("lineItems", .array(lineItems.map { $0.json(currency: currency) })),
            ("confidence", confidence.json(adding: identity.confidencePairs)),
            ("analyzer", .string(analyzer)),
            ("review", .array(review.map(JSONValue.string))),
        ] + identity.jsonPairs  // after the fields records have always begun with, in that order
        // One pass is the usual case and goes unsaid.
        if let ocrPasses, ocrPasses > 1 { pairs.append(("ocrPasses", .int(ocrPasses))) }
        if !shopKeys.isEmpty || !layout.isEmpty {
            pairs.append(("shop", .object([("keys", shopKeys.json), ("layout", layout.json)])))
        }
        pairs.append(contentsOf: details)
        if let memory { Self.put(memory, inSourcesOf: &pairs) }
        if let timings { pairs.append(("timings", timings.json)) }
        return .object(pairs)
    }

    /// `sources.vendor` as `{"memory": …, "words": […]}` (the vendor's words kept as they were
    /// read), the `sources` object made when there is none.
    private static func put(_ memory: MemoryUse, inSourcesOf pairs: inout [(String, JSONValue)]) {
        var sources = pairs.first { $0.0 == "sources" }?.1.objectValue ?? []
        let vendor = sources.first { $0.0 == "vendor" }?.1
        let words = vendor?.arrayValue.map(JSONValue.array) ?? vendor?["words"] ?? .array([])
        let entry = JSONValue.object([("memory", memory.json), ("words", words)])
        if let i = sources.firstIndex(where: { $0.0 == "vendor" }) { sources[i].1 = entry } else { sources.append(("vendor", entry)) }
        if let i = pairs.firstIndex(where: { $0.0 == "sources" }) { pairs[i].1 = .object(sources) } else { pairs.append(("sources", .object(sources))) }
    }

    /// Reads an `analysis` object (or a ground-truth file of the same shape, where amounts may be
    /// strings). Unknown keys are kept in `details`.
    public init(json: JSONValue, defaultAnalyzer: String = "unknown") {
        self.init(analyzer: json["analyzer"]?.stringValue ?? defaultAnalyzer)
        vendor = json["vendor"]?.stringValue
        date = json["date"]?.stringValue.flatMap(CalendarDate.init(iso:))
        total = json["total"]?.decimalValue
        tax = json["tax"]?.decimalValue
        currency = json["currency"]?.stringValue
        category = json["category"]?.stringValue
        lineItems = (json["lineItems"]?.arrayValue ?? []).map(LineItem.init(json:))
        if let c = json["confidence"] { confidence = FieldConfidence(json: c) }
        review = json["review"]?.arrayValue?.compactMap(\.stringValue) ?? []
        ocrPasses = json["ocrPasses"]?.doubleValue.map { Int($0) }
        timings = json["timings"].flatMap(ReceiptTimings.init(json:))
        identity = ShopIdentity(analysis: json)
        shopKeys = ShopKeys(json: json["shop"]?["keys"])
        layout = ShopLayout(json: json["shop"]?["layout"])
        memory = MemoryUse(json: json["sources"]?["vendor"]?["memory"])
        let known = Set(["vendor", "date", "total", "tax", "currency", "category", "lineItems", "confidence", "review", "analyzer",
                         "ocrPasses", "timings", "shop", "vendorTaxIdScheme"] + ShopIdentity.fieldNames)
        details = (json.objectValue ?? []).filter { !known.contains($0.0) }
    }
}

extension LineItem {
    public var json: JSONValue { json(currency: nil) }

    /// The line as JSON, its money printed with the receipt's currency's decimals.
    public func json(currency: String?) -> JSONValue {
        .object([
            ("description", .string(description)),
            ("quantity", .decimal(quantity)),
            ("unitPrice", .money(unitPrice, currency: currency)),
            ("amount", .money(amount, currency: currency)),
        ])
    }

    public init(json: JSONValue) {
        self.init(description: json["description"]?.stringValue ?? "",
                  quantity: json["quantity"]?.decimalValue,
                  unitPrice: json["unitPrice"]?.decimalValue,
                  amount: json["amount"]?.decimalValue)
    }
}

extension FieldConfidence {
    public var json: JSONValue { json(adding: []) }

    /// The confidences with `more` after them (the identity fields').
    public func json(adding more: [(String, JSONValue)]) -> JSONValue {
        .object([
            ("vendor", .double(vendor, digits: 2)),
            ("date", .double(date, digits: 2)),
            ("total", .double(total, digits: 2)),
            ("tax", .double(tax, digits: 2)),
            ("currency", .double(currency, digits: 2)),
            ("category", .double(category, digits: 2)),
            ("needsReview", .bool(needsReview)),
        ] + more)
    }

    public init(json: JSONValue) {
        self.init(vendor: json["vendor"]?.doubleValue ?? 0, date: json["date"]?.doubleValue ?? 0,
                  total: json["total"]?.doubleValue ?? 0, tax: json["tax"]?.doubleValue ?? 0,
                  currency: json["currency"]?.doubleValue ?? 0, category: json["category"]?.doubleValue ?? 0,
                  needsReview: json["needsReview"]?.boolValue ?? true)
    }
}
