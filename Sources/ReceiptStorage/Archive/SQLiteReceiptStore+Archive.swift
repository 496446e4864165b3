import Foundation
import GRDB
import ReceiptModel

/// How the SQLite store keeps each archive entity: its table, the columns not named as the field
/// is, the order its rows are read in (the order they were written), and columns of its own a
/// restore computes (`{field}` stands for a field's value). An entity added to
/// `ArchiveEntities.all` needs one line here.
package struct SQLiteArchiveTable: Sendable {
    package var table: String
    package var columns: [String: String] = [:]
    package var order = "rowid"
    package var computed: [(column: String, expression: String)] = []

    package func column(_ field: String) -> String { columns[field] ?? field }
}

package enum SQLiteArchiveTables {
    package static let tables: [String: SQLiteArchiveTable] = [
        "groups": .init(table: "account_group"),
        "users": .init(table: "account"),
        "passwords": .init(table: "account_password"),
        "passkeys": .init(table: "passkey"),
        "invitations": .init(table: "invitation"),
        "group_members": .init(table: "group_member"),
        "tokens": .init(table: "api_token"),
        "webhook_subscriptions": .init(table: "webhook_subscription"),
        "receipts": .init(table: "receipt", columns: ["image": "imagePath"]),
        "receipt_pictures": .init(table: "receipt_picture", columns: ["image": "imagePath"], order: "receiptId, position"),
        // An expense is written with its receipt's ownership (schema `lists-as-queries`).
        "expenses": .init(table: "expense", computed: ["owner", "groupName", "externalUser"].map { column in
            (column, "(SELECT r.\(column) FROM receipt r WHERE r.id = {receiptId})")
        }),
        "expense_changes": .init(table: "expense_change", order: "id"),
        "shop_vendors": .init(table: "shop_vendor"),
        "shop_lessons": .init(table: "shop_lesson"),
        "shop_keys": .init(table: "shop_key"),
        "idempotency_keys": .init(table: "idempotency_key"),
        "webhook_events": .init(table: "webhook_event"),
        "settings": .init(table: "store_setting"),
        "mail_messages": .init(table: "mail_message", columns: ["eml": "emlPath"]),
        "mailboxes": .init(table: "mail_mailbox"),
    ]
}

extension SQLiteReceiptStore: StoreAdministration {
    public var kind: String { "sqlite" }

    private static func table(_ entity: ArchiveEntity) -> SQLiteArchiveTable? { SQLiteArchiveTables.tables[entity.name] }

    /// A column's value as the archive keeps it.
    static func archiveValue(_ value: DatabaseValue, _ kind: ArchiveField.Kind) -> JSONValue {
        switch value.storage {
        case .null:
            return .null
        case let .int64(n):
            switch kind {
            case .boolean: return .bool(n != 0)
            case .integer: return .number(String(n))
            default: return .string(String(n))
            }
        case let .double(d):
            return kind == .integer ? .number(String(Int64(d))) : .string(String(d))
        case let .blob(data):
            return .string(kind == .bytes ? data.base64EncodedString() : String(decoding: data, as: UTF8.self))
        case let .string(text):
            switch kind {
            case .text, .date, .decimal: return .string(text)
            case .integer: return Int64(text).map { .number(String($0)) } ?? .null
            case .boolean: return .bool(text == "1" || text.lowercased() == "true")
            case .timestamp: return .string(ArchiveValue.timestamp(fromStored: text))
            case .uuid: return .string(text.lowercased())
            case .textList: return (try? JSONValue.parse(text)) ?? .array([])
            case .image: return ArchiveValue.imageHash(ofReference: text).map(JSONValue.string) ?? .null
            case .bytes: return .string(Data(text.utf8).base64EncodedString())
            }
        }
    }

    /// An archive value as this store keeps it.
    static func storedValue(_ value: JSONValue?, _ kind: ArchiveField.Kind) -> DatabaseValue {
        guard let value, value != .null else { return .null }
        switch (kind, value) {
        case let (.boolean, .bool(b)): return (b ? 1 : 0).databaseValue
        case let (.integer, .number(n)): return (Int64(n) ?? Int64(Double(n) ?? 0)).databaseValue
        case let (.timestamp, .string(s)): return ArchiveValue.sqliteTimestamp(s).databaseValue
        case (.textList, _): return value.serialized().databaseValue
        case let (.bytes, .string(s)): return (Data(base64Encoded: s) ?? Data()).databaseValue
        case let (_, .string(s)): return s.databaseValue
        case let (_, .number(n)): return n.databaseValue
        case let (_, .bool(b)): return (b ? 1 : 0).databaseValue
        default: return value.serialized().databaseValue
        }
    }

    public func readRows(of entities: [ArchiveEntity], into sink: any ArchiveRowSink) async throws {
        try await read { db in try Self.readRows(of: entities, db, into: sink) }
    }

    static func readRows(of entities: [ArchiveEntity], _ db: Database, into sink: any ArchiveRowSink) throws {
        for entity in entities {
            guard let table = table(entity), try db.tableExists(table.table) else { continue }
            let columns = entity.fields.map { "\"\(table.column($0.name))\"" }.joined(separator: ", ")
            let cursor = try Row.fetchCursor(db, sql: "SELECT \(columns) FROM \(table.table) ORDER BY \(table.order)")
            while let row = try cursor.next() {
                var values: [String: JSONValue] = [:]
                for (index, field) in entity.fields.enumerated() {
                    let stored: DatabaseValue = row[index]
                    let value = archiveValue(stored, field.kind)
                    if field.kind == .image, case let .string(hash) = value, case let .string(reference) = stored.storage {
                        sink.image(hash: hash, reference: reference)
                    }
                    values[field.name] = value
                }
                try sink.row(entity, values)
            }
        }
    }

    public func values(of entity: ArchiveEntity, fields: [String]) async throws -> [[JSONValue]] {
        guard let table = Self.table(entity) else { return [] }
        let kinds = fields.map { entity.field($0)?.kind ?? .text }
        return try await read { db in
            guard try db.tableExists(table.table) else { return [] }
            let columns = fields.map { "\"\(table.column($0))\"" }.joined(separator: ", ")
            return try Row.fetchAll(db, sql: "SELECT \(columns) FROM \(table.table)").map { row in
                kinds.enumerated().map { index, kind in Self.archiveValue(row[index], kind) }
            }
        }
    }

    public func writeRows(from feed: ArchiveFeed) async throws {
        try await write { db in
            for entity in feed.entities {
                guard let table = Self.table(entity) else { continue }
                var columns = entity.fields.map { table.column($0.name) }
                var values = entity.fields.indices.map { "?\($0 + 1)" }
                for (column, expression) in table.computed {
                    columns.append(column)
                    var sql = expression
                    for (index, field) in entity.fields.enumerated() { sql = sql.replacingOccurrences(of: "{\(field.name)}", with: "?\(index + 1)") }
                    values.append(sql)
                }
                let keyColumns = entity.key.map { table.column($0) }
                let conflict: String
                if feed.merge || keyColumns.isEmpty {
                    conflict = feed.merge ? " ON CONFLICT DO NOTHING" : ""
                } else {
                    let updates = columns.filter { !keyColumns.contains($0) }.map { "\"\($0)\" = excluded.\"\($0)\"" }
                    conflict = " ON CONFLICT (\(keyColumns.map { "\"\($0)\"" }.joined(separator: ", "))) DO "
                        + (updates.isEmpty ? "NOTHING" : "UPDATE SET " + updates.joined(separator: ", "))
                }
                let statement = try db.cachedStatement(sql: """
                    INSERT INTO \(table.table) (\(columns.map { "\"\($0)\"" }.joined(separator: ", ")))
                    VALUES (\(values.joined(separator: ", ")))\(conflict)
                    """)
                let rows = try feed.rows(of: entity)
                while let row = try rows.next() {
                    try statement.execute(arguments: StatementArguments(entity.fields.map { Self.storedValue(row[$0.name], $0.kind) }))
                }
            }
            for (entity, key, field, value) in feed.deferred {
                guard let table = Self.table(entity), let keyField = entity.key.first, let kind = entity.field(keyField)?.kind else { continue }
                let k = table.column(keyField)
                try db.execute(sql: """
                    UPDATE \(table.table) SET "\(table.column(field))" = ?1
                    WHERE "\(k)" = ?2 AND EXISTS (SELECT 1 FROM \(table.table) WHERE "\(k)" = ?1)
                    """, arguments: [Self.storedValue(value, kind), Self.storedValue(key, kind)])
            }
        }
    }

    public func copyDatabase(to path: String) async throws -> [String: String]? {
        let location = self.location
        return try await Offload.run { [self] in
            do {
                let copy = try DatabaseQueue(path: path)
                try pool.backup(to: copy)
                return try copy.writeWithoutTransaction { db -> [String: String] in
                    // The copy is one file on its own (no -wal beside it), checked page by page.
                    try db.execute(sql: "PRAGMA journal_mode = DELETE")
                    let check = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                    guard check == ["ok"] else {
                        throw ReceiptError(.corrupt, file: path, "the copy of the store fails SQLite's integrity check",
                                           cause: check.prefix(3).joined(separator: "; "))
                    }
                    let sink = ImageReferences()
                    try Self.readRows(of: ArchiveEntities.all.filter { $0.fields.contains { $0.kind == .image } }, db, into: sink)
                    return sink.references
                }
            } catch {
                throw Self.map(error, file: location)
            }
        }
    }
}

/// Collects the image references rows name (nothing else).
final class ImageReferences: ArchiveRowSink, @unchecked Sendable {
    private(set) var references: [String: String] = [:]
    func row(_ entity: ArchiveEntity, _ values: [String: JSONValue]) throws {}
    func image(hash: String, reference: String) { references[hash] = reference }
}
