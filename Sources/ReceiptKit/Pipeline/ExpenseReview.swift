import Foundation

extension ScopedStore {
    /// Applies a person's correction to an expense and saves it, with what the analyzer had
    /// drafted for each corrected field (`corrections`): the review step of `PATCH
    /// /v1/expenses/{id}` and `receipts expense edit|confirm`. With `ifMatch` (an `ETag`, a list of
    /// them, or `*`), only over that version: `.preconditionFailed` when the expense changed since.
    /// Without it, the correction applies to the expense as stored when it is saved (it is applied
    /// again when another correction lands in between, never over a version nobody read).
    /// Returns the expense as saved (as it was when the correction changes nothing).
    /// Throws `.notFound` for an expense it may not see, `.invalidState` for one of a receipt it may
    /// not change. The principal is who makes the change (kept in the expense's history, and as
    /// `confirmedBy` when it confirms it).
    @discardableResult
    public func correct(expenseId id: UUID, with correction: ExpenseCorrection, taxonomy: Taxonomy,
                        ifMatch: String? = nil, now: Date = Date()) async throws -> Expense {
        for _ in 0..<5 {
            guard let current = try await expense(id: id) else {
                throw ReceiptError(.notFound, "no expense with id \(id.uuidString.lowercased())", file: location)
            }
            if let ifMatch, !current.matches(ifMatch: ifMatch) {
                throw ReceiptError(.preconditionFailed,
                                   "expense \(id.uuidString.lowercased()) changed since it was read (its ETag is now \(current.etag)); read it again and reapply the change")
            }
            let (corrected, changed) = correction.applied(to: current, taxonomy: taxonomy)
            if corrected == current { return current }
            do {
                _ = try await correct(corrected, changed: changed.map { ($0.field, $0.before) }, now: now,
                                      expectedVersion: current.etag)
            } catch let error as ReceiptError where error.code == .preconditionFailed && ifMatch == nil {
                continue
            }
            return try await expense(id: id) ?? corrected
        }
        throw ReceiptError(.invalidState, "expense \(id.uuidString.lowercased()) is being corrected by others at this moment; try again",
                           file: location)
    }
}
