import Foundation
import ReceiptModel
import ReceiptStorage

/// Copies a SQLite store into PostgreSQL — receipts with their statuses, drafted expenses (and
/// corrections), image bytes — for a user who outgrows one machine. Idempotent: receipts already
/// copied are skipped, so an interrupted copy is finished by running it again.
public struct StoreCopier: Sendable {
    public struct Summary: Sendable, Equatable {
        public var copied = 0
        public var alreadyThere = 0
        public var images = 0
        /// Receipts whose image copy was missing from the source (copied without it).
        public var missingImages: [String] = []
        /// Receipts not copied because the target has a receipt of the same bytes already: the
        /// source's file and the target's receipt, which stays as it is.
        public var sameImage: [(file: String, receipt: UUID)] = []

        public static func == (a: Summary, b: Summary) -> Bool {
            (a.copied, a.alreadyThere, a.images, a.missingImages) == (b.copied, b.alreadyThere, b.images, b.missingImages)
                && a.sameImage.map(\.receipt) == b.sameImage.map(\.receipt) && a.sameImage.map(\.file) == b.sameImage.map(\.file)
        }
    }

    let source: any ReceiptStore
    let sourceImages: any ImageRepository
    let target: PostgresReceiptStore
    let targetImages: any ImageRepository

    public init(from source: any ReceiptStore, images sourceImages: any ImageRepository,
                to target: PostgresReceiptStore, images targetImages: any ImageRepository) {
        self.source = source
        self.sourceImages = sourceImages
        self.target = target
        self.targetImages = targetImages
    }

    /// Copies every receipt, oldest first, calling `progress` after each.
    public func copy(progress: @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> Summary {
        var summary = Summary()
        let receipts = try await source.receipts(ReceiptQuery()).reversed()
        var duplicates: [(UUID, UUID)] = []
        var seenHashes = Set<String>()
        // A source expense that stays out (its bytes are a target receipt already) → the target's expense.
        var expenseInTarget: [UUID: UUID] = [:]
        for (index, receipt) in receipts.enumerated() {
            var imageRef: String?
            if let reference = try await source.imagePath(ofReceipt: receipt.id) {
                if let hash = receipt.contentHash, let data = try? await sourceImages.load(reference) {
                    imageRef = try await targetImages.store(data, hash: hash)
                    summary.images += 1
                } else {
                    summary.missingImages.append(receipt.filePath)
                }
            }
            let expense = try await source.expense(receiptId: receipt.id)
            var corrections: JSONValue?
            if let expense {
                let stored = try await source.corrections(ofExpense: expense.id)
                if stored != .object([]) { corrections = stored }
            }
            if let expense, let original = expense.possibleDuplicateOf { duplicates.append((expense.id, original)) }
            // The oldest receipt of some bytes is their first copy; later ones were forced re-reads.
            let isFirstCopy = receipt.contentHash.map { seenHashes.insert($0).inserted } ?? true
            switch try await target.importReceipt(receipt, imageRef: imageRef, expense: expense, corrections: corrections,
                                                  isFirstCopy: isFirstCopy) {
            case .copied:
                summary.copied += 1
            case .alreadyThere:
                summary.alreadyThere += 1
            case let .sameImage(existing):
                summary.sameImage.append((receipt.filePath, existing))
                if let expense, let kept = try await target.expense(receiptId: existing) { expenseInTarget[expense.id] = kept.id }
            }
            progress(index + 1, receipts.count)
        }
        for (expense, original) in duplicates {
            try await target.linkPossibleDuplicate(expense: expenseInTarget[expense] ?? expense, original: expenseInTarget[original] ?? original)
        }
        return summary
    }
}
