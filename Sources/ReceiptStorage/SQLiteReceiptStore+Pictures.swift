import Foundation
import ReceiptModel
import GRDB

/// The pictures of receipts photographed in several (`ReceiptPictureStore`): the table
/// `receipt_picture` (migration `pictures`).
extension SQLiteReceiptStore {
    public func insert(_ receipt: Receipt, pictures: [StoredPicture], deduplicate: Bool) async throws -> (receipt: Receipt, isNew: Bool) {
        let ownership = receipt.ownership
        let location = self.location
        return try await write { db in
            try Self.checkOwnership(ownership, db, file: location)
            if deduplicate, let hash = receipt.contentHash,
               let row = try Row.fetchOne(db, sql: Self.duplicateLookup, arguments: [ownership.owner, hash, ownership.externalUser]) {
                return (StoreRows.receipt(row), false)
            }
            try StoreRows.insert(receipt, imagePath: pictures.first?.imagePath, db)
            for picture in pictures {
                try Self.insert(picture, of: StoreRows.text(receipt.id), db)
            }
            let stored = try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ?", arguments: [StoreRows.text(receipt.id)])
            return (stored.map(StoreRows.receipt) ?? receipt, true)
        }
    }

    public func pictures(ofReceipt id: UUID, in scope: Scope) async throws -> [StoredPicture] {
        let (condition, arguments) = StoreRows.condition(scope)
        return try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT p.* FROM receipt_picture p JOIN receipt ON receipt.id = p.receiptId
                WHERE p.receiptId = ? AND \(condition) ORDER BY p.position
                """, arguments: [StoreRows.text(id)] + arguments).map(Self.picture)
        }
    }

    public func addPicture(name: String, contentHash: String, imagePath: String, toReceipt id: UUID, in scope: Scope,
                           now: Date) async throws -> Receipt {
        let (condition, arguments) = StoreRows.condition(scope)
        let location = self.location
        return try await write { db in
            let idText = StoreRows.text(id)
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ? AND \(condition)", arguments: [idText] + arguments) else {
                throw ReceiptError(.notFound, "no receipt with id \(idText)", file: location)
            }
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM expense WHERE receiptId = ? AND status = 'confirmed')",
                                 arguments: [idText]) == true {
                throw ReceiptError(.invalidState, "receipt \(idText) has a confirmed expense (a person's record): a picture is not added to it", file: location)
            }
            var pictures = try Row.fetchAll(db, sql: "SELECT * FROM receipt_picture WHERE receiptId = ? ORDER BY position",
                                            arguments: [idText]).map(Self.picture)
            if pictures.isEmpty {
                // A receipt of one picture so far: that picture becomes the first of several.
                let receipt = StoreRows.receipt(row)
                guard let first = row["imagePath"] as String?, let hash = receipt.contentHash else {
                    throw ReceiptError(.invalidState, "receipt \(idText) has no stored image to add a picture to", file: location)
                }
                let picture = StoredPicture(position: 1, name: (receipt.filePath as NSString).lastPathComponent, contentHash: hash, imagePath: first)
                try Self.insert(picture, of: idText, db)
                pictures = [picture]
            }
            let added = StoredPicture(position: pictures.count + 1, name: name, contentHash: contentHash, imagePath: imagePath)
            try Self.insert(added, of: idText, db)
            try db.execute(sql: "DELETE FROM expense WHERE receiptId = ?", arguments: [idText])
            try db.execute(sql: """
                UPDATE receipt SET contentHash = ?, ocrStatus = 'pending', attempts = 0, lastError = NULL, ocrResultJson = NULL,
                    ocrText = NULL, analyzer = NULL, expenseId = NULL, leaseOwner = NULL, leaseExpiresAt = NULL, notBefore = NULL,
                    updatedAt = ?
                WHERE id = ?
                """, arguments: [ContentHash.hex(ofPictures: (pictures + [added]).map(\.contentHash)), now, idText])
            return StoreRows.receipt(try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ?", arguments: [idText])!)
        }
    }

    public func split(receipt id: UUID, into parts: [[Int]], in scope: Scope, now: Date) async throws -> [(receipt: Receipt, isNew: Bool)] {
        let (condition, arguments) = StoreRows.condition(scope)
        let location = self.location
        return try await write { db in
            let idText = StoreRows.text(id)
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ? AND \(condition)", arguments: [idText] + arguments) else {
                throw ReceiptError(.notFound, "no receipt with id \(idText)", file: location)
            }
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM expense WHERE receiptId = ? AND status = 'confirmed')",
                                 arguments: [idText]) == true {
                throw ReceiptError(.invalidState, "receipt \(idText) has a confirmed expense (a person's record): it is not split", file: location)
            }
            let original = StoreRows.receipt(row)
            let pictures = try Row.fetchAll(db, sql: "SELECT * FROM receipt_picture WHERE receiptId = ? ORDER BY position",
                                            arguments: [idText]).map(Self.picture)
            let made = try StoredPicture.split(pictures, of: original, into: parts, now: now)
            // The receipt goes first (its pictures and expense with it): its bytes stay, kept by the new receipts.
            try db.execute(sql: "DELETE FROM idempotency_key WHERE receiptId = ?", arguments: [idText])
            try db.execute(sql: "DELETE FROM expense WHERE receiptId = ?", arguments: [idText])
            try db.execute(sql: "DELETE FROM receipt WHERE id = ?", arguments: [idText])
            let ownership = original.ownership
            var receipts: [(receipt: Receipt, isNew: Bool)] = []
            for (receipt, own, imagePath) in made {
                if let hash = receipt.contentHash,
                   let row = try Row.fetchOne(db, sql: Self.duplicateLookup, arguments: [ownership.owner, hash, ownership.externalUser]) {
                    receipts.append((StoreRows.receipt(row), false))
                    continue
                }
                try StoreRows.insert(receipt, imagePath: imagePath, db)
                for picture in own { try Self.insert(picture, of: StoreRows.text(receipt.id), db) }
                let stored = try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ?", arguments: [StoreRows.text(receipt.id)])
                receipts.append((stored.map(StoreRows.receipt) ?? receipt, true))
            }
            return receipts
        }
    }

    public func isImageUsed(_ imagePath: String) async throws -> Bool {
        try await read { db in
            try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM receipt WHERE imagePath = ?) OR EXISTS (SELECT 1 FROM receipt_picture WHERE imagePath = ?)
                """, arguments: [imagePath, imagePath]) ?? false
        }
    }

    public func releaseImages(_ imagePaths: [String]) async throws -> [String] {
        var unused: [String] = []
        for path in Set(imagePaths).sorted() where try await !isImageUsed(path) { unused.append(path) }
        return unused
    }

    private static func insert(_ picture: StoredPicture, of receipt: String, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO receipt_picture (receiptId, position, name, contentHash, imagePath) VALUES (?, ?, ?, ?, ?)",
                       arguments: [receipt, picture.position, picture.name, picture.contentHash, picture.imagePath])
    }

    private static func picture(_ row: Row) -> StoredPicture {
        StoredPicture(position: row["position"], name: row["name"], contentHash: row["contentHash"], imagePath: row["imagePath"])
    }
}
