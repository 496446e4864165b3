import Foundation

extension ReceiptPipeline {
    /// The pipeline as `principal` may use it: the door of a backend, the HTTP server and the
    /// command line to the receipts (see `ScopedPipeline`). Submitting takes an `Ownership`
    /// instead (whose a new receipt becomes).
    public func scoped(to principal: Principal) -> ScopedPipeline {
        ScopedPipeline(pipeline: self, principal: principal)
    }
}

/// A pipeline seen by one `Principal` (`pipeline.scoped(to:)`): what it may see of the receipts,
/// their images and expenses, and the changes it may make. Nothing here takes a scope.
public struct ScopedPipeline: Sendable {
    let pipeline: ReceiptPipeline
    public let principal: Principal

    init(pipeline: ReceiptPipeline, principal: Principal) {
        self.pipeline = pipeline
        self.principal = principal
    }

    /// The store's reads and changes, as the principal may make them.
    public var records: ScopedStore { pipeline.store.scoped(to: principal) }

    var scope: Scope { principal.scope }

    public func receipt(id: UUID) async throws -> Receipt? { try await records.receipt(id: id) }
    public func receipts(_ query: ReceiptQuery = ReceiptQuery()) async throws -> [Receipt] { try await records.receipts(query) }
    public func receipt(contentHash: String) async throws -> Receipt? { try await records.receipt(contentHash: contentHash) }
    public func expense(forReceipt id: UUID) async throws -> Expense? { try await records.expense(receiptId: id) }
    public func expenses(_ query: ExpenseQuery = ExpenseQuery()) async throws -> [Expense] { try await records.expenses(query) }
    /// How many of the receipts it may see are in each status.
    public func statusCounts() async throws -> [OCRStatus: Int] { try await records.statusCounts() }

    /// The bytes submitted for a receipt it may see: nil when there is no such receipt or its
    /// bytes are no longer stored.
    public func image(ofReceipt id: UUID) async throws -> Data? {
        guard let reference = try await records.imagePath(ofReceipt: id) else { return nil }
        return try? await pipeline.images.load(reference)
    }
    /// A receipt's pictures in order (empty for a receipt of one picture).
    public func pictures(ofReceipt id: UUID) async throws -> [StoredPicture] { try await records.pictures(ofReceipt: id) }
    /// The bytes of one of those pictures.
    public func image(ofPicture picture: StoredPicture) async throws -> Data? { try await pipeline.image(ofPicture: picture) }

    /// The receipt once it is completed or failed (read by any process's workers). `.notFound`
    /// for one it may not see; `CancellationError` when the task is cancelled.
    public func waitForCompletion(of id: UUID) async throws -> Receipt { try await pipeline.waitForCompletion(of: id, in: scope) }

    /// Puts a failed receipt it may change back in the queue (attempts reset). `.invalidState` when
    /// it is not failed or it may not change it, `.notFound` when it may not see it.
    @discardableResult
    public func retry(_ id: UUID) async throws -> Receipt {
        let receipt = try await records.requeue(id: id, now: Date())
        pipeline.queue.workAvailable.notifyAll()
        return receipt
    }

    /// Puts every failed receipt it may change back in the queue (see `ScopedStore.requeueFailed`).
    @discardableResult
    public func retryFailed() async throws -> [Receipt] {
        let receipts = try await records.requeueFailed(now: Date())
        if !receipts.isEmpty { pipeline.queue.workAvailable.notifyAll() }
        return receipts
    }

    /// Adds a picture below a receipt it may change (the rest of a long receipt, photographed after
    /// it was read) and reads the receipt again with it: pending again, its drafted expense drafted
    /// anew. `.notFound` when it may not see it; `.invalidState` when it may not change it or its
    /// expense is confirmed.
    @discardableResult
    public func addPicture(_ picture: ReceiptPicture, toReceipt id: UUID) async throws -> Receipt {
        _ = try await records.changeable(id)
        return try await pipeline.queue.addPicture(picture, toReceipt: id, in: scope)
    }

    /// Splits a receipt of several pictures it may change into receipts of its pictures — pictures
    /// of different receipts sent as one — and has them read: `parts` are the new receipts'
    /// pictures (positions from 1, in order), nil for one receipt per picture. The receipt and its
    /// drafted expense are deleted; a part the owner has already is that receipt (`isNew` false;
    /// put back in the queue when it failed). `.notFound` when it may not see it; `.invalidState`
    /// when it may not change it, its expense is confirmed, or it is of one picture.
    @discardableResult
    public func split(_ id: UUID, into parts: [[Int]]? = nil) async throws -> [(receipt: Receipt, isNew: Bool)] {
        try await pipeline.queue.split(id, into: parts, records: records)
    }

    /// Deletes a receipt it may delete, its expense and the bytes no other receipt keeps; returns
    /// the image files the caller removes.
    public func deleteReceipt(id: UUID, force: Bool) async throws -> [String] {
        try await records.deleteReceiptAndPictures(id: id, force: force)
    }
}
