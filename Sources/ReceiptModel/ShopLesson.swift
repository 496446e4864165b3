import Foundation

/// What one confirmed receipt teaches its book's memory of shops: the shop as the person named it,
/// the keys the receipt prints, and what the person confirmed (category, deduction, currency, the
/// tax's rate) with the rows its total and date were printed on. Only a confirmed expense makes
/// one (a draft never teaches); deleting the receipt, or putting its expense back to draft, takes
/// it back, and a later correction replaces it.
public struct ShopLesson: Sendable, Equatable {
    public var receiptId: UUID
    public var book: MemoryBook
    /// The vendor as the person confirmed it (the expense's description).
    public var vendorName: String
    public var keys: [ShopKey]
    public var category: String
    public var taxDeductiblePercentage: Decimal
    public var currency: String?
    /// The tax as a percentage of the amount before it (`tax / (total − tax) × 100`, to 0.1), when
    /// the receipt has both.
    public var taxRate: Decimal?
    /// The labels of the rows the confirmed total was printed on.
    public var totalLabels: [String]
    /// The shapes of the rows the confirmed date was printed on.
    public var dateRows: [String]
    public var confirmedAt: Date

    public init(receiptId: UUID, book: MemoryBook, vendorName: String, keys: [ShopKey], category: String,
                taxDeductiblePercentage: Decimal, currency: String?, taxRate: Decimal?, totalLabels: [String] = [],
                dateRows: [String] = [], confirmedAt: Date) {
        self.receiptId = receiptId
        self.book = book
        self.vendorName = vendorName
        self.keys = keys
        self.category = category
        self.taxDeductiblePercentage = taxDeductiblePercentage
        self.currency = currency
        self.taxRate = taxRate
        self.totalLabels = totalLabels
        self.dateRows = dateRows
        self.confirmedAt = confirmedAt
    }

    /// What a confirmed expense teaches, with its receipt's analysis (its `shop` keys and layout);
    /// nil for a draft or an expense without a vendor.
    public init?(expense: Expense, analysis: JSONValue?, ownership: Ownership, now: Date) {
        let name = Self.cleaned(expense.description)
        guard expense.status == .confirmed, !name.isEmpty else { return nil }
        let shop = analysis?["shop"]
        let layout = ShopLayout(json: shop?["layout"])
        self.init(receiptId: expense.receiptId, book: MemoryBook(ownership), vendorName: name,
                  keys: ShopKeys(json: shop?["keys"]).keys, category: expense.category,
                  taxDeductiblePercentage: expense.taxDeductiblePercentage, currency: expense.currency,
                  taxRate: Self.rate(tax: expense.taxAmount, total: expense.amount),
                  totalLabels: expense.amount.map(layout.totalLabels) ?? [],
                  dateRows: expense.date.map(layout.dateRows) ?? [], confirmedAt: now)
    }

    /// The tax's rate in percent of the amount before it, to 0.1.
    public static func rate(tax: Decimal?, total: Decimal?) -> Decimal? {
        guard let tax, let total, tax > 0, total > tax else { return nil }
        return (tax / (total - tax) * 100).rounded(scale: 1)
    }

    /// A name as kept: its ends trimmed, inner runs of white space one space.
    public static func cleaned(_ name: String) -> String {
        name.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// How two names of a book's vendors are the same vendor: the same words, ignoring case.
    public static func nameKey(_ name: String) -> String { cleaned(name).lowercased() }
}

/// A remembered shop as a book knows it: the person's name for it, how many receipts confirmed it,
/// and what those agree on.
public struct RememberedShop: Sendable, Equatable, Identifiable {
    public var id: UUID
    public var name: String
    /// Confirmed receipts it was taught by (an imported merchant counts one).
    public var confirmations: Int
    /// The category its confirmations agree on (more than half of the last five), or the one a
    /// person set for it; nil when they disagree.
    public var category: String?
    /// The deduction its confirmations of that category agree on.
    public var taxDeductiblePercentage: Decimal?
    public var currency: String?
    /// The tax rate (percent) at least two of its last five confirmations agree on.
    public var usualTaxRate: Decimal?
    /// Of its last confirmations, how many printed the total on a row of each label.
    public var totalLabels: [String: Int]
    /// Of its last confirmations, how many printed the date on a row of each shape.
    public var dateRows: [String: Int]
    /// How many confirmations `totalLabels` and `dateRows` count from.
    public var recent: Int

    public init(id: UUID, name: String, confirmations: Int, category: String? = nil, taxDeductiblePercentage: Decimal? = nil,
                currency: String? = nil, usualTaxRate: Decimal? = nil, totalLabels: [String: Int] = [:], dateRows: [String: Int] = [:],
                recent: Int = 0) {
        self.id = id
        self.name = name
        self.confirmations = confirmations
        self.category = category
        self.taxDeductiblePercentage = taxDeductiblePercentage
        self.currency = currency
        self.usualTaxRate = usualTaxRate
        self.totalLabels = totalLabels
        self.dateRows = dateRows
        self.recent = recent
    }

    /// How many of the last confirmations a profile is drawn from (Actual Budget's rule: a payee's
    /// category once 3 of its last 5 transactions agree).
    public static let recentLessons = 5

    /// The shop's profile from its lessons, newest first (at least the last `recentLessons`), its
    /// confirmations counted apart; `category` and `currency`: what a person set for it.
    public static func profile(id: UUID, name: String, confirmations: Int, lessons newestFirst: [ShopLesson],
                               category setCategory: String? = nil, taxDeductiblePercentage setShare: Decimal? = nil,
                               currency setCurrency: String? = nil) -> RememberedShop {
        let recent = Array(newestFirst.prefix(recentLessons))
        func majority<T: Hashable>(_ values: [T]) -> T? {
            guard !values.isEmpty else { return nil }
            var counts: [T: Int] = [:]
            for v in values { counts[v, default: 0] += 1 }
            // Ties go to the newest (values are newest first).
            let best = values.first { counts[$0] == counts.values.max() }!
            return counts[best]! * 2 > values.count ? best : nil
        }
        var shop = RememberedShop(id: id, name: name, confirmations: confirmations, recent: recent.count)
        shop.category = setCategory ?? majority(recent.map(\.category))
        if let category = shop.category {
            shop.taxDeductiblePercentage = setShare ?? majority(recent.filter { $0.category == category }.map(\.taxDeductiblePercentage))
        }
        shop.currency = setCurrency ?? majority(recent.compactMap(\.currency))
        let rates = recent.compactMap(\.taxRate).map { ($0 * 2).rounded(scale: 0) / 2 }
        if let rate = majority(rates), rates.filter({ $0 == rate }).count >= 2 { shop.usualTaxRate = rate }
        for lesson in recent {
            for label in Set(lesson.totalLabels) { shop.totalLabels[label, default: 0] += 1 }
            for row in Set(lesson.dateRows) { shop.dateRows[row, default: 0] += 1 }
        }
        return shop
    }
}
