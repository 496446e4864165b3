import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

/// The pictures of receipts photographed in several (`ReceiptPictureStore`): the table
/// `receipts.receipt_picture` (migration `pictures`).
extension PostgresReceiptStore {
    public func insert(_ receipt: Receipt, pictures: [StoredPicture], deduplicate: Bool) async throws -> (receipt: Receipt, isNew: Bool) {
        let location = self.location
        return try await transaction { connection in
            do {
                var rows: [PostgresRow] = []
                if receipt.contentHash != nil {
                    // The first receipt of these pictures, of this owner and end user, is their
                    // primary copy (the unique index decides, as for one picture).
                    rows = try await connection.query(
                        PostgresRows.insertReceipt(receipt, imageRef: pictures.first?.imagePath, primaryCopy: true,
                                                   onConflictDoNothing: PostgresRows.primaryCopyConflict),
                        logger: self.logger).collect()
                    if rows.isEmpty, deduplicate, let hash = receipt.contentHash {
                        let o = receipt.ownership
                        let existing = try await connection.query("""
                            SELECT * FROM receipts.receipt WHERE owner = \(o.owner) AND coalesce(external_user, '') = \(o.externalUser ?? "")
                                AND content_hash = \(hash) AND primary_copy
                            """, logger: self.logger).collect()
                        if let row = existing.first { return (try PostgresRows.receipt(row), false) }
                    }
                }
                if rows.isEmpty {
                    rows = try await connection.query(PostgresRows.insertReceipt(receipt, imageRef: pictures.first?.imagePath, primaryCopy: false),
                                                      logger: self.logger).collect()
                }
                for picture in pictures { try await Self.insert(picture, of: receipt.id, connection, self.logger) }
                if receipt.ocrStatus == .pending { try await Self.notify(Self.workChannel, connection, self.logger) }
                return (try PostgresRows.receipt(rows[0]), true)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23503" {
                throw Self.missingOwnership(receipt.ownership, error, file: location)
            }
        }
    }

    public func pictures(ofReceipt id: UUID, in scope: Scope) async throws -> [StoredPicture] {
        try await rows("""
            SELECT p.position, p.name, p.content_hash, p.image_ref FROM receipts.receipt_picture p JOIN receipts.receipt r ON r.id = p.receipt_id
            WHERE p.receipt_id = \(id) AND \(scope: scope, alias: "r") ORDER BY p.position
            """).map(Self.picture)
    }

    public func addPicture(name: String, contentHash: String, imagePath: String, toReceipt id: UUID, in scope: Scope,
                           now: Date) async throws -> Receipt {
        let location = self.location
        return try await transaction { connection in
            let key = id.uuidString.lowercased()
            guard let row = try await connection.query(
                "SELECT * FROM receipts.receipt r WHERE r.id = \(id) AND \(scope: scope, alias: "r") FOR UPDATE OF r",
                logger: self.logger).collect().first else {
                throw ReceiptError(.notFound, "no receipt with id \(key)", file: location)
            }
            if try await !connection.query(
                "SELECT 1 FROM receipts.expense WHERE receipt_id = \(id) AND status = 'confirmed'", logger: self.logger).collect().isEmpty {
                throw ReceiptError(.invalidState, "receipt \(key) has a confirmed expense (a person's record): a picture is not added to it", file: location)
            }
            var pictures = try await connection.query("""
                SELECT position, name, content_hash, image_ref FROM receipts.receipt_picture WHERE receipt_id = \(id) ORDER BY position
                """, logger: self.logger).collect().map(Self.picture)
            if pictures.isEmpty {
                // A receipt of one picture so far: that picture becomes the first of several.
                let receipt = try PostgresRows.receipt(row)
                guard let first = try row.makeRandomAccess()["image_ref"].decode(String?.self), let hash = receipt.contentHash else {
                    throw ReceiptError(.invalidState, "receipt \(key) has no stored image to add a picture to", file: location)
                }
                let picture = StoredPicture(position: 1, name: (receipt.filePath as NSString).lastPathComponent, contentHash: hash, imagePath: first)
                try await Self.insert(picture, of: id, connection, self.logger)
                pictures = [picture]
            }
            let added = StoredPicture(position: pictures.count + 1, name: name, contentHash: contentHash, imagePath: imagePath)
            try await Self.insert(added, of: id, connection, self.logger)
            try await connection.query("DELETE FROM receipts.expense WHERE receipt_id = \(id)", logger: self.logger)
            let hash = ContentHash.hex(ofPictures: (pictures + [added]).map(\.contentHash))
            // The primary copy of the new set of pictures, unless the owner has one already.
            let rows = try await connection.query("""
                UPDATE receipts.receipt r SET content_hash = \(hash), ocr_status = 'pending', attempts = 0, last_error = NULL,
                    ocr_result_json = NULL, ocr_text = NULL, analyzer = NULL, expense_id = NULL, lease_owner = NULL,
                    lease_expires_at = NULL, not_before = NULL, updated_at = \(now),
                    primary_copy = NOT EXISTS (SELECT 1 FROM receipts.receipt o WHERE o.owner = r.owner
                        AND coalesce(o.external_user, '') = coalesce(r.external_user, '') AND o.content_hash = \(hash) AND o.primary_copy AND o.id <> r.id)
                WHERE r.id = \(id) RETURNING *
                """, logger: self.logger).collect()
            try await Self.notify(Self.workChannel, connection, self.logger)
            return try PostgresRows.receipt(rows[0])
        }
    }

    public func split(receipt id: UUID, into parts: [[Int]], in scope: Scope, now: Date) async throws -> [(receipt: Receipt, isNew: Bool)] {
        let location = self.location
        return try await transaction { connection in
            let key = id.uuidString.lowercased()
            guard let row = try await connection.query(
                "SELECT * FROM receipts.receipt r WHERE r.id = \(id) AND \(scope: scope, alias: "r") FOR UPDATE OF r",
                logger: self.logger).collect().first else {
                throw ReceiptError(.notFound, "no receipt with id \(key)", file: location)
            }
            if try await !connection.query(
                "SELECT 1 FROM receipts.expense WHERE receipt_id = \(id) AND status = 'confirmed' FOR UPDATE", logger: self.logger).collect().isEmpty {
                throw ReceiptError(.invalidState, "receipt \(key) has a confirmed expense (a person's record): it is not split", file: location)
            }
            let original = try PostgresRows.receipt(row)
            let pictures = try await connection.query("""
                SELECT position, name, content_hash, image_ref FROM receipts.receipt_picture WHERE receipt_id = \(id) ORDER BY position
                """, logger: self.logger).collect().map(Self.picture)
            let made = try StoredPicture.split(pictures, of: original, into: parts, now: now)
            // The receipt goes first (its pictures, expense and idempotency keys with it: ON DELETE
            // CASCADE); its bytes stay, kept by the new receipts.
            try await connection.query("DELETE FROM receipts.receipt WHERE id = \(id)", logger: self.logger)
            var receipts: [(receipt: Receipt, isNew: Bool)] = []
            for (receipt, own, imageRef) in made {
                // The first receipt of these pictures, of this owner and end user, is their primary
                // copy; one the owner has already is that receipt.
                let rows = try await connection.query(
                    PostgresRows.insertReceipt(receipt, imageRef: imageRef, primaryCopy: true, onConflictDoNothing: PostgresRows.primaryCopyConflict),
                    logger: self.logger).collect()
                guard let inserted = rows.first else {
                    let o = receipt.ownership
                    let existing = try await connection.query("""
                        SELECT * FROM receipts.receipt WHERE owner = \(o.owner) AND coalesce(external_user, '') = \(o.externalUser ?? "")
                            AND content_hash = \(receipt.contentHash ?? "") AND primary_copy
                        """, logger: self.logger).collect()
                    guard let known = existing.first else {
                        throw ReceiptError(.database, "receipt \(key) could not be split: a copy of its pictures is being stored", file: location, retry: .later)
                    }
                    receipts.append((try PostgresRows.receipt(known), false))
                    continue
                }
                for picture in own { try await Self.insert(picture, of: receipt.id, connection, self.logger) }
                receipts.append((try PostgresRows.receipt(inserted), true))
            }
            try await Self.notify(Self.workChannel, connection, self.logger)
            return receipts
        }
    }

    public func isImageUsed(_ imagePath: String) async throws -> Bool {
        try await rows("""
            SELECT EXISTS (SELECT 1 FROM receipts.receipt WHERE image_ref = \(imagePath))
                OR EXISTS (SELECT 1 FROM receipts.receipt_picture WHERE image_ref = \(imagePath))
            """).first?.decode(Bool.self) ?? false
    }

    public func releaseImages(_ imagePaths: [String]) async throws -> [String] {
        var files: [String] = []
        for path in Set(imagePaths).sorted() where try await !isImageUsed(path) {
            if path.hasPrefix(PostgresImageRepository.prefix) {
                try await execute("DELETE FROM receipts.image WHERE hash = \(String(path.dropFirst(PostgresImageRepository.prefix.count)))")
            } else {
                files.append(path)
            }
        }
        return files
    }

    static func insert(_ picture: StoredPicture, of receipt: UUID, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO receipts.receipt_picture (receipt_id, position, name, content_hash, image_ref)
            VALUES (\(receipt), \(picture.position), \(picture.name), \(picture.contentHash), \(picture.imagePath))
            """, logger: logger)
    }

    private static func picture(_ row: PostgresRow) throws -> StoredPicture {
        let (position, name, hash, image) = try row.decode((Int, String, String, String).self)
        return StoredPicture(position: position, name: name, contentHash: hash, imagePath: image)
    }
}
