import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// With `--keep`, files stay in the watched folder; this remembers which were handled, by path,
/// content hash, size and mtime, so a restart neither processes nor files them again. It is an
/// append-only NDJSON file (`.receipts-keep.ndjson` in the processed folder); each line is flushed
/// to disk before the file counts as handled. The last line for a path wins.
final class KeepLedger: Sendable {
    struct Entry: Sendable, Equatable {
        var hash: String?
        var signature: FileSignature
    }

    /// The entries by path; writes to `path` happen with it locked too.
    private let entries = Mutex([String: Entry]())
    let path: String

    /// Loads the ledger at `path` (none yet is fine). Lines that do not parse (a crash mid-line) are skipped.
    init(path: String) throws {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReceiptError(.ledger, file: path, "cannot read the ledger of files kept in place; check its permissions",
                               hint: .keepLedger)
        }
        let loaded = Self.parse(data)
        entries.withLock { $0 = loaded }
    }

    private static func parse(_ data: Data) -> [String: Entry] {
        var entries: [String: Entry] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let json = try? JSONValue.parse(String(line)), let file = json["path"]?.stringValue,
                  let size = json["size"].flatMap(Self.int),
                  let modified = json["mtime"].flatMap(Self.int), let inode = json["inode"].flatMap(Self.int) else { continue }
            entries[file] = Entry(hash: json["hash"]?.stringValue,
                                  signature: FileSignature(size: size, modified: modified, inode: UInt64(inode)))
        }
        return entries
    }

    private static func int(_ value: JSONValue) -> Int64? {
        if case let .number(text) = value { return Int64(text) }
        return nil
    }

    func entry(for file: String) -> Entry? { entries.withLock { $0[file] } }

    /// Records `file` as handled (blocking: call off the cooperative pool).
    func record(_ file: String, hash: String?, signature: FileSignature) throws {
        let json = JSONValue.object([
            ("path", .string(file)), ("hash", .optionalString(hash)), ("size", .number(String(signature.size))),
            ("mtime", .number(String(signature.modified))), ("inode", .number(String(signature.inode))),
        ])
        let line = Data((json.serialized() + "\n").utf8)
        try entries.withLock { entries in
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw ReceiptError(.ledger, file: path, "cannot write the ledger of files kept in place; check permissions and free space",
                                  cause: String(cString: strerror(errno)), hint: .keepLedger)
            }
            defer { close(fd) }
            let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == line.count, fsync(fd) == 0 else {
                throw ReceiptError(.ledger, file: path, "cannot write the ledger of files kept in place; check permissions and free space",
                                  cause: String(cString: strerror(errno)), hint: .keepLedger)
            }
            entries[file] = Entry(hash: hash, signature: signature)
        }
    }
}
