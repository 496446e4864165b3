import Foundation
import ReceiptModel

/// Where a store keeps the bytes of submitted receipts, so any worker can read them: a folder
/// (`ImageStore`, beside the SQLite file or shared between hosts) or the database itself
/// (PostgreSQL's `image` table). A receipt row holds the reference `store` returned.
public protocol ImageRepository: Sendable {
    /// For messages: a folder, or `postgres://…/db (image table)`.
    var location: String { get }
    /// Keeps `data` under its SHA-256 `hash` (nothing to do when it is there) and returns the
    /// reference to put in the receipt row. Durable when it returns.
    func store(_ data: Data, hash: String) async throws -> String
    /// The bytes of a reference `store` returned. Throws a `ReceiptError` naming the reference
    /// when they are gone.
    func load(_ reference: String) async throws -> Data
}

extension ImageStore: ImageRepository {
    public var location: String { directory.path }

    public func store(_ data: Data, hash: String) async throws -> String {
        try await Offload.run { try self.store(data, hash: hash) }
    }

    public func load(_ reference: String) async throws -> Data {
        try await Offload.run { try ReceiptFile.read(URL(fileURLWithPath: reference), file: reference) }
    }
}

/// Runs file reads, hashing and fsyncs on Dispatch's threads, so they never hold one of Swift's
/// cooperative threads (there are only as many as cores).
package enum Offload {
    package static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}
