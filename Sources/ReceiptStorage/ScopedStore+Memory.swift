import Foundation
import ReceiptModel

/// The memory of shops as a principal may use it (`GET/PATCH/DELETE /v1/vendors`, `receipts
/// vendors`): the shops of the books it may see (`Principal.memoryBooks`); changes only to those
/// of books it may change (`Principal.mayChange`).
extension ScopedStore {
    /// A page of the shops it may see, by name.
    public func vendors(after: UUID? = nil, limit: Int = 100) async throws -> [RememberedVendor] {
        try await store.vendors(in: principal.memoryBooks, after: after, limit: limit)
    }

    public func vendor(id: UUID) async throws -> RememberedVendor? {
        try await store.vendor(id: id, in: principal.memoryBooks)
    }

    /// The shop it may see with this id, after checking it may change it: `.notFound` when it may
    /// not see it, `.invalidState` naming why when it may only see it.
    public func changeableVendor(_ id: UUID) async throws -> RememberedVendor {
        guard let vendor = try await vendor(id: id) else {
            throw ReceiptError(.notFound, "no remembered shop with id \(id.uuidString.lowercased())")
        }
        guard principal.mayChange(vendor.book) else {
            throw ReceiptError(.invalidState, "\(principal.name) may view, not change, the shops of \(vendor.book)")
        }
        return vendor
    }

    /// Renames or re-categorizes a shop for the receipts to come.
    public func changeVendor(id: UUID, _ change: VendorChange, now: Date = Date()) async throws -> RememberedVendor {
        _ = try await changeableVendor(id)
        return try await store.changeVendor(id: id, change, in: principal.memoryBooks, now: now)
    }

    /// Moves what a shop was taught to another of the same book and forgets it.
    public func mergeVendor(id: UUID, into target: UUID, now: Date = Date()) async throws -> RememberedVendor {
        let from = try await changeableVendor(id)
        guard let to = try await vendor(id: target) else {
            throw ReceiptError(.notFound, "no remembered shop with id \(target.uuidString.lowercased())")
        }
        guard to.book == from.book else {
            throw ReceiptError(.invalidInput, "'\(from.name)' and '\(to.name)' are remembered for different owners (\(from.book), \(to.book)); a shop merges only with one of its own book")
        }
        guard to.id != from.id else { throw ReceiptError(.invalidInput, "a shop cannot be merged into itself") }
        return try await store.mergeVendor(id: id, into: target, in: principal.memoryBooks, now: now)
    }

    /// Forgets a shop and what it was taught; its receipts and expenses stay as they are.
    public func forgetVendor(id: UUID) async throws {
        _ = try await changeableVendor(id)
        try await store.forgetVendor(id: id, in: principal.memoryBooks)
    }

    /// Imports known merchants into `book` (its own by default), all or none.
    public func importMerchants(_ merchants: [KnownMerchant], into book: MemoryBook? = nil, now: Date = Date()) async throws -> [RememberedVendor] {
        let book = book ?? principal.ownBook
        guard principal.mayChange(book) else {
            throw ReceiptError(principal.maySee(book) ? .invalidState : .notFound, "\(principal.name) may not change the shops of \(book)")
        }
        return try await store.importMerchants(merchants, into: book, now: now)
    }

    /// The receipts whose confirmed expenses taught a shop it may see.
    public func taughtReceipts(ofVendor id: UUID) async throws -> [UUID] {
        try await store.taughtReceipts(ofVendor: id, in: principal.memoryBooks)
    }
}
