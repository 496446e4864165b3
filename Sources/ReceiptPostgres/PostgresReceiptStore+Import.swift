import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

// Copying another store in (`StoreCopier`).

/// What became of a receipt copied in (`PostgresReceiptStore.importReceipt`).
public enum ImportedReceipt: Sendable, Equatable {
    /// Copied, with its expense.
    case copied
    /// A receipt with this id is here already (copied before): nothing was written.
    case alreadyThere
    /// The same bytes are this store's receipt `id` already: nothing was written (same bytes,
    /// same receipt, as for any submission).
    case sameImage(UUID)
}

extension PostgresReceiptStore {
    /// Adds a receipt copied from another store, as it is (status, attempts, times), with its
    /// expense and that expense's corrections; a receipt that was `processing` there comes in
    /// `pending` (its worker's lease does not carry over). Copying again is harmless: a receipt
    /// whose id is here already is skipped. So is the first receipt of some bytes (`isFirstCopy`)
    /// when this store already has a receipt of those bytes; a forced re-read of them (not the
    /// first copy) comes in beside it, as it was beside its first copy in the source.
    public func importReceipt(_ receipt: Receipt, imageRef: String?, expense: Expense?, corrections: JSONValue?,
                              isFirstCopy: Bool = true) async throws -> ImportedReceipt {
        var copy = receipt
        if copy.ocrStatus == .processing { copy.ocrStatus = .pending }
        let receipt = copy
        return try await transaction { connection in
            let known = try await connection.query("SELECT 1 FROM receipts.receipt WHERE id = \(receipt.id)",
                                                   logger: self.logger).collect()
            guard known.isEmpty else { return .alreadyThere }
            var inserted = false
            if let hash = receipt.contentHash {
                inserted = try await !connection.query(
                    PostgresRows.insertReceipt(receipt, imageRef: imageRef, primaryCopy: true,
                                               onConflictDoNothing: "(content_hash) WHERE primary_copy"),
                    logger: self.logger).collect().isEmpty
                if !inserted, isFirstCopy, let existing = try await connection.query(
                    "SELECT id FROM receipts.receipt WHERE content_hash = \(hash) AND primary_copy", logger: self.logger).collect().first {
                    return .sameImage(try existing.decode(UUID.self))
                }
            }
            if !inserted {
                try await connection.query(PostgresRows.insertReceipt(receipt, imageRef: imageRef, primaryCopy: false),
                                           logger: self.logger)
            }
            if var expense {
                // Links between expenses are set once all are in (`linkPossibleDuplicate`).
                expense.possibleDuplicateOf = nil
                try await connection.query(PostgresRows.insertExpense(expense, corrections: corrections.map { $0.serialized() },
                                                                      onConflictDoNothing: true), logger: self.logger)
            }
            if receipt.ocrStatus == .pending { try await Self.notify(Self.workChannel, connection, self.logger) }
            return .copied
        }
    }

    /// Marks `expense` as a possible duplicate of `original` (both copied in).
    public func linkPossibleDuplicate(expense: UUID, original: UUID) async throws {
        try await execute("""
            UPDATE receipts.expense SET possible_duplicate_of = \(original)
            WHERE id = \(expense) AND EXISTS (SELECT 1 FROM receipts.expense WHERE id = \(original))
            """)
    }
}
