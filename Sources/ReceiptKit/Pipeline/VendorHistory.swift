import Foundation

/// A remembered shop's new name or category applied to the past (`PATCH /v1/vendors/{id}` with
/// `applyToPast`, `receipts vendors rename --apply-to-past`): each expense of a receipt that taught
/// the shop is corrected to it as a person's correction (kept in its history), where the principal
/// may change that receipt.
public enum VendorHistory {
    /// Corrects the taught receipts' expenses; returns how many changed.
    public static func apply(_ vendor: RememberedVendor, _ change: VendorChange, through store: ScopedStore,
                             taxonomy: Taxonomy) async throws -> Int {
        var correction = ExpenseCorrection()
        if change.name != nil { correction.description = vendor.name }
        if let category = change.category, let category { correction.category = category }
        guard !correction.isEmpty else { return 0 }
        var changed = 0
        for receipt in try await store.taughtReceipts(ofVendor: vendor.id) {
            guard let mine = try await store.receipt(id: receipt), store.principal.mayChange(mine),
                  let expense = try await store.expense(receiptId: receipt) else { continue }
            let saved = try await store.correct(expenseId: expense.id, with: correction, taxonomy: taxonomy)
            if saved != expense { changed += 1 }
        }
        return changed
    }
}
