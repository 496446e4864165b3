import Foundation
import Testing
@testable import ReceiptKit

/// Why a receipt of several pictures is flagged (issue 56, item 2): pictures that share no row,
/// or items that add up to far from the total, each named in `analysis.review`.
@Suite struct PictureJoinReviewTests {
    static func analysis(total: String?, items: [String]) -> ReceiptAnalysis {
        ReceiptAnalysis(total: total.flatMap { Decimal(string: $0) },
                        lineItems: items.enumerated().map { LineItem(description: "item \($0.offset)", amount: Decimal(string: $0.element)) },
                        analyzer: "t")
    }

    @Test func aLongReceiptWhosePicturesOverlapIsNotFlagged() {
        let long = Self.analysis(total: "193.34", items: ["12.99", "45.00", "100.35", "35.00"])
        #expect(PictureJoinReview.reasons(overlapRows: [3, 2], analysis: long) == [])
        // Items that add up to the total less a tax added at the end are a receipt's.
        let taxed = Self.analysis(total: "120.00", items: ["40.00", "60.00"])
        #expect(PictureJoinReview.reasons(overlapRows: [5], analysis: taxed) == [])
        // A few items read, far below the total, are items left unread, not another receipt.
        let unread = Self.analysis(total: "193.34", items: ["2.50", "3.10", "4.00"])
        #expect(PictureJoinReview.reasons(overlapRows: [4], analysis: unread) == [])
    }

    /// groceries-2-1 with hardware-2-2: the two pictures share no row.
    @Test func picturesThatShareNoRowAreNamed() {
        let mixed = Self.analysis(total: "193.34", items: ["12.99", "45.00"])
        #expect(PictureJoinReview.reasons(overlapRows: [0], analysis: mixed) == ["pictures"])
        #expect(PictureJoinReview.reasons(overlapRows: [4, 0, 3], analysis: mixed) == ["pictures"])
    }

    /// 10 pictures of 4 receipts read as "RIDGEWAY HARDWARE 213.20" whose items add up to 681.98.
    @Test func itemsFarFromTheTotalAreNamed() {
        let four = Self.analysis(total: "213.20", items: ["193.34", "213.20", "71.76", "203.68"])
        #expect(PictureJoinReview.reasons(overlapRows: [3, 3, 2, 4, 3, 2, 3, 3, 2], analysis: four) == ["lineItems"])
        #expect(PictureJoinReview.reasons(overlapRows: [3, 0, 2, 4, 0, 2, 3, 0, 2], analysis: four) == ["pictures", "lineItems"])
        // Many items adding up to well under the total.
        let below = Self.analysis(total: "500.00", items: ["10.00", "20.00", "30.00", "40.00", "50.00"])
        #expect(PictureJoinReview.reasons(overlapRows: [2], analysis: below) == ["lineItems"])
        // No total, or one item: nothing to weigh.
        #expect(PictureJoinReview.reasons(overlapRows: [2], analysis: Self.analysis(total: nil, items: ["1.00", "900.00"])) == [])
        #expect(PictureJoinReview.reasons(overlapRows: [2], analysis: Self.analysis(total: "1.00", items: ["900.00"])) == [])
    }

    /// Flagged, a receipt needs review and says why, after the analyzer's own reasons.
    @Test func flaggingNamesTheReasonAndAsksForReview() {
        var analysis = Self.analysis(total: "213.20", items: ["193.34", "213.20", "71.76", "203.68"])
        analysis.confidence.needsReview = false
        analysis.flag(analysis.review + PictureJoinReview.reasons(overlapRows: [0], analysis: analysis))
        #expect(analysis.confidence.needsReview)
        #expect(analysis.review.contains("pictures") && analysis.review.contains("lineItems"))
    }
}
