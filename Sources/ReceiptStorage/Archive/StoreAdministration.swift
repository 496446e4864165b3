import Foundation
import ReceiptModel

/// What `receipts store backup|export|restore` need of a store: every row of every archive entity
/// read at once, rows written back, a copy of the database file. A protocol of its own, apart from
/// `ReceiptStore`: the HTTP handlers and a library's users never hold it. Each store implements it
/// over its one table of entities (`SQLiteArchiveTables`, `PostgresArchiveTables`).
public protocol StoreAdministration: Sendable {
    /// For messages (a PostgreSQL password masked).
    var location: String { get }
    /// `sqlite` or `postgresql`.
    var kind: String { get }

    /// Calls `sink` with every row of `entities`, entity by entity in that order, all from one
    /// consistent snapshot of the store (SQLite: one read transaction; PostgreSQL: one REPEATABLE
    /// READ transaction): writers go on meanwhile and none of their changes is half in it.
    func readRows(of entities: [ArchiveEntity], into sink: any ArchiveRowSink) async throws

    /// The values of `fields` in every row of `entity` here (for `--merge` and to see whether the
    /// store is empty).
    func values(of entity: ArchiveEntity, fields: [String]) async throws -> [[JSONValue]]

    /// Writes the rows `feed` gives, entity by entity, in one transaction: all or nothing.
    func writeRows(from feed: ArchiveFeed) async throws

    /// A consistent copy of the database in the file `path` (SQLite's online backup API, while
    /// other processes go on writing), checked with `PRAGMA integrity_check`; returns the image
    /// references its rows name, by SHA-256. Nil for a store that is not one file (PostgreSQL: its
    /// backup is its rows, `readRows`).
    func copyDatabase(to path: String) async throws -> [String: String]?
}

/// Where `readRows` puts what it reads.
public protocol ArchiveRowSink: Sendable {
    /// One row, its values by field name (as `ArchiveEntity` documents them).
    func row(_ entity: ArchiveEntity, _ values: [String: JSONValue]) throws
    /// A row names the image `hash`, kept in the store's image repository as `reference`.
    func image(hash: String, reference: String)
}

/// The rows a restore writes, pulled entity by entity: what the archive holds, brought up to the
/// entities and fields this build knows (an older archive's missing fields get their `missing`
/// value), with images as the target's references, and under `--merge` without what the target has
/// already (by key, by `alsoThere`, or because its parent row was skipped).
public final class ArchiveFeed: @unchecked Sendable {
    /// Replacing (an empty store: a row the store was made with gives way to the archive's) or merging.
    public let merge: Bool
    /// The entities the archive holds, in the order they are written.
    public let entities: [ArchiveEntity]
    private let container: any ArchiveContainer
    private let imageReferences: [String: String]
    /// Under `--merge`: per entity, the keys (and `alsoThere` keys) the store has.
    private let existing: [String: [[String]: Set<String>]]
    /// Per entity, the one-field keys of rows skipped (their children are skipped too).
    private var skipped: [String: Set<String>] = [:]
    /// Fields to set once every row is in: entity, the row's key value, field, value.
    public private(set) var deferred: [(entity: ArchiveEntity, key: JSONValue, field: String, value: JSONValue)] = []
    /// Rows written and skipped, per entity.
    public private(set) var written: [String: Int] = [:]
    public private(set) var skippedCounts: [String: Int] = [:]

    init(container: any ArchiveContainer, entities: [ArchiveEntity], imageReferences: [String: String],
         merge: Bool, existing: [String: [[String]: Set<String>]]) {
        self.container = container
        self.entities = entities
        self.imageReferences = imageReferences
        self.merge = merge
        self.existing = existing
    }

    /// The text a key's values are compared by (a null as the empty text).
    static func keyText(_ values: [JSONValue]) -> String {
        values.map { value -> String in
            switch value {
            case .null: return ""
            case let .string(s): return s
            default: return value.serialized()
            }
        }.joined(separator: "\u{1F}")
    }

    /// The next row of `entity`, or nil at its end.
    public func rows(of entity: ArchiveEntity) throws -> RowReader {
        RowReader(feed: self, entity: entity, lines: try container.lines(of: entity.file))
    }

    public final class RowReader {
        private let feed: ArchiveFeed
        private let entity: ArchiveEntity
        private let lines: LineReader

        fileprivate init(feed: ArchiveFeed, entity: ArchiveEntity, lines: LineReader) {
            self.feed = feed
            self.entity = entity
            self.lines = lines
        }

        public func next() throws -> [String: JSONValue]? {
            while let line = try lines.next() {
                if let row = try feed.take(line, of: entity, at: lines.number) { return row }
            }
            return nil
        }
    }

    private func take(_ line: Data, of entity: ArchiveEntity, at number: Int) throws -> [String: JSONValue]? {
        guard case let .object(pairs)? = try? JSONValue.parse(line) else {
            throw ReceiptError(.damagedArchive, file: container.location, "\(entity.file) line \(number) is not a JSON object")
        }
        let given = Dictionary(pairs, uniquingKeysWith: { _, last in last })
        var row: [String: JSONValue] = [:]
        for field in entity.fields { row[field.name] = given[field.name] ?? field.missing }
        entity.adjust?(&row)
        // A row whose parent stayed out stays out.
        for (field, parent) in entity.parents {
            if let value = row[field], let gone = skipped[parent], gone.contains(Self.keyText([value])) {
                return skip(row, of: entity)
            }
        }
        if merge, let known = existing[entity.name] {
            for key in [entity.key] + entity.alsoThere where !key.isEmpty {
                let values = key.map { row[$0] ?? .null }
                if key.count > 1, values.last == .null { continue }
                if known[key]?.contains(Self.keyText(values)) == true { return skip(row, of: entity) }
            }
        }
        for field in entity.fields {
            if field.kind == .image, case let .string(hash)? = row[field.name] {
                row[field.name] = imageReferences[hash].map(JSONValue.string) ?? .null
            }
            if field.deferred, let value = row[field.name], value != .null, let key = entity.key.first {
                deferred.append((entity, row[key] ?? .null, field.name, value))
                row[field.name] = .null
            }
        }
        written[entity.name, default: 0] += 1
        return row
    }

    private func skip(_ row: [String: JSONValue], of entity: ArchiveEntity) -> [String: JSONValue]? {
        if entity.key.count == 1, let value = row[entity.key[0]] {
            skipped[entity.name, default: []].insert(Self.keyText([value]))
        }
        skippedCounts[entity.name, default: 0] += 1
        return nil
    }
}

extension String {
    /// `ocrResultJson` → `ocr_result_json`.
    public var snakeCased: String {
        var out = ""
        for character in self {
            if character.isUppercase {
                out += "_" + character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }
}
