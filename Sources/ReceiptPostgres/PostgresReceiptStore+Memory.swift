import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

/// The memory of shops in PostgreSQL (schema `shop-memory`), as SQLite keeps it
/// (`SQLiteReceiptStore+Memory.swift`): `shop_vendor`, `shop_lesson` (gone with its receipt) and
/// `shop_key` (looked up by book, kind and value).
extension PostgresReceiptStore {
    public func recall(_ keys: [ShopKey], in book: MemoryBook) async throws -> ShopRecall {
        guard !keys.isEmpty else { return ShopRecall() }
        return try await transaction { connection in try await Self.recall(keys, in: book, connection, self.logger) }
    }

    static func recall(_ keys: [ShopKey], in book: MemoryBook, _ connection: PostgresConnection, _ logger: Logger) async throws -> ShopRecall {
        let rows = try await connection.query("""
            SELECT DISTINCT k.kind, k.value, k.vendor_id FROM receipts.shop_key k
            JOIN unnest(\(keys.map(\.kind.rawValue))::text[], \(keys.map(\.value))::text[]) AS wanted(kind, value)
                ON k.kind = wanted.kind AND k.value = wanted.value
            WHERE k.book = \(book.key)
            """, logger: logger).collect()
        var pairs: [(key: ShopKey, shop: UUID)] = []
        for row in rows {
            let (kind, value, id) = try row.decode((String, String, UUID).self)
            if let kind = ShopKeyKind(rawValue: kind) { pairs.append((ShopKey(kind, value), id)) }
        }
        var shops: [UUID: RememberedShop] = [:]
        for id in Set(pairs.map(\.shop)) { shops[id] = try await profile(of: id, connection, logger) }
        return ShopRecall(pairs: pairs, shops: shops)
    }

    static func profile(of id: UUID, _ connection: PostgresConnection, _ logger: Logger) async throws -> RememberedShop? {
        guard let vendor = try await connection.query("""
            SELECT v.book, v.name, v.category, v.tax_deductible_percentage::text, v.imported,
                (SELECT count(*) FROM receipts.shop_lesson l WHERE l.vendor_id = v.id)::integer
            FROM receipts.shop_vendor v WHERE v.id = \(id)
            """, logger: logger).collect().first else { return nil }
        let (bookKey, name, category, share, imported, count) = try vendor.decode((String, String, String?, String?, Bool, Int).self)
        let book = MemoryBook(key: bookKey) ?? .user("")
        let lessons = try await connection.query("""
            SELECT receipt_id, taught_name, category, tax_deductible_percentage::text, currency, tax_rate::text, total_labels, date_rows,
                confirmed_at
            FROM receipts.shop_lesson WHERE vendor_id = \(id) ORDER BY confirmed_at DESC, seq DESC LIMIT \(RememberedShop.recentLessons)
            """, logger: logger).collect().map { try lesson($0, book: book) }
        return RememberedShop.profile(id: id, name: name, confirmations: max(count, imported ? 1 : 0), lessons: lessons,
                                      category: category, taxDeductiblePercentage: PostgresRows.decimal(share))
    }

    static func lesson(_ row: PostgresRow, book: MemoryBook) throws -> ShopLesson {
        let (receipt, name, category, share, currency, rate, totals, dates, at) =
            try row.decode((UUID, String, String, String, String?, String?, [String], [String], Date).self)
        return ShopLesson(receiptId: receipt, book: book, vendorName: name, keys: [], category: category,
                          taxDeductiblePercentage: PostgresRows.decimal(share) ?? 0, currency: currency, taxRate: PostgresRows.decimal(rate),
                          totalLabels: totals, dateRows: dates, confirmedAt: at)
    }

    // MARK: Teaching (in the transaction of a person's correction)

    /// What the expense of receipt `receiptId`, as stored now, teaches its book (see SQLite's).
    static func relearn(receiptId: UUID, now: Date, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let rows = try await connection.query("""
            SELECT \(unescaped: PostgresRows.expenseColumns), r.owner, r.group_name, r.external_user, r.ocr_result_json
            FROM receipts.expense e JOIN receipts.receipt r ON r.id = e.receipt_id WHERE e.receipt_id = \(receiptId)
            """, logger: logger).collect()
        guard let row = rows.first else { return try await forget(receiptId: receiptId, connection, logger) }
        let expense = try PostgresRows.expense(row)
        let r = row.makeRandomAccess()
        let ownership = Ownership(owner: try r["owner"].decode(String.self), group: try r["group_name"].decode(String?.self),
                                  externalUser: try r["external_user"].decode(String?.self))
        let analysis = try r["ocr_result_json"].decode(String?.self).flatMap { try? JSONValue.parse($0) }
        guard let lesson = ShopLesson(expense: expense, analysis: analysis, ownership: ownership, now: now) else {
            return try await forget(receiptId: receiptId, connection, logger)
        }
        try await teach(lesson, now: now, connection, logger)
    }

    static func teach(_ lesson: ShopLesson, now: Date, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let book = lesson.book.key, nameKey = ShopLesson.nameKey(lesson.vendorName)
        let earlier = try await connection.query("""
            SELECT vendor_id, taught_name FROM receipts.shop_lesson WHERE receipt_id = \(lesson.receiptId)
            """, logger: logger).collect().first?.decode((UUID, String).self)
        var vendor: UUID? = earlier.flatMap { ShopLesson.nameKey($0.1) == nameKey ? $0.0 : nil }
        if vendor == nil {
            vendor = try await connection.query("""
                SELECT id FROM receipts.shop_vendor WHERE book = \(book) AND name_key = \(nameKey)
                """, logger: logger).collect().first?.decode(UUID.self)
        }
        if vendor == nil {
            let id = UUID()
            try await connection.query("""
                INSERT INTO receipts.shop_vendor (id, book, name, name_key, created_at, updated_at)
                VALUES (\(id), \(book), \(lesson.vendorName), \(nameKey), \(now), \(now))
                """, logger: logger)
            vendor = id
        }
        try await connection.query("DELETE FROM receipts.shop_lesson WHERE receipt_id = \(lesson.receiptId)", logger: logger)
        try await connection.query("""
            INSERT INTO receipts.shop_lesson (receipt_id, vendor_id, taught_name, category, tax_deductible_percentage, currency, tax_rate,
                total_labels, date_rows, confirmed_at)
            VALUES (\(lesson.receiptId), \(vendor!), \(lesson.vendorName), \(lesson.category), \(lesson.taxDeductiblePercentage.plainString)::numeric,
                \(lesson.currency), \(lesson.taxRate?.plainString)::numeric, \(lesson.totalLabels), \(lesson.dateRows), \(now))
            """, logger: logger)
        if !lesson.keys.isEmpty {
            try await connection.query("""
                INSERT INTO receipts.shop_key (book, kind, value, vendor_id, receipt_id)
                SELECT \(book), kind, value, \(vendor!), \(lesson.receiptId)
                FROM unnest(\(lesson.keys.map(\.kind.rawValue))::text[], \(lesson.keys.map(\.value))::text[]) AS k(kind, value)
                """, logger: logger)
        }
        if let old = earlier?.0, old != vendor { try await dropIfEmpty(old, connection, logger) }
    }

    static func forget(receiptId: UUID, _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard let vendor = try await connection.query("""
            DELETE FROM receipts.shop_lesson WHERE receipt_id = \(receiptId) RETURNING vendor_id
            """, logger: logger).collect().first?.decode(UUID.self) else { return }
        try await dropIfEmpty(vendor, connection, logger)
    }

    static func dropIfEmpty(_ vendor: UUID, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("""
            DELETE FROM receipts.shop_vendor v WHERE v.id = \(vendor)
                AND NOT EXISTS (SELECT 1 FROM receipts.shop_lesson WHERE vendor_id = v.id)
                AND NOT EXISTS (SELECT 1 FROM receipts.shop_key WHERE vendor_id = v.id)
            """, logger: logger)
    }

    // MARK: What people see and change

    /// `v.book = ANY(…)` for the books given (no condition for nil).
    static func books(_ books: [MemoryBook]?) -> (all: Bool, keys: [String]) {
        (books == nil, (books ?? []).map(\.key))
    }

    public func vendors(in books: [MemoryBook]?, after: UUID?, limit: Int) async throws -> [RememberedVendor] {
        let (all, keys) = Self.books(books)
        return try await transaction { connection in
            var cursor: (String, UUID)?
            if let after {
                guard let row = try await connection.query("""
                    SELECT v.name_key, v.id FROM receipts.shop_vendor v WHERE v.id = \(after) AND (\(all) OR v.book = ANY(\(keys)))
                    """, logger: self.logger).collect().first else {
                    throw ReceiptError(.notFound, "no remembered shop with id \(after.uuidString.lowercased()) to list after")
                }
                cursor = try row.decode((String, UUID).self)
            }
            let ids = try await connection.query("""
                SELECT v.id FROM receipts.shop_vendor v
                WHERE (\(all) OR v.book = ANY(\(keys))) AND (\(cursor == nil) OR (v.name_key, v.id) > (\(cursor?.0 ?? ""), \(cursor?.1 ?? UUID())))
                ORDER BY v.name_key, v.id LIMIT \(max(0, limit))
                """, logger: self.logger).collect().map { try $0.decode(UUID.self) }
            var out: [RememberedVendor] = []
            for id in ids { if let v = try await Self.vendor(id: id, all: true, keys: [], connection, self.logger) { out.append(v) } }
            return out
        }
    }

    public func vendor(id: UUID, in books: [MemoryBook]?) async throws -> RememberedVendor? {
        let (all, keys) = Self.books(books)
        return try await transaction { connection in try await Self.vendor(id: id, all: all, keys: keys, connection, self.logger) }
    }

    static func vendor(id: UUID, all: Bool, keys: [String], _ connection: PostgresConnection, _ logger: Logger) async throws -> RememberedVendor? {
        guard let row = try await connection.query("""
            SELECT v.book, v.name, v.category, v.imported, v.created_at, v.updated_at,
                (SELECT count(*) FROM receipts.shop_lesson l WHERE l.vendor_id = v.id)::integer
            FROM receipts.shop_vendor v WHERE v.id = \(id) AND (\(all) OR v.book = ANY(\(keys)))
            """, logger: logger).collect().first,
              let profile = try await profile(of: id, connection, logger) else { return nil }
        let (bookKey, name, category, imported, created, updated, receipts) = try row.decode((String, String, String?, Bool, Date, Date, Int).self)
        guard let book = MemoryBook(key: bookKey) else { return nil }
        let shopKeys = try await connection.query("""
            SELECT DISTINCT kind, value FROM receipts.shop_key WHERE vendor_id = \(id)
            """, logger: logger).collect().compactMap { row -> ShopKey? in
            let (kind, value) = try row.decode((String, String).self)
            return ShopKeyKind(rawValue: kind).map { ShopKey($0, value) }
        }
        return RememberedVendor(id: id, book: book, name: name, category: profile.category, categorySet: category != nil,
                                taxDeductiblePercentage: profile.taxDeductiblePercentage, currency: profile.currency,
                                usualTaxRate: profile.usualTaxRate, receipts: receipts, keys: shopKeys.sorted(), imported: imported,
                                createdAt: created, updatedAt: updated)
    }

    public func changeVendor(id: UUID, _ change: VendorChange, in books: [MemoryBook]?, now: Date) async throws -> RememberedVendor {
        let (all, keys) = Self.books(books)
        return try await transaction { connection in
            guard let current = try await Self.vendor(id: id, all: all, keys: keys, connection, self.logger) else {
                throw ReceiptError(.notFound, "no remembered shop with id \(id.uuidString.lowercased())")
            }
            if let name = change.name {
                let cleaned = ShopLesson.cleaned(name), nameKey = ShopLesson.nameKey(name)
                if let other = try await connection.query("""
                    SELECT name FROM receipts.shop_vendor WHERE book = \(current.book.key) AND name_key = \(nameKey) AND id <> \(id)
                    """, logger: self.logger).collect().first?.decode(String.self) {
                    throw ReceiptError(.invalidState, "another remembered shop is named '\(other)'; merge the two instead of renaming")
                }
                try await connection.query("""
                    UPDATE receipts.shop_vendor SET name = \(cleaned), name_key = \(nameKey), updated_at = \(now) WHERE id = \(id)
                    """, logger: self.logger)
            }
            if let category = change.category {
                try await connection.query("""
                    UPDATE receipts.shop_vendor SET category = \(category), tax_deductible_percentage = NULL, updated_at = \(now) WHERE id = \(id)
                    """, logger: self.logger)
            }
            return try await Self.vendor(id: id, all: all, keys: keys, connection, self.logger)!
        }
    }

    public func mergeVendor(id: UUID, into target: UUID, in books: [MemoryBook]?, now: Date) async throws -> RememberedVendor {
        let (all, keys) = Self.books(books)
        return try await transaction { connection in
            guard let from = try await Self.vendor(id: id, all: all, keys: keys, connection, self.logger),
                  let to = try await Self.vendor(id: target, all: all, keys: keys, connection, self.logger), from.book == to.book else {
                throw ReceiptError(.notFound, "no remembered shops \(id.uuidString.lowercased()) and \(target.uuidString.lowercased()) of one owner to merge")
            }
            try await connection.query("UPDATE receipts.shop_lesson SET vendor_id = \(target) WHERE vendor_id = \(id)", logger: self.logger)
            try await connection.query("UPDATE receipts.shop_key SET vendor_id = \(target) WHERE vendor_id = \(id)", logger: self.logger)
            try await connection.query("""
                UPDATE receipts.shop_vendor SET imported = imported OR \(from.imported), updated_at = \(now) WHERE id = \(target)
                """, logger: self.logger)
            try await connection.query("DELETE FROM receipts.shop_vendor WHERE id = \(id)", logger: self.logger)
            return try await Self.vendor(id: target, all: all, keys: keys, connection, self.logger)!
        }
    }

    public func forgetVendor(id: UUID, in books: [MemoryBook]?) async throws {
        let (all, keys) = Self.books(books)
        try await transaction { connection in
            let gone = try await connection.query("""
                DELETE FROM receipts.shop_vendor v WHERE v.id = \(id) AND (\(all) OR v.book = ANY(\(keys))) RETURNING 1
                """, logger: self.logger).collect()
            guard !gone.isEmpty else { throw ReceiptError(.notFound, "no remembered shop with id \(id.uuidString.lowercased())") }
        }
    }

    public func importMerchants(_ merchants: [KnownMerchant], into book: MemoryBook, now: Date) async throws -> [RememberedVendor] {
        try await transaction { connection in
            var ids: [UUID] = []
            for merchant in merchants {
                let name = ShopLesson.cleaned(merchant.name), nameKey = ShopLesson.nameKey(merchant.name)
                let id: UUID
                if let found = try await connection.query("""
                    SELECT id FROM receipts.shop_vendor WHERE book = \(book.key) AND name_key = \(nameKey)
                    """, logger: self.logger).collect().first?.decode(UUID.self) {
                    id = found
                    try await connection.query("""
                        UPDATE receipts.shop_vendor SET imported = true, category = coalesce(\(merchant.category), category), updated_at = \(now)
                        WHERE id = \(id)
                        """, logger: self.logger)
                } else {
                    id = UUID()
                    try await connection.query("""
                        INSERT INTO receipts.shop_vendor (id, book, name, name_key, category, imported, created_at, updated_at)
                        VALUES (\(id), \(book.key), \(name), \(nameKey), \(merchant.category), true, \(now), \(now))
                        """, logger: self.logger)
                }
                let keys = merchant.keys
                try await connection.query("""
                    INSERT INTO receipts.shop_key (book, kind, value, vendor_id, receipt_id)
                    SELECT \(book.key), k.kind, k.value, \(id), NULL
                    FROM unnest(\(keys.map(\.kind.rawValue))::text[], \(keys.map(\.value))::text[]) AS k(kind, value)
                    WHERE NOT EXISTS (SELECT 1 FROM receipts.shop_key s WHERE s.vendor_id = \(id) AND s.receipt_id IS NULL
                        AND s.kind = k.kind AND s.value = k.value)
                    """, logger: self.logger)
                if !ids.contains(id) { ids.append(id) }
            }
            var out: [RememberedVendor] = []
            for id in ids { if let v = try await Self.vendor(id: id, all: true, keys: [], connection, self.logger) { out.append(v) } }
            return out
        }
    }

    public func taughtReceipts(ofVendor id: UUID, in books: [MemoryBook]?) async throws -> [UUID] {
        let (all, keys) = Self.books(books)
        return try await rows("""
            SELECT l.receipt_id FROM receipts.shop_lesson l JOIN receipts.shop_vendor v ON v.id = l.vendor_id
            WHERE l.vendor_id = \(id) AND (\(all) OR v.book = ANY(\(keys))) ORDER BY l.confirmed_at, l.seq
            """).map { try $0.decode(UUID.self) }
    }

    // MARK: Copying a store (`store migrate`)

    /// Adds a source store's memory of shops, its rows as an archive reads them (`ArchiveEntities`'
    /// `shop_vendors`, `shop_lessons`, `shop_keys`, in their fields' order): what is there already
    /// is kept; a lesson comes only with its receipt. Run again, it adds nothing.
    func importShopMemory(vendors: [[JSONValue]], lessons: [[JSONValue]], keys: [[JSONValue]]) async throws {
        @Sendable func text(_ v: JSONValue) -> String? { v.stringValue }
        @Sendable func uuid(_ v: JSONValue) -> UUID? { v.stringValue.flatMap(UUID.init(uuidString:)) }
        @Sendable func list(_ v: JSONValue) -> [String] { v.arrayValue?.compactMap(\.stringValue) ?? [] }
        try await transaction { connection in
            // Source shop → the target's shop of the same book and name.
            var shop: [UUID: UUID] = [:]
            for row in vendors {
                guard row.count == 9, let id = uuid(row[0]), let book = text(row[1]), let name = text(row[2]), let nameKey = text(row[3]),
                      let created = text(row[7]), let updated = text(row[8]) else { continue }
                let found = try await connection.query("""
                    INSERT INTO receipts.shop_vendor (id, book, name, name_key, category, tax_deductible_percentage, imported, created_at, updated_at)
                    VALUES (\(id), \(book), \(name), \(nameKey), \(text(row[4])), \(text(row[5]))::numeric, \(row[6].boolValue ?? false),
                        \(created)::timestamptz, \(updated)::timestamptz)
                    ON CONFLICT (book, name_key) DO UPDATE SET imported = receipts.shop_vendor.imported OR excluded.imported
                    RETURNING id
                    """, logger: self.logger).collect().first?.decode(UUID.self)
                shop[id] = found ?? id
            }
            var copied = Set<UUID>()
            for row in lessons {
                guard row.count == 10, let receipt = uuid(row[0]), let vendor = uuid(row[1]).flatMap({ shop[$0] }), let name = text(row[2]),
                      let category = text(row[3]), let share = text(row[4]), let at = text(row[9]) else { continue }
                let inserted = try await connection.query("""
                    INSERT INTO receipts.shop_lesson (receipt_id, vendor_id, taught_name, category, tax_deductible_percentage, currency, tax_rate,
                        total_labels, date_rows, confirmed_at)
                    SELECT \(receipt), \(vendor), \(name), \(category), \(share)::numeric, \(text(row[5])), \(text(row[6]))::numeric,
                        \(list(row[7])), \(list(row[8])), \(at)::timestamptz
                    WHERE EXISTS (SELECT 1 FROM receipts.receipt WHERE id = \(receipt))
                    ON CONFLICT (receipt_id) DO NOTHING RETURNING 1
                    """, logger: self.logger).collect()
                if !inserted.isEmpty { copied.insert(receipt) }
            }
            for row in keys {
                guard row.count == 5, let book = text(row[0]), let kind = text(row[1]), let value = text(row[2]),
                      let vendor = uuid(row[3]).flatMap({ shop[$0] }) else { continue }
                let receipt = uuid(row[4])
                // A lesson's key comes with its lesson; an imported one once.
                if let receipt, !copied.contains(receipt) { continue }
                try await connection.query("""
                    INSERT INTO receipts.shop_key (book, kind, value, vendor_id, receipt_id)
                    SELECT \(book), \(kind), \(value), \(vendor), \(receipt)
                    WHERE \(receipt != nil) OR NOT EXISTS (SELECT 1 FROM receipts.shop_key WHERE vendor_id = \(vendor) AND receipt_id IS NULL
                        AND kind = \(kind) AND value = \(value))
                    """, logger: self.logger)
            }
        }
    }
}
