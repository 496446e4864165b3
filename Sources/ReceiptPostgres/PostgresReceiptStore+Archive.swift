import Foundation
import Logging
import PostgresNIO
import ReceiptModel
import ReceiptStorage

/// How the PostgreSQL store keeps each archive entity: its table in the schema `receipts`, the
/// columns not named as the field in snake_case, the order its rows are read in, and columns of
/// its own a restore computes (`{field}` stands for a field's value). An entity added to
/// `ArchiveEntities.all` needs one line here.
struct PostgresArchiveTable: Sendable {
    var table: String
    var columns: [String: String] = [:]
    var order = "seq"
    var computed: [(column: String, expression: String)] = []

    func column(_ field: String) -> String { columns[field] ?? field.snakeCased }
}

enum PostgresArchiveTables {
    static let tables: [String: PostgresArchiveTable] = [
        "groups": .init(table: "account_group", order: "created_at, name"),
        "users": .init(table: "account", order: "created_at, name"),
        "passwords": .init(table: "account_password", order: "user_name"),
        "passkeys": .init(table: "passkey", order: "created_at, id"),
        "invitations": .init(table: "invitation", order: "created_at, id"),
        "group_members": .init(table: "group_member", order: "group_name, user_name"),
        "tokens": .init(table: "api_token", order: "created_at, name"),
        "webhook_subscriptions": .init(table: "webhook_subscription"),
        // The first receipt of some bytes (per owner and end user) is their primary copy (schema v5).
        "receipts": .init(table: "receipt", columns: ["image": "image_ref"], computed: [("primary_copy", """
            ({contentHash} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM receipts.receipt x WHERE x.owner = {owner}
                AND coalesce(x.external_user, '') = coalesce({externalUser}, '') AND x.content_hash = {contentHash} AND x.primary_copy))
            """)]),
        "receipt_pictures": .init(table: "receipt_picture", columns: ["image": "image_ref"], order: "receipt_id, position"),
        "expenses": .init(table: "expense"),
        "expense_changes": .init(table: "expense_change", order: "id"),
        "shop_vendors": .init(table: "shop_vendor", order: "created_at, id"),
        "shop_lessons": .init(table: "shop_lesson", order: "seq"),
        "shop_keys": .init(table: "shop_key", order: "vendor_id, kind, value"),
        "idempotency_keys": .init(table: "idempotency_key", order: "created_at, owner, external_user, key"),
        "webhook_events": .init(table: "webhook_event"),
        "settings": .init(table: "store_setting", order: "name"),
        "mail_messages": .init(table: "mail_message", columns: ["eml": "eml_path"]),
        "mailboxes": .init(table: "mail_mailbox", order: "mailbox"),
    ]
}

extension PostgresReceiptStore: StoreAdministration {
    public var kind: String { "postgresql" }

    private static func table(_ entity: ArchiveEntity) -> PostgresArchiveTable? { PostgresArchiveTables.tables[entity.name] }

    /// The column read as the archive's text.
    private static func select(_ column: String, _ kind: ArchiveField.Kind) -> String {
        switch kind {
        case .text, .image: return column
        case .timestamp: return "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"
        case .date: return "to_char(\(column), 'YYYY-MM-DD')"
        case .textList: return "array_to_json(\(column))::text"
        case .bytes: return "translate(encode(\(column), 'base64'), E'\\n', '')"
        case .integer, .boolean, .decimal, .uuid: return "\(column)::text"
        }
    }

    /// A bound parameter (always text) as the column's type.
    private static func cast(_ parameter: String, _ kind: ArchiveField.Kind) -> String {
        switch kind {
        case .text, .image: return "\(parameter)::text"
        case .integer: return "\(parameter)::bigint"
        case .boolean: return "\(parameter)::boolean"
        case .timestamp: return "\(parameter)::timestamptz"
        case .date: return "\(parameter)::date"
        case .decimal: return "\(parameter)::numeric"
        case .uuid: return "\(parameter)::uuid"
        case .textList: return "ARRAY(SELECT json_array_elements_text(\(parameter)::json))"
        case .bytes: return "decode(\(parameter)::text, 'base64')"
        }
    }

    private static func archiveValue(_ text: String?, _ kind: ArchiveField.Kind) -> JSONValue {
        guard let text else { return .null }
        switch kind {
        case .integer: return .number(text)
        case .boolean: return .bool(text == "true" || text == "t")
        case .textList: return (try? JSONValue.parse(text)) ?? .array([])
        case .image: return ArchiveValue.imageHash(ofReference: text).map(JSONValue.string) ?? .null
        default: return .string(text)
        }
    }

    private static func text(_ value: JSONValue?, _ kind: ArchiveField.Kind) -> String? {
        guard let value, value != .null else { return nil }
        switch value {
        case let .string(s): return s
        case let .number(n): return n
        case let .bool(b): return b ? "true" : "false"
        default: return value.serialized()
        }
    }

    public func readRows(of entities: [ArchiveEntity], into sink: any ArchiveRowSink) async throws {
        try await archiveTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY") { connection, logger in
            for entity in entities {
                guard let table = Self.table(entity) else { continue }
                let columns = entity.fields.map { Self.select(table.column($0.name), $0.kind) }.joined(separator: ", ")
                let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                    SELECT \(columns) FROM receipts.\(table.table) ORDER BY \(table.order)
                    """), logger: logger)
                for try await row in rows {
                    var values: [String: JSONValue] = [:]
                    for (cell, field) in zip(row, entity.fields) {
                        let text = try cell.decode(String?.self)
                        let value = Self.archiveValue(text, field.kind)
                        if field.kind == .image, case let .string(hash) = value, let text { sink.image(hash: hash, reference: text) }
                        values[field.name] = value
                    }
                    try sink.row(entity, values)
                }
            }
        }
    }

    public func values(of entity: ArchiveEntity, fields: [String]) async throws -> [[JSONValue]] {
        guard let table = Self.table(entity) else { return [] }
        let kinds = fields.map { entity.field($0)?.kind ?? .text }
        let columns = zip(fields, kinds).map { Self.select(table.column($0), $1) }.joined(separator: ", ")
        return try await rows(PostgresQuery(unsafeSQL: "SELECT \(columns) FROM receipts.\(table.table)")).map { row in
            try zip(row, kinds).map { cell, kind in Self.archiveValue(try cell.decode(String?.self), kind) }
        }
    }

    public func writeRows(from feed: ArchiveFeed) async throws {
        try await archiveTransaction("BEGIN") { connection, logger in
            var pending = false
            for entity in feed.entities {
                guard let table = Self.table(entity) else { continue }
                let sql = Self.insert(entity, table, merge: feed.merge)
                let rows = try feed.rows(of: entity)
                while let row = try rows.next() {
                    var binds = PostgresBindings()
                    for field in entity.fields { binds.append(Self.text(row[field.name], field.kind)) }
                    try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
                    if entity.name == "receipts", row["ocrStatus"] == .string(OCRStatus.pending.rawValue) { pending = true }
                }
            }
            for (entity, key, field, value) in feed.deferred {
                guard let table = Self.table(entity), let keyField = entity.key.first, let kind = entity.field(keyField)?.kind else { continue }
                let k = table.column(keyField)
                var binds = PostgresBindings()
                binds.append(Self.text(value, kind))
                binds.append(Self.text(key, kind))
                try await connection.query(PostgresQuery(unsafeSQL: """
                    UPDATE receipts.\(table.table) SET \(table.column(field)) = \(Self.cast("$1", kind))
                    WHERE \(k) = \(Self.cast("$2", kind)) AND EXISTS (SELECT 1 FROM receipts.\(table.table) WHERE \(k) = \(Self.cast("$1", kind)))
                    """, binds: binds), logger: logger)
            }
            if pending { try await Self.notify(Self.workChannel, connection, logger) }
        }
    }

    /// Runs `body` on one connection between `begin` and COMMIT (ROLLBACK when it throws). Not the
    /// store's `transaction(_:)`: that one gives a request a few seconds to answer, and an
    /// archive's read or restore is one transaction of every row.
    private func archiveTransaction(_ begin: String,
                                    _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Void) async throws {
        try await ensureReachable()
        do {
            try await client.withConnection { [logger] connection in
                try await connection.query(PostgresQuery(unsafeSQL: begin), logger: logger)
                do {
                    try await body(connection, logger)
                    try await connection.query("COMMIT", logger: logger)
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        } catch {
            throw map(error)
        }
    }

    /// `INSERT … VALUES ($1::uuid, …)`: a row that names one already there replaces it (an empty
    /// store's `admin`), or under `--merge` stays as it is.
    private static func insert(_ entity: ArchiveEntity, _ table: PostgresArchiveTable, merge: Bool) -> String {
        var parameters: [String: String] = [:]
        for (index, field) in entity.fields.enumerated() { parameters[field.name] = cast("$\(index + 1)", field.kind) }
        var columns = entity.fields.map { table.column($0.name) }
        var values = entity.fields.map { parameters[$0.name]! }
        for (column, expression) in table.computed {
            columns.append(column)
            var sql = expression
            for (name, parameter) in parameters { sql = sql.replacingOccurrences(of: "{\(name)}", with: parameter) }
            values.append(sql)
        }
        let keyColumns = entity.key.map { table.column($0) }
        var conflict = ""
        if merge {
            conflict = " ON CONFLICT DO NOTHING"
        } else if !keyColumns.isEmpty {
            let updates = columns.filter { !keyColumns.contains($0) }.map { "\($0) = EXCLUDED.\($0)" }
            conflict = " ON CONFLICT (\(keyColumns.joined(separator: ", "))) DO "
                + (updates.isEmpty ? "NOTHING" : "UPDATE SET " + updates.joined(separator: ", "))
        }
        return "INSERT INTO receipts.\(table.table) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))\(conflict)"
    }

    /// PostgreSQL's backup is its rows (`readRows`), not a file.
    public func copyDatabase(to path: String) async throws -> [String: String]? { nil }
}
