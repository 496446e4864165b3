import Foundation
import ReceiptModel

extension ReceiptStore {
    /// The store as `principal` may use it: every read answers only what it may see (a receipt or
    /// an expense outside is answered as if it did not exist), and every change is made by it and
    /// refused (`.invalidState`) when it may not make it. What a request or a command holds.
    public func scoped(to principal: Principal) -> ScopedStore {
        ScopedStore(store: self, principal: principal)
    }
}

/// A store seen by one `Principal` (see `ReceiptStore.scoped(to:)`). Its methods take no scope:
/// the principal's is applied to each, so a handler cannot forget it or pass another.
public struct ScopedStore: Sendable {
    /// The whole store: for this package's own steps after a scoped check (releasing a deleted
    /// receipt's pictures), never handed out.
    package let store: any ReceiptStore
    public let principal: Principal

    /// What the principal may see.
    public var scope: Scope { principal.scope }

    /// The database, for messages.
    public var location: String { store.location }

    // MARK: Reading

    public func receipt(id: UUID) async throws -> Receipt? { try await store.receipt(id: id, in: scope) }
    /// The receipt whose id starts with `prefix` (at least 4 characters); `.notFound`, `.ambiguousId`.
    public func receipt(idPrefix prefix: String) async throws -> Receipt { try await store.receipt(idPrefix: prefix, in: scope) }
    /// The oldest receipt it may see with these bytes.
    public func receipt(contentHash: String) async throws -> Receipt? { try await store.receipt(contentHash: contentHash, in: scope) }
    public func imagePath(ofReceipt id: UUID) async throws -> String? { try await store.imagePath(ofReceipt: id, in: scope) }
    /// A receipt's pictures in order (empty for a receipt of one picture).
    public func pictures(ofReceipt id: UUID) async throws -> [StoredPicture] { try await store.pictures(ofReceipt: id, in: scope) }
    /// A page of the receipts `query` selects (see `ReceiptQuery`).
    public func receipts(_ query: ReceiptQuery = ReceiptQuery()) async throws -> [Receipt] { try await store.receipts(query, in: scope) }
    public func expense(id: UUID) async throws -> Expense? { try await store.expense(id: id, in: scope) }
    public func expense(receiptId: UUID) async throws -> Expense? { try await store.expense(receiptId: receiptId, in: scope) }
    /// The expenses of these receipts, in one query.
    public func expenses(ofReceipts ids: [UUID]) async throws -> [Expense] { try await store.expenses(ofReceipts: ids, in: scope) }
    /// A page of the expenses `query` selects (see `ExpenseQuery`).
    public func expenses(_ query: ExpenseQuery = ExpenseQuery()) async throws -> [Expense] { try await store.expenses(query, in: scope) }
    /// `expenses(_:)` with each expense's receipt file, owner and corrections: what the export prints.
    public func expenseListings(_ query: ExpenseQuery) async throws -> [ExpenseListing] {
        try await store.expenseListings(query, in: scope)
    }
    /// The totals of the expenses `query` selects, summed by the store.
    public func expenseTotals(_ query: ExpenseQuery = ExpenseQuery()) async throws -> ExpenseTotals {
        try await store.expenseTotals(query, in: scope)
    }
    public func statusCounts() async throws -> [OCRStatus: Int] { try await store.statusCounts(in: scope) }
    /// The inbox's counts of the receipts `query` selects, each up to `cap`.
    public func inboxCounts(_ query: ReceiptQuery, cap: Int) async throws -> InboxCounts {
        try await store.inboxCounts(query, in: scope, cap: cap)
    }
    /// Of the expenses a person confirmed: how many, and per field how many had it corrected.
    public func correctionCounts() async throws -> (confirmed: Int, changed: [String: Int]) {
        try await store.correctionCounts(in: scope)
    }
    public func corrections(ofExpense id: UUID) async throws -> JSONValue { try await store.corrections(ofExpense: id, in: scope) }
    /// Who changed the expense and when, oldest first.
    public func history(ofExpense id: UUID) async throws -> [ExpenseChange] { try await store.history(ofExpense: id, in: scope) }

    // MARK: Changing

    /// The receipt it may see with this id, after checking it may change it (`deleting`: remove
    /// it): `.notFound` when it may not see it, `.invalidState` naming why when it may not change it.
    public func changeable(_ id: UUID, deleting: Bool = false) async throws -> Receipt {
        guard let receipt = try await receipt(id: id) else {
            throw ReceiptError(.notFound, "no receipt with id \(id.uuidString.lowercased())")
        }
        try principal.checkMayChange(receipt, deleting: deleting)
        return receipt
    }

    /// Deletes the receipt and its expense (see `ReceiptStore.deleteReceipt`), when it may delete
    /// it; returns the image path no other receipt uses, for the caller to remove.
    public func deleteReceipt(id: UUID, force: Bool) async throws -> String? {
        _ = try await changeable(id, deleting: true)
        return try await store.deleteReceipt(id: id, in: scope, force: force)
    }

    /// Saves its changes to an expense of a receipt it may change (see `ReceiptStore.correct`),
    /// as its `author`.
    public func correct(_ expense: Expense, changed: [(field: String, drafted: JSONValue)], now: Date,
                        expectedVersion: String?) async throws -> JSONValue {
        _ = try await changeable(expense.receiptId)
        return try await store.correct(expense, changed: changed, by: principal.author, in: scope, now: now,
                                       expectedVersion: expectedVersion)
    }

    /// Splits a receipt of several pictures it may change into receipts of its pictures (see
    /// `ReceiptPictureStore.split`): `parts` nil, one receipt per picture.
    public func split(id: UUID, into parts: [[Int]]? = nil, now: Date) async throws -> [(receipt: Receipt, isNew: Bool)] {
        _ = try await changeable(id)
        var parts = parts
        if parts == nil {
            let count = try await pictures(ofReceipt: id).count
            parts = count > 0 ? (1...count).map { [$0] } : []
        }
        return try await store.split(receipt: id, into: parts ?? [], in: scope, now: now)
    }

    /// Puts a failed receipt it may change back in the queue (see `ReceiptStore.requeue`).
    public func requeue(id: UUID, now: Date) async throws -> Receipt {
        _ = try await changeable(id)
        return try await store.requeue(id: id, in: scope, now: now)
    }

    /// Puts every failed receipt it may change back in the queue: an administrator's or an end
    /// user's whole scope in one statement; a user's own and those of the groups they edit (a
    /// group's viewer sees its failed receipts and leaves them).
    public func requeueFailed(now: Date) async throws -> [Receipt] {
        if principal.isAdmin || principal.externalUser != nil {
            return try await store.requeueFailed(in: scope, now: now)
        }
        var requeued: [Receipt] = []
        for receipt in try await store.receipts(ReceiptQuery(status: .failed), in: scope) where principal.mayChange(receipt) {
            do {
                requeued.append(try await store.requeue(id: receipt.id, in: scope, now: now))
            } catch let error as ReceiptError where error.code == .invalidState || error.code == .notFound {
                continue  // retried or deleted meanwhile by someone else
            }
        }
        return requeued
    }
}
