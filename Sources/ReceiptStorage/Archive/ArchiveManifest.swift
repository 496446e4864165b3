import Foundation
import ReceiptModel

/// `manifest.json`: what an archive or a backup holds, with the SHA-256 of each file, written last
/// (an archive or a backup without it is incomplete). The format is documented in docs/backup.md.
struct ArchiveManifest: Sendable {
    static let format = "receipts-archive"

    struct File: Sendable {
        var name: String
        var entity: String?
        var rows: Int?
        var bytes: Int
        var sha256: String
    }

    struct Image: Sendable {
        var hash: String
        var bytes: Int
    }

    var version = ArchiveEntities.version
    /// `archive` (one file) or `backup` (a snapshot folder).
    var kind: String
    var createdAt: String
    /// The store it was made from (a password masked) and its kind, `sqlite` or `postgresql`.
    var source: String
    var store: String
    /// A backup of a SQLite store: the copy of its database (`receipts.sqlite`).
    var database: File?
    /// The JSON-lines files, one per entity.
    var files: [File] = []
    /// Each image's file is `images/<first two>/<hash>`; its SHA-256 is its name.
    var images: [Image] = []
    /// Images rows named that were gone when they were copied (a receipt deleted meanwhile).
    var missingImages: [String] = []

    func json() -> JSONValue {
        func file(_ f: File) -> JSONValue {
            var pairs: [(String, JSONValue)] = [("name", .string(f.name))]
            if let entity = f.entity { pairs.append(("entity", .string(entity))) }
            if let rows = f.rows { pairs.append(("rows", .number(String(rows)))) }
            pairs += [("bytes", .number(String(f.bytes))), ("sha256", .string(f.sha256))]
            return .object(pairs)
        }
        var pairs: [(String, JSONValue)] = [
            ("format", .string(Self.format)), ("version", .number(String(version))), ("kind", .string(kind)),
            ("createdAt", .string(createdAt)), ("source", .string(source)), ("store", .string(store)),
        ]
        if let database { pairs.append(("database", file(database))) }
        pairs.append(("files", .array(files.map(file))))
        pairs.append(("images", .array(images.map { .object([("hash", .string($0.hash)), ("bytes", .number(String($0.bytes)))]) })))
        pairs.append(("missingImages", .array(missingImages.map(JSONValue.string))))
        return .object(pairs)
    }

    /// Reads a manifest; `location` names the archive in errors.
    init(data: Data, location: String) throws {
        func damaged(_ what: String) -> ReceiptError {
            ReceiptError(.damagedArchive, file: location, "manifest.json \(what)")
        }
        guard let json = try? JSONValue.parse(data), json.objectValue != nil else { throw damaged("is not JSON (the file is damaged)") }
        guard json["format"]?.stringValue == Self.format else { throw damaged("is not a receipts archive's") }
        guard let version = json["version"]?.decimalValue.map({ NSDecimalNumber(decimal: $0).intValue }) else { throw damaged("has no version") }
        guard version <= ArchiveEntities.version else {
            throw ReceiptError(.damagedArchive, file: location,
                               "written by a newer receipts (archive format \(version); this one reads up to \(ArchiveEntities.version)); upgrade receipts to restore it")
        }
        func int(_ value: JSONValue?) -> Int? { value?.decimalValue.map { NSDecimalNumber(decimal: $0).intValue } }
        func file(_ value: JSONValue) throws -> File {
            guard let name = value["name"]?.stringValue, let bytes = int(value["bytes"]), let sha = value["sha256"]?.stringValue else {
                throw damaged("lists a file without its name, size or SHA-256")
            }
            return File(name: name, entity: value["entity"]?.stringValue, rows: int(value["rows"]), bytes: bytes, sha256: sha)
        }
        self.version = version
        kind = json["kind"]?.stringValue ?? "archive"
        createdAt = json["createdAt"]?.stringValue ?? ""
        source = json["source"]?.stringValue ?? ""
        store = json["store"]?.stringValue ?? ""
        database = try json["database"].flatMap { $0.isNull ? nil : try file($0) }
        files = try (json["files"]?.arrayValue ?? []).map(file)
        images = try (json["images"]?.arrayValue ?? []).map { value in
            guard let hash = value["hash"]?.stringValue, ArchiveValue.isHash(hash), let bytes = int(value["bytes"]) else {
                throw damaged("lists an image without its SHA-256 or size")
            }
            return Image(hash: hash, bytes: bytes)
        }
        missingImages = (json["missingImages"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    init(kind: String, source: String, store: String) {
        self.kind = kind
        self.source = source
        self.store = store
        createdAt = ArchiveValue.timestamp(fromStored: Self.utc().string(from: Date()))
    }

    static func utc() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return formatter
    }
}
