import Foundation
import ReceiptModel

/// The memory of shops among the candidates (issue 57): a block of `memory.*` features after every
/// other feature of the total, the date, the vendor and the tax (0 where nothing is remembered), and
/// the remembered shops as vendor candidates. The learned model weighs them as it weighs the rest:
/// which keys point at the shop, whether any points at another too, how many confirmations stand
/// behind it; whether a total or a date is printed where the shop's confirmed ones were.
extension CandidateProposer {
    /// The memory block's feature names for a field (none for the line items).
    package static func memoryFeatures(_ field: LearnedField) -> [String] {
        switch field {
        case .vendor: vendorMemoryFeatures.names()
        case .total: ["memory.totalRow"]
        case .date: ["memory.dateRow"]
        case .tax: ["memory.usualRate"]
        case .item: []
        }
    }

    /// One vendor candidate's memory: the shop it names (nil for a name only read) and whether it
    /// took in a read name of that shop.
    struct VendorMemory {
        let match: ShopRecall.Match?
        let rivals: Int
        let readAs: Bool

        func key(_ kind: ShopKeyKind) -> Double {
            guard let match, match.keys.contains(kind) else { return 0 }
            return match.ambiguous.contains(kind) ? 0.5 : 1
        }
    }

    static let vendorMemoryFeatures: [Feature<VendorMemory>] = [
        Feature("memory.proposed") { ($0.match != nil).feature },
        Feature("memory.deciding") { min(1, Double($0.match?.deciding.count ?? 0) / 3) },
        Feature("memory.strong") { ($0.match?.deciding.contains(where: \.isStrong) ?? false).feature },
        Feature("memory.taxId") { $0.key(.taxId) },
        Feature("memory.phone") { $0.key(.phone) },
        Feature("memory.web") { $0.key(.web) },
        Feature("memory.address") { max($0.key(.address), $0.key(.postcode) / 2) },
        Feature("memory.storeNumber") { $0.key(.storeNumber) },
        Feature("memory.name") { $0.key(.name) },
        Feature("memory.header") { $0.key(.header) },
        Feature("memory.ambiguous") { ($0.match.map { !$0.ambiguous.isEmpty } ?? false).feature },
        Feature("memory.confirmations") { e in e.match.map { min(1, log1p(Double($0.shop.confirmations)) / log(11)) } ?? 0 },
        Feature("memory.rival") { ($0.match != nil && $0.rivals > 0).feature },
        Feature("memory.readAs") { $0.readAs.feature },
    ]

    /// `candidates` of `field` with the memory block after their features.
    package static func withMemory(_ candidates: [Candidate], _ field: LearnedField, _ memory: MemoryContext,
                                   readers: ReaderChoice) -> [Candidate] {
        switch field {
        case .vendor:
            let width = features(for: .vendor, readers: readers).count - vendorMemoryFeatures.count
            return vendorsWithMemory(candidates, memory, readWidth: width)
        case .item: return candidates
        case .total, .date, .tax:
            return candidates.map { c in
                var c = c
                c.features.append(memoryValue(c, field, memory))
                return c
            }
        }
    }

    /// The share of the shop's recent confirmations that printed their total (date) on a row of
    /// this one's label (shape); for a tax, whether it is the shop's usual rate of a total read.
    private static func memoryValue(_ c: Candidate, _ field: LearnedField, _ memory: MemoryContext) -> Double {
        guard let shop = memory.layoutShop, shop.recent > 0 else { return 0 }
        switch field {
        case .total:
            guard let amount = Decimal(string: c.value) else { return 0 }
            let counts = memory.totalLabels(amount).compactMap { shop.totalLabels[$0] }
            return Double(counts.max() ?? 0) / Double(shop.recent)
        case .date:
            guard let date = CalendarDate(iso: c.value) else { return 0 }
            let counts = memory.dateRows(date).compactMap { shop.dateRows[$0] }
            return Double(counts.max() ?? 0) / Double(shop.recent)
        case .tax:
            guard let rate = shop.usualTaxRate, let tax = Decimal(string: c.value) else { return 0 }
            let totals = memory.readings.compactMap { $0.total?.value }
            return totals.contains { fits(tax: tax, total: $0, rate: rate) }.feature
        default:
            return 0
        }
    }

    /// A tax is `rate` % of the amount before it, to a cent or 1 % of the tax.
    package static func fits(tax: Decimal, total: Decimal, rate: Decimal) -> Bool {
        guard rate > 0, total > tax, tax > 0 else { return false }
        let expected = total * rate / (100 + rate)
        let slack = max(Decimal(string: "0.02")!, tax / 100)
        return abs(expected - tax) <= slack
    }

    /// The vendor's candidates with the remembered shops among them: each shop (up to
    /// `MemoryContext.shopsProposed`) a candidate named as the person names it, which takes in the
    /// first read name that is one of the shop's names (with that name's features); every
    /// candidate then gets the memory block.
    private static func vendorsWithMemory(_ candidates: [Candidate], _ memory: MemoryContext, readWidth: Int) -> [Candidate] {
        let plain = [Double](repeating: 0, count: readWidth)
        let zeros = vendorMemoryFeatures.values(VendorMemory(match: nil, rivals: 0, readAs: false))
        var remaining = candidates
        var proposed: [Candidate] = []
        let matches = Array((memory.recall?.matches ?? []).prefix(MemoryContext.shopsProposed))
        for match in matches {
            var features = plain
            var readAs = false
            let names = Set(match.names + [NameMatching.normalized(match.shop.name)])
            if let i = remaining.firstIndex(where: { names.contains(NameMatching.normalized($0.value)) }) {
                features = remaining.remove(at: i).features
                readAs = true
            }
            let evidence = VendorMemory(match: match, rivals: matches.count - 1, readAs: readAs)
            proposed.append(Candidate(field: .vendor, value: match.shop.name, features: features + vendorMemoryFeatures.values(evidence)))
        }
        // Two shops the person named alike (one name, two books' worth of keys) stay one candidate.
        var seen = Set(proposed.map { NameMatching.normalized($0.value) })
        let read = remaining.filter { seen.insert(NameMatching.normalized($0.value)).inserted }.map { c in
            Candidate(field: .vendor, value: c.value, features: c.features + zeros)
        }
        return proposed + read
    }
}
