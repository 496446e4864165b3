import Foundation

/// A batch's candidate pictures (`BatchItem.candidates`: `NAME-1.jpg`, `NAME-2.jpg`…), read
/// together: one receipt when each overlaps the one before, else split into receipts of the
/// pictures that do, as the watched folder does (`IntakeService.handle(pictures:…)`).
extension ReceiptPipeline {
    /// A receipt submitted for the batch: reported at once when it is finished (known before),
    /// else left for the batch's workers.
    func report(_ receipt: Receipt, name: String, isNew: Bool, scope: Scope, tracker: BatchTracker,
                onOutcome: @Sendable (ReceiptOutcome) async -> Void) async throws {
        if receipt.ocrStatus == .completed || receipt.ocrStatus == .failed {
            let expense = try await store.expense(receiptId: receipt.id, in: scope)
            await onOutcome(ReceiptOutcome(source: name, receipt: receipt, expense: expense, isDuplicate: !isNew))
        } else {
            await tracker.add(receipt.id, source: .init(name: name, isDuplicate: !isNew))
        }
    }

    /// The finished receipt of candidate pictures (`paths`): reported as it is when they are one
    /// receipt (or it is one the owner had of these pictures: left as it was made); otherwise
    /// split (`ScopedPipeline.split`), each new receipt reported when it is finished — at once
    /// when the owner had it already, else by the batch's workers.
    func resolve(_ outcome: ReceiptOutcome, candidates paths: [String], as ownership: Ownership, tracker: BatchTracker,
                 onOutcome: @Sendable (ReceiptOutcome) async -> Void) async {
        guard !outcome.isDuplicate, let parts = IntakeService.parts(of: outcome.receipt, pictures: paths.count) else {
            return await onOutcome(outcome)
        }
        let split: [(receipt: Receipt, isNew: Bool)]
        do {
            split = try await scoped(to: Principal(filing: ownership)).split(outcome.receipt.id, into: parts)
        } catch {
            // Not split (a person confirmed it meanwhile, the store failed): reported as read.
            logger.warning("Pictures read together could not be split apart", metadata: [
                "receipt.id": "\(outcome.receipt.id.uuidString.lowercased())", "error.message": "\(error)"])
            return await onOutcome(outcome)
        }
        let scope = Scope.owner(ownership.owner)
        for (part, made) in zip(parts, split) {
            do {
                try await report(made.receipt, name: paths[part[0] - 1], isNew: made.isNew, scope: scope, tracker: tracker, onOutcome: onOutcome)
            } catch {
                logger.warning("A receipt split apart could not be reported", metadata: [
                    "receipt.id": "\(made.receipt.id.uuidString.lowercased())", "error.message": "\(error)"])
            }
        }
    }
}
