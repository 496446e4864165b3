import Foundation

/// Why a receipt of several pictures may not be one receipt (issue 56): pictures of different
/// receipts sent as one were read as one, with one receipt's vendor and another's total, at high
/// confidence. Two rules, each naming its reason in `analysis.review`.
enum PictureJoinReview {
    /// The reasons to look at a receipt of several pictures: `pictures` when two consecutive
    /// pictures share no row (`overlapRows` 0: the join laid one below the other whole, as it
    /// lays pictures of two receipts), `lineItems` when its items add up to far from its total.
    static func reasons(overlapRows: [Int], analysis: ReceiptAnalysis) -> [String] {
        var reasons: [String] = []
        if picturesShareNoRow(overlapRows) { reasons.append("pictures") }
        if itemsFarFromTotal(analysis) { reasons.append("lineItems") }
        return reasons
    }

    /// Two consecutive pictures with no row in common. A long receipt's pictures overlap (people
    /// are asked to photograph it so); of TestReceipts/long's 7 pictures after a first, every one
    /// shares rows with the one before, and so did all 110 WildReceipt photos cut in two
    /// (docs/experiments.md, issue 56); pictures of two different receipts share none.
    static func picturesShareNoRow(_ overlapRows: [Int]) -> Bool {
        overlapRows.contains(0)
    }

    /// The items' amounts (two or more) add up to more than `itemsAboveTotal` times the total, or
    /// (five or more items) to less than `itemsBelowTotal` times it. A receipt's items add up to
    /// its total, or to its total less a tax added at the end; items left unread make the sum
    /// smaller, so only a large gap below counts, and only over many items. The items of several
    /// receipts under one of their totals add up to more.
    static func itemsFarFromTotal(_ analysis: ReceiptAnalysis) -> Bool {
        guard let total = analysis.total, total > 0 else { return false }
        let amounts = analysis.lineItems.compactMap(\.amount)
        guard amounts.count >= 2 else { return false }
        let sum = amounts.reduce(Decimal(0), +)
        if sum > total * itemsAboveTotal { return true }
        return amounts.count >= 5 && sum < total * itemsBelowTotal
    }

    static let itemsAboveTotal = Decimal(string: "1.5")!
    static let itemsBelowTotal = Decimal(string: "0.5")!
}
