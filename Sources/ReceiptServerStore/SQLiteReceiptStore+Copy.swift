import Foundation
import GRDB
import ReceiptStorage

/// What `receipts store migrate` reads of a SQLite store beyond the `ServerStore` protocol.
extension SQLiteReceiptStore {
    /// Each token's name and the SHA-256 of its secret (all that is kept of it): a token copied
    /// with its hash keeps working with the secret its holder has. Not part of `ServerStore`: no
    /// server or command shows a hash.
    package func tokenSecretHashes() async throws -> [String: String] {
        try await read { db in
            var hashes: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, secretHash FROM api_token") { hashes[row["name"]] = row["secretHash"] }
            return hashes
        }
    }
}
