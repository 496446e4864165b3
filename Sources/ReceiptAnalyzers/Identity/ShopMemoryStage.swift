import Foundation
import ReceiptModel

/// The analysis's use of the memory of shops (issue 57), in two steps around the choice:
/// `recall` looks the receipt's keys up before the candidates are weighed; `settle` applies what
/// the chosen shop's confirmations agree on once the vendor is chosen — its category, its currency
/// where none is printed, its usual tax rate as a check of the tax — and lifts the review of what
/// that settles (a tax that fits the rate), keeping it for what it does not (one that does not).
package enum ShopMemoryStage {
    /// The keys a receipt is looked up by: what identifies the shop, and every name its readings
    /// may give it (the rules' pick, the header's rows that may be the name, names given elsewhere).
    package static func lookupKeys(_ keys: ShopKeys, readings: [Reading]) -> [ShopKey] {
        var all = keys.keys
        for reading in readings {
            var names = [reading.vendor?.name].compactMap { $0 }
            names += VendorFinder.headerNames(reading.document, rows: reading.rows).prefix(CandidateProposer.headerNamesProposed).map(\.finding.name)
            names += NamesElsewhere.find(reading.document).map(\.name)
            for name in names {
                let key = NameMatching.normalized(name)
                if key.count >= 3 { all.append(ShopKey(.name, String(key.prefix(80)))) }
            }
        }
        return ShopKeys(all).keys
    }

    /// What the memory recalls for `keys` (nil without a memory).
    package static func recall(_ memory: (any ShopMemory)?, keys: [ShopKey]) async throws -> ShopRecall? {
        guard let memory, !keys.isEmpty else { return nil }
        return try await memory.recall(keys)
    }

    /// The remembered shop the chosen vendor names, if it is one.
    static func chosenShop(_ vendor: String?, _ recall: ShopRecall?) -> ShopRecall.Match? {
        guard let vendor else { return nil }
        return recall?.matches.prefix(MemoryContext.shopsProposed).first { $0.shop.name == vendor }
    }

    /// Without a learned model (`eval --rules-only`), the memory names the shop when keys point at it
    /// alone: a strong key (tax number, phone, web), or two others.
    static func rulesVendor(_ recall: ShopRecall?) -> String? {
        guard let best = recall?.best, best.deciding.contains(where: \.isStrong) || best.deciding.count >= 2 else { return nil }
        return best.shop.name
    }

    /// Applies the chosen shop's profile to `analysis` (see the type's comment); `taxes` are the tax's
    /// candidates, `currencyRead` whether the receipt printed its currency.
    static func settle(_ analysis: inout ReceiptAnalysis, recall: ShopRecall?, taxes: [Candidate], currencyRead: Bool) {
        guard let match = chosenShop(analysis.vendor, recall) else { return }
        let shop = match.shop
        var use = MemoryUse(vendorId: shop.id, name: shop.name, keys: match.keys, ambiguous: match.ambiguous,
                            confirmations: shop.confirmations, settles: ["vendor"])
        var review = Set(analysis.review)
        review.remove("vendor")
        if let category = shop.category {
            analysis.category = category
            analysis.confidence.category = max(analysis.confidence.category, 0.95)
            use.settles.append("category")
            use.taxDeductiblePercentage = shop.taxDeductiblePercentage
        }
        if !currencyRead, let currency = shop.currency {
            analysis.currency = currency
            analysis.confidence.currency = max(analysis.confidence.currency, 0.9)
            use.settles.append("currency")
        }
        if let rate = shop.usualTaxRate, let total = analysis.total {
            let fits = { (tax: Decimal) in CandidateProposer.fits(tax: tax, total: total, rate: rate) }
            if let tax = analysis.tax, fits(tax) {
                use.settles.append("tax")
                review.remove("tax")
                analysis.confidence.tax = max(analysis.confidence.tax, 0.95)
            } else if let fitting = taxes.compactMap({ Decimal(string: $0.value) }).first(where: fits) {
                // The shop's usual rate of the total is printed: the tax.
                analysis.tax = fitting
                analysis.confidence.tax = max(analysis.confidence.tax, 0.9)
                use.settles.append("tax")
                review.remove("tax")
            } else if analysis.tax != nil {
                review.insert("tax")
            }
        }
        analysis.memory = use
        analysis.flag(review)
    }
}
