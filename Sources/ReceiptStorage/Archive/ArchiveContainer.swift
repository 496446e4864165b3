import Crypto
import Foundation
import ReceiptModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ReceiptError.Code {
    /// An archive or a backup that is damaged, incomplete, of a newer format, or cannot be written.
    public static let damagedArchive = Self("damagedArchive")
    /// A restore into a store that already holds records (without `--merge`).
    public static let storeNotEmpty = Self("storeNotEmpty")
}

/// Where an archive's or a backup's files are read from: a tar file (`store export --archive`) or
/// a backup's folder (its rows beside its manifest, its images in the backup's shared `images/`).
protocol ArchiveContainer: Sendable {
    /// For messages.
    var location: String { get }
    /// The bytes of a member (`manifest.json`, `data/receipts.jsonl`, `images/ab/<hash>`), nil when absent.
    func size(of member: String) -> Int?
    /// Reads a member chunk by chunk.
    func reader(_ member: String) throws -> ChunkReader
}

/// A member's bytes, a chunk at a time (nil at its end).
final class ChunkReader {
    private let handle: FileHandle
    private var left: Int?
    private let member: String
    private let location: String

    /// Reads `handle` from its current offset: `length` bytes, or to its end when nil.
    init(handle: FileHandle, length: Int?, member: String, location: String) {
        self.handle = handle
        left = length
        self.member = member
        self.location = location
    }

    deinit { try? handle.close() }

    func next() throws -> Data? {
        if let left, left == 0 { return nil }
        let data = handle.readData(ofLength: min(left ?? Int.max, 1 << 20))
        if data.isEmpty {
            if left != nil { throw ReceiptError(.damagedArchive, file: location, "\(member) is truncated") }
            return nil
        }
        if let remaining = left { left = remaining - data.count }
        return data
    }
}

extension ArchiveContainer {
    func read(_ member: String, chunk: (Data) throws -> Void) throws {
        let reader = try reader(member)
        while let data = try reader.next() { try chunk(data) }
    }

    /// The SHA-256 of a member (`ContentHash.hex`) and its size, read chunk by chunk.
    func sha256(of member: String) throws -> (hash: String, bytes: Int) {
        var hasher = SHA256()
        var bytes = 0
        try read(member) { chunk in
            bytes += chunk.count
            hasher.update(data: chunk)
        }
        return (ContentHash.hex(of: hasher.finalize()), bytes)
    }

    func data(of member: String) throws -> Data {
        var data = Data()
        try read(member) { data.append($0) }
        return data
    }

    /// The lines of a JSON-lines member, one at a time (without their newline).
    func lines(of member: String) throws -> LineReader {
        LineReader(try reader(member), member: member, location: location)
    }
}

/// The lines of a member, pulled one at a time; a last line without its newline means the file was
/// cut short.
final class LineReader {
    private let chunks: ChunkReader
    private var buffer = Data()
    private var ended = false
    let member: String
    let location: String
    private(set) var number = 0

    init(_ chunks: ChunkReader, member: String, location: String) {
        self.chunks = chunks
        self.member = member
        self.location = location
    }

    private var start = 0

    func next() throws -> Data? {
        while true {
            if let newline = buffer[(buffer.startIndex + start)...].firstIndex(of: 0x0A) {
                let line = Data(buffer[(buffer.startIndex + start)..<newline])
                start = newline + 1 - buffer.startIndex
                number += 1
                return line
            }
            if start > 0 {
                buffer = Data(buffer[(buffer.startIndex + start)...])
                start = 0
            }
            if ended {
                guard buffer.isEmpty else {
                    throw ReceiptError(.damagedArchive, file: location, "\(member) ends in the middle of a line (the file is truncated)")
                }
                return nil
            }
            if let chunk = try chunks.next() { buffer.append(chunk) } else { ended = true }
        }
    }
}

// MARK: - Tar

/// A POSIX ustar archive, written and read here (any `tar -tf` lists it): regular files only,
/// names of at most 100 bytes. Each member's header checksum is checked on reading.
enum Tar {
    static let block = 512

    static func header(name: String, size: Int, mtime: Date) -> Data {
        var h = [UInt8](repeating: 0, count: block)
        func put(_ text: String, at offset: Int, width: Int) {
            for (i, byte) in text.utf8.prefix(width).enumerated() { h[offset + i] = byte }
        }
        func octal(_ value: Int, at offset: Int, width: Int) {
            put(String(String(value, radix: 8).suffix(width - 1)).leftPadded(to: width - 1), at: offset, width: width - 1)
        }
        put(name, at: 0, width: 100)
        octal(0o644, at: 100, width: 8)
        octal(0, at: 108, width: 8)
        octal(0, at: 116, width: 8)
        octal(size, at: 124, width: 12)
        octal(Int(mtime.timeIntervalSince1970), at: 136, width: 12)
        h[156] = UInt8(ascii: "0")
        put("ustar", at: 257, width: 6)
        put("00", at: 263, width: 2)
        for i in 148..<156 { h[i] = 0x20 }
        let sum = h.reduce(0) { $0 + Int($1) }
        put(String(String(sum, radix: 8)).leftPadded(to: 6), at: 148, width: 6)
        h[154] = 0
        h[155] = 0x20
        return Data(h)
    }

    static func padding(_ size: Int) -> Int { (block - size % block) % block }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// Writes a tar file member by member (to a temporary name; `finish` flushes it to disk and puts it
/// in place, so an interrupted export never leaves a file that looks whole).
package final class TarWriter {
    package let path: String
    private let temporary: String
    private let handle: FileHandle
    private let mtime = Date()

    package init(path: String) throws {
        self.path = path
        let url = URL(fileURLWithPath: path)
        temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())").path
        guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw ReceiptError(.damagedArchive, file: path, "cannot create the archive; check the folder exists and may be written")
        }
        self.handle = handle
    }

    package func add(_ name: String, data: Data) throws {
        try add(name, size: data.count) { write in try write(data) }
    }

    /// Adds a member of `size` bytes whose content `content` writes (exactly `size` bytes).
    package func add(_ name: String, size: Int, content: ((Data) throws -> Void) throws -> Void) throws {
        precondition(name.utf8.count <= 100)
        do {
            try handle.write(contentsOf: Tar.header(name: name, size: size, mtime: mtime))
            var written = 0
            try content { chunk in
                written += chunk.count
                try handle.write(contentsOf: chunk)
            }
            guard written == size else {
                throw ReceiptError(.damagedArchive, file: path, "\(name) changed while it was archived (\(written) bytes, not \(size))")
            }
            try handle.write(contentsOf: Data(count: Tar.padding(size)))
        } catch let error as ReceiptError {
            throw error
        } catch {
            throw ReceiptError(.damagedArchive, file: path, "cannot write the archive (disk full?)", cause: error.localizedDescription)
        }
    }

    package func finish() throws {
        do {
            try handle.write(contentsOf: Data(count: Tar.block * 2))
            try handle.synchronize()
            try handle.close()
        } catch {
            throw ReceiptError(.damagedArchive, file: path, "cannot write the archive (disk full?)", cause: error.localizedDescription)
        }
        guard rename(temporary, path) == 0 else {
            let cause = String(cString: strerror(errno))
            unlink(temporary)
            throw ReceiptError(.damagedArchive, file: path, "cannot put the archive in place", cause: cause)
        }
        FileSystem.syncFolder(of: path)
    }

    /// Removes what was written (after a failure).
    package func abandon() {
        try? handle.close()
        unlink(temporary)
    }
}

/// A tar file read member by member: opening it walks every header (checking their checksums and
/// that each member's bytes are all there), so a damaged or truncated archive is found before
/// anything is read from it.
struct TarContainer: ArchiveContainer {
    let location: String
    private let members: [String: (offset: UInt64, size: Int)]
    let names: [String]

    init(path: String) throws {
        location = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read (check its permissions)" : "no such file"
            throw ReceiptError(.unreadable, file: path, reason)
        }
        defer { try? handle.close() }
        let length = (try? handle.seekToEnd()) ?? 0
        var offset: UInt64 = 0
        var members: [String: (UInt64, Int)] = [:]
        var names: [String] = []
        var ended = false
        while offset < length {
            try handle.seek(toOffset: offset)
            let header = handle.readData(ofLength: Tar.block)
            guard header.count == Tar.block else {
                throw ReceiptError(.damagedArchive, file: path, "the archive is truncated (it ends inside a header at byte \(offset))")
            }
            if header.allSatisfy({ $0 == 0 }) { ended = true; break }
            let bytes = [UInt8](header)
            func text(_ start: Int, _ width: Int) -> String {
                let field = bytes[start..<start + width]
                return String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
            }
            func number(_ start: Int, _ width: Int) -> Int? {
                Int(text(start, width).trimmingCharacters(in: CharacterSet(charactersIn: " \0")), radix: 8)
            }
            var unsigned = bytes
            for i in 148..<156 { unsigned[i] = 0x20 }
            let name = text(0, 100)
            guard let checksum = number(148, 8), checksum == unsigned.reduce(0, { $0 + Int($1) }), let size = number(124, 12) else {
                let after = names.last.map { " after \($0)" } ?? ""
                throw ReceiptError(.damagedArchive, file: path, "the archive is damaged: a bad tar header at byte \(offset)\(after)")
            }
            let start = offset + UInt64(Tar.block)
            guard start + UInt64(size) <= length else {
                throw ReceiptError(.damagedArchive, file: path,
                                   "the archive is truncated: \(name) should have \(size) bytes, \(length - min(length, start)) are there")
            }
            if bytes[156] == UInt8(ascii: "0") || bytes[156] == 0 {
                members[name] = (start, size)
                names.append(name)
            }
            offset = start + UInt64(size + Tar.padding(size))
        }
        if !ended, members["manifest.json"] == nil {
            throw ReceiptError(.damagedArchive, file: path, "the archive is truncated (no end marker and no manifest)")
        }
        self.members = members
        self.names = names
    }

    func size(of member: String) -> Int? { members[member]?.size }

    func reader(_ member: String) throws -> ChunkReader {
        guard let (offset, size) = members[member], let handle = FileHandle(forReadingAtPath: location) else {
            throw ReceiptError(.damagedArchive, file: location, "\(member) is missing from the archive")
        }
        try handle.seek(toOffset: offset)
        return ChunkReader(handle: handle, length: size, member: member, location: location)
    }
}

/// A backup's snapshot folder: its files beside its manifest, its images in the backup's shared
/// `images/` folder one level up.
struct FolderContainer: ArchiveContainer {
    let location: String
    let imagesRoot: String

    init(folder: String, imagesRoot: String) {
        location = folder
        self.imagesRoot = imagesRoot
    }

    private func path(_ member: String) -> String {
        member.hasPrefix("images/") ? imagesRoot + "/" + member.dropFirst("images/".count) : location + "/" + member
    }

    func size(of member: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path(member))[.size] as? Int) ?? nil
    }

    func reader(_ member: String) throws -> ChunkReader {
        guard let handle = FileHandle(forReadingAtPath: path(member)) else {
            throw ReceiptError(.damagedArchive, file: location, "\(member) is missing from the backup")
        }
        return ChunkReader(handle: handle, length: size(of: member), member: member, location: location)
    }
}

enum FileSystem {
    /// Flushes a folder's entries (a rename in it) to disk.
    static func syncFolder(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY)
        if fd >= 0 { fsync(fd); close(fd) }
    }

    /// Writes `data` to `path` durably: a temporary name, flushed, renamed.
    static func writeDurably(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw ReceiptError(.damagedArchive, file: path, "cannot write the file; check the folder's permissions and free space")
        }
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            unlink(temporary)
            throw ReceiptError(.damagedArchive, file: path, "cannot write the file (disk full?)", cause: error.localizedDescription)
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ReceiptError(.damagedArchive, file: path, "cannot put the file in place", cause: String(cString: strerror(errno)))
        }
        syncFolder(of: path)
    }

    /// Flushes a file's bytes to disk.
    static func syncFile(_ path: String) {
        let fd = open(path, O_RDONLY)
        if fd >= 0 { fsync(fd); close(fd) }
    }
}
