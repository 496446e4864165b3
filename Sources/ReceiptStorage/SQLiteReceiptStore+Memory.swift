import Foundation
import GRDB
import ReceiptModel

/// The memory of shops in SQLite (schema `shop-memory`): `shop_vendor` (a book's shops by the
/// person's name), `shop_lesson` (what each confirmed receipt taught, gone with the receipt) and
/// `shop_key` (each key a lesson or an import taught, indexed by book, kind and value for the
/// lookup).
extension SQLiteReceiptStore {
    public func recall(_ keys: [ShopKey], in book: MemoryBook) async throws -> ShopRecall {
        guard !keys.isEmpty else { return ShopRecall() }
        return try await read { db in try Self.recall(keys, in: book, db) }
    }

    static func recall(_ keys: [ShopKey], in book: MemoryBook, _ db: Database) throws -> ShopRecall {
        // One seek of shop_key_lookup (book, kind, value) per key, UNION ALL-ed. Without statistics
        // (a store is never ANALYZEd) SQLite seeks `book` alone for a row-value `IN (VALUES …)` or an
        // OR of pairs and scans the book's keys: 65 ms a lookup at 100,000 keys (scripts/bench-memory).
        // At most 400 keys a statement (SQLite's compound SELECT limit is 500).
        var rows: [Row] = []
        for start in stride(from: 0, to: keys.count, by: 400) {
            let chunk = keys[start..<min(keys.count, start + 400)]
            let one = "SELECT kind, value, vendorId FROM shop_key WHERE book = ? AND kind = ? AND value = ?"
            var arguments: StatementArguments = []
            for key in chunk { arguments += [book.key, key.kind.rawValue, key.value] }
            rows += try Row.fetchAll(db, sql: "SELECT DISTINCT kind, value, vendorId FROM ("
                                     + Array(repeating: one, count: chunk.count).joined(separator: " UNION ALL ") + ")",
                                     arguments: arguments)
        }
        var pairs: [(key: ShopKey, shop: UUID)] = []
        for row in rows {
            guard let kind = ShopKeyKind(rawValue: row["kind"]), let id = StoreRows.uuid(row, "vendorId") else { continue }
            pairs.append((ShopKey(kind, row["value"]), id))
        }
        var shops: [UUID: RememberedShop] = [:]
        for id in Set(pairs.map(\.shop)) { shops[id] = try profile(of: id, db) }
        return ShopRecall(pairs: pairs, shops: shops)
    }

    /// A shop's profile from its row and its last lessons.
    static func profile(of id: UUID, _ db: Database) throws -> RememberedShop? {
        let idText = StoreRows.text(id)
        guard let vendor = try Row.fetchOne(db, sql: """
            SELECT v.*, (SELECT count(*) FROM shop_lesson l WHERE l.vendorId = v.id) AS lessons FROM shop_vendor v WHERE v.id = ?
            """, arguments: [idText]) else { return nil }
        let lessons = try Row.fetchAll(db, sql: """
            SELECT * FROM shop_lesson WHERE vendorId = ? ORDER BY confirmedAt DESC, rowid DESC LIMIT \(RememberedShop.recentLessons)
            """, arguments: [idText]).map { lesson($0, book: MemoryBook(key: vendor["book"]) ?? .user("")) }
        let count: Int = vendor["lessons"]
        let imported: Bool = vendor["imported"]
        return RememberedShop.profile(id: id, name: vendor["name"], confirmations: max(count, imported ? 1 : 0), lessons: lessons,
                                      category: vendor["category"], taxDeductiblePercentage: StoreRows.decimal(vendor, "taxDeductiblePercentage"))
    }

    static func lesson(_ row: Row, book: MemoryBook) -> ShopLesson {
        func list(_ column: String) -> [String] { (try? JSONValue.parse(row[column] as String))?.arrayValue?.compactMap(\.stringValue) ?? [] }
        return ShopLesson(receiptId: StoreRows.uuid(row, "receiptId") ?? UUID(), book: book, vendorName: row["taughtName"], keys: [],
                          category: row["category"], taxDeductiblePercentage: StoreRows.decimal(row, "taxDeductiblePercentage") ?? 0,
                          currency: row["currency"], taxRate: StoreRows.decimal(row, "taxRate"), totalLabels: list("totalLabels"),
                          dateRows: list("dateRows"), confirmedAt: row["confirmedAt"])
    }

    // MARK: Teaching (in the transaction of a person's correction)

    /// What the expense of receipt `receiptId`, as it is now stored, teaches its book: its lesson
    /// when it is confirmed (replacing the receipt's earlier lesson), else nothing (its earlier
    /// lesson taken back).
    static func relearn(receiptId: UUID, now: Date, _ db: Database) throws {
        let idText = StoreRows.text(receiptId)
        guard let receipt = try Row.fetchOne(db, sql: "SELECT owner, groupName, externalUser, metadata, ocrResultJson FROM receipt WHERE id = ?",
                                             arguments: [idText]),
              let expense = try Row.fetchOne(db, sql: "SELECT * FROM expense WHERE receiptId = ?", arguments: [idText]).map(StoreRows.expense),
              let lesson = ShopLesson(expense: expense, analysis: (receipt["ocrResultJson"] as String?).flatMap { try? JSONValue.parse($0) },
                                      ownership: StoreRows.ownership(receipt), now: now) else {
            try forget(receiptId: receiptId, db)
            return
        }
        try teach(lesson, now: now, db)
    }

    static func teach(_ lesson: ShopLesson, now: Date, _ db: Database) throws {
        let receipt = StoreRows.text(lesson.receiptId), book = lesson.book.key
        let nameKey = ShopLesson.nameKey(lesson.vendorName)
        let earlier = try Row.fetchOne(db, sql: "SELECT vendorId, taughtName FROM shop_lesson WHERE receiptId = ?", arguments: [receipt])
        // The same name as it taught before: the same shop, even renamed since.
        var vendor: String? = earlier.flatMap { row in
            ShopLesson.nameKey(row["taughtName"]) == nameKey ? row["vendorId"] as String? : nil
        }
        vendor = try vendor ?? String.fetchOne(db, sql: "SELECT id FROM shop_vendor WHERE book = ? AND nameKey = ?", arguments: [book, nameKey])
        if vendor == nil {
            let id = StoreRows.text(UUID())
            try db.execute(sql: """
                INSERT INTO shop_vendor (id, book, name, nameKey, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [id, book, lesson.vendorName, nameKey, now, now])
            vendor = id
        }
        try db.execute(sql: "DELETE FROM shop_lesson WHERE receiptId = ?", arguments: [receipt])
        try db.execute(sql: """
            INSERT INTO shop_lesson (receiptId, vendorId, taughtName, category, taxDeductiblePercentage, currency, taxRate,
                totalLabels, dateRows, confirmedAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [receipt, vendor, lesson.vendorName, lesson.category, lesson.taxDeductiblePercentage.plainString,
                             lesson.currency, lesson.taxRate?.plainString,
                             JSONValue.array(lesson.totalLabels.map(JSONValue.string)).serialized(),
                             JSONValue.array(lesson.dateRows.map(JSONValue.string)).serialized(), now])
        for key in lesson.keys {
            try db.execute(sql: "INSERT INTO shop_key (book, kind, value, vendorId, receiptId) VALUES (?, ?, ?, ?, ?)",
                           arguments: [book, key.kind.rawValue, key.value, vendor, receipt])
        }
        if let old = earlier?["vendorId"] as String?, old != vendor { try dropIfEmpty(old, db) }
    }

    /// Takes back what a receipt taught.
    static func forget(receiptId: UUID, _ db: Database) throws {
        let receipt = StoreRows.text(receiptId)
        guard let vendor = try String.fetchOne(db, sql: "SELECT vendorId FROM shop_lesson WHERE receiptId = ?", arguments: [receipt]) else { return }
        try db.execute(sql: "DELETE FROM shop_lesson WHERE receiptId = ?", arguments: [receipt])
        try dropIfEmpty(vendor, db)
    }

    /// Forgets a shop nothing teaches any more (no receipt, no imported key).
    static func dropIfEmpty(_ vendor: String, _ db: Database) throws {
        try db.execute(sql: """
            DELETE FROM shop_vendor WHERE id = ? AND NOT EXISTS (SELECT 1 FROM shop_lesson WHERE vendorId = ?)
                AND NOT EXISTS (SELECT 1 FROM shop_key WHERE vendorId = ?)
            """, arguments: [vendor, vendor, vendor])
    }

    /// After receipts were deleted (their lessons and keys with them): the shops left with nothing.
    static func dropEmptyVendors(_ db: Database) throws {
        try db.execute(sql: """
            DELETE FROM shop_vendor WHERE NOT EXISTS (SELECT 1 FROM shop_lesson l WHERE l.vendorId = shop_vendor.id)
                AND NOT EXISTS (SELECT 1 FROM shop_key k WHERE k.vendorId = shop_vendor.id)
            """)
    }

    // MARK: What people see and change

    /// `book IN (…)` for the books given (every book for nil), with its arguments.
    static func bookCondition(_ books: [MemoryBook]?, alias: String = "v") -> (String, StatementArguments) {
        guard let books else { return ("1 = 1", []) }
        guard !books.isEmpty else { return ("0 = 1", []) }
        return ("\(alias).book IN (\(Array(repeating: "?", count: books.count).joined(separator: ", ")))", StatementArguments(books.map(\.key)))
    }

    public func vendors(in books: [MemoryBook]?, after: UUID?, limit: Int) async throws -> [RememberedVendor] {
        try await read { db in
            let (condition, arguments) = Self.bookCondition(books)
            var sql = "SELECT v.* FROM shop_vendor v WHERE \(condition)"
            var args = arguments
            if let after {
                guard let cursor = try Row.fetchOne(db, sql: "SELECT nameKey, id FROM shop_vendor v WHERE v.id = ? AND \(condition)",
                                                    arguments: [StoreRows.text(after)] + arguments) else {
                    throw ReceiptError(.notFound, "no remembered shop with id \(StoreRows.text(after)) to list after")
                }
                sql += " AND (v.nameKey, v.id) > (?, ?)"
                args += [cursor["nameKey"] as String, cursor["id"] as String] as StatementArguments
            }
            sql += " ORDER BY v.nameKey, v.id LIMIT \(max(0, limit))"
            return try Row.fetchAll(db, sql: sql, arguments: args).compactMap { try Self.vendor($0, db) }
        }
    }

    public func vendor(id: UUID, in books: [MemoryBook]?) async throws -> RememberedVendor? {
        try await read { db in try Self.vendor(id: id, in: books, db) }
    }

    static func vendor(id: UUID, in books: [MemoryBook]?, _ db: Database) throws -> RememberedVendor? {
        let (condition, arguments) = bookCondition(books)
        return try Row.fetchOne(db, sql: "SELECT v.* FROM shop_vendor v WHERE v.id = ? AND \(condition)",
                                arguments: [StoreRows.text(id)] + arguments).flatMap { try vendor($0, db) }
    }

    static func vendor(_ row: Row, _ db: Database) throws -> RememberedVendor? {
        guard let id = StoreRows.uuid(row, "id"), let book = MemoryBook(key: row["book"]), let profile = try profile(of: id, db) else { return nil }
        let keys = try Row.fetchAll(db, sql: "SELECT DISTINCT kind, value FROM shop_key WHERE vendorId = ? ORDER BY kind, value",
                                    arguments: [StoreRows.text(id)]).compactMap { r in ShopKeyKind(rawValue: r["kind"]).map { ShopKey($0, r["value"]) } }
        let receipts = try Int.fetchOne(db, sql: "SELECT count(*) FROM shop_lesson WHERE vendorId = ?", arguments: [StoreRows.text(id)]) ?? 0
        return RememberedVendor(id: id, book: book, name: row["name"], category: profile.category, categorySet: row["category"] != nil,
                                taxDeductiblePercentage: profile.taxDeductiblePercentage, currency: profile.currency,
                                usualTaxRate: profile.usualTaxRate, receipts: receipts, keys: keys.sorted(), imported: row["imported"],
                                createdAt: row["createdAt"], updatedAt: row["updatedAt"])
    }

    public func changeVendor(id: UUID, _ change: VendorChange, in books: [MemoryBook]?, now: Date) async throws -> RememberedVendor {
        try await write { db in
            guard let current = try Self.vendor(id: id, in: books, db) else {
                throw ReceiptError(.notFound, "no remembered shop with id \(StoreRows.text(id))")
            }
            let idText = StoreRows.text(id)
            if let name = change.name {
                let cleaned = ShopLesson.cleaned(name)
                if let other = try String.fetchOne(db, sql: "SELECT name FROM shop_vendor WHERE book = ? AND nameKey = ? AND id <> ?",
                                                   arguments: [current.book.key, ShopLesson.nameKey(cleaned), idText]) {
                    throw ReceiptError(.invalidState, "another remembered shop is named '\(other)'; merge the two instead of renaming")
                }
                try db.execute(sql: "UPDATE shop_vendor SET name = ?, nameKey = ?, updatedAt = ? WHERE id = ?",
                               arguments: [cleaned, ShopLesson.nameKey(cleaned), now, idText])
            }
            if let category = change.category {
                try db.execute(sql: "UPDATE shop_vendor SET category = ?, taxDeductiblePercentage = NULL, updatedAt = ? WHERE id = ?",
                               arguments: [category, now, idText])
            }
            return try Self.vendor(id: id, in: books, db)!
        }
    }

    public func mergeVendor(id: UUID, into target: UUID, in books: [MemoryBook]?, now: Date) async throws -> RememberedVendor {
        try await write { db in
            guard let from = try Self.vendor(id: id, in: books, db), let to = try Self.vendor(id: target, in: books, db), from.book == to.book else {
                throw ReceiptError(.notFound, "no remembered shops \(StoreRows.text(id)) and \(StoreRows.text(target)) of one owner to merge")
            }
            let (a, b) = (StoreRows.text(id), StoreRows.text(target))
            try db.execute(sql: "UPDATE shop_lesson SET vendorId = ? WHERE vendorId = ?", arguments: [b, a])
            try db.execute(sql: "UPDATE shop_key SET vendorId = ? WHERE vendorId = ?", arguments: [b, a])
            try db.execute(sql: "UPDATE shop_vendor SET imported = max(imported, ?), updatedAt = ? WHERE id = ?", arguments: [from.imported, now, b])
            try db.execute(sql: "DELETE FROM shop_vendor WHERE id = ?", arguments: [a])
            return try Self.vendor(id: target, in: books, db)!
        }
    }

    public func forgetVendor(id: UUID, in books: [MemoryBook]?) async throws {
        try await write { db in
            guard try Self.vendor(id: id, in: books, db) != nil else {
                throw ReceiptError(.notFound, "no remembered shop with id \(StoreRows.text(id))")
            }
            // Its lessons and keys go with it (ON DELETE CASCADE).
            try db.execute(sql: "DELETE FROM shop_vendor WHERE id = ?", arguments: [StoreRows.text(id)])
        }
    }

    public func importMerchants(_ merchants: [KnownMerchant], into book: MemoryBook, now: Date) async throws -> [RememberedVendor] {
        try await write { db in
            var ids: [UUID] = []
            for merchant in merchants {
                let name = ShopLesson.cleaned(merchant.name), nameKey = ShopLesson.nameKey(merchant.name)
                var id = try String.fetchOne(db, sql: "SELECT id FROM shop_vendor WHERE book = ? AND nameKey = ?", arguments: [book.key, nameKey])
                if let id {
                    try db.execute(sql: "UPDATE shop_vendor SET imported = 1, category = coalesce(?, category), updatedAt = ? WHERE id = ?",
                                   arguments: [merchant.category, now, id])
                } else {
                    id = StoreRows.text(UUID())
                    try db.execute(sql: """
                        INSERT INTO shop_vendor (id, book, name, nameKey, category, imported, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, 1, ?, ?)
                        """, arguments: [id, book.key, name, nameKey, merchant.category, now, now])
                }
                for key in merchant.keys where try !Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM shop_key WHERE vendorId = ? AND receiptId IS NULL AND kind = ? AND value = ?)
                    """, arguments: [id, key.kind.rawValue, key.value])! {
                    try db.execute(sql: "INSERT INTO shop_key (book, kind, value, vendorId, receiptId) VALUES (?, ?, ?, ?, NULL)",
                                   arguments: [book.key, key.kind.rawValue, key.value, id])
                }
                if let uuid = id.flatMap(UUID.init(uuidString:)), !ids.contains(uuid) { ids.append(uuid) }
            }
            return try ids.compactMap { try Self.vendor(id: $0, in: [book], db) }
        }
    }

    public func taughtReceipts(ofVendor id: UUID, in books: [MemoryBook]?) async throws -> [UUID] {
        try await read { db in
            let (condition, arguments) = Self.bookCondition(books)
            return try String.fetchAll(db, sql: """
                SELECT l.receiptId FROM shop_lesson l JOIN shop_vendor v ON v.id = l.vendorId WHERE l.vendorId = ? AND \(condition)
                ORDER BY l.confirmedAt, l.rowid
                """, arguments: [StoreRows.text(id)] + arguments).compactMap(UUID.init(uuidString:))
        }
    }
}
