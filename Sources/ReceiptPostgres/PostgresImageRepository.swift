import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

/// Receipt images in PostgreSQL's `receipts.image` table (bytea, keyed by SHA-256), so every worker
/// host reads them from the database it already reaches. References are `postgres-image:<hash>`.
public struct PostgresImageRepository: ImageRepository {
    public static let prefix = "postgres-image:"
    let store: PostgresReceiptStore

    public init(store: PostgresReceiptStore) {
        self.store = store
    }

    public var location: String { "\(store.location) (table receipts.image)" }

    public func store(_ data: Data, hash: String) async throws -> String {
        // Committed before the receipt row that names it is inserted.
        try await store.execute("INSERT INTO receipts.image (hash, data) VALUES (\(hash), \(data)) ON CONFLICT (hash) DO NOTHING")
        return Self.prefix + hash
    }

    public func load(_ reference: String) async throws -> Data {
        guard reference.hasPrefix(Self.prefix) else {
            // A receipt copied from a SQLite store whose images stayed in a folder.
            return try await ImageStore(directory: URL(fileURLWithPath: "/")).load(reference)
        }
        let hash = String(reference.dropFirst(Self.prefix.count))
        guard let row = try await store.rows("SELECT data FROM receipts.image WHERE hash = \(hash)").first else {
            throw ReceiptError(.unreadable, file: reference, "the stored image is missing from the database")
        }
        return try row.decode(Data.self)
    }
}
