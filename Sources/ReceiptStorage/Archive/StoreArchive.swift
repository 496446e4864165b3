import Crypto
import Foundation
import ReceiptModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `receipts store export --archive`, `store backup` and `store restore`, for any store that
/// implements `StoreAdministration` (docs/backup.md).
///
/// - An **archive** is one tar file: `data/<entity>.jsonl` (`ArchiveEntities`), `images/ab/<sha256>`,
///   and `manifest.json` last (version, counts, every file's SHA-256).
/// - A **backup** is a folder: `images/ab/<sha256>` shared by its snapshots (a second backup copies
///   only new images), and one folder per snapshot, `receipts-<UTC time>/`, holding the SQLite
///   store's copy (`receipts.sqlite`, SQLite's online backup API) or the PostgreSQL store's rows
///   (`data/*.jsonl`, one REPEATABLE READ transaction), and `manifest.json`. A snapshot is written
///   under `.partial-…` and renamed once its manifest is in: a killed backup never looks complete,
///   and the snapshots before it stay as they were.
public enum StoreArchive {
    // MARK: Export

    public struct ExportSummary: Sendable {
        public var path: String
        public var rows: [String: Int]
        public var images: Int
        public var imageBytes: Int
        public var bytes: Int
        public var missingImages: [String]
    }

    /// Writes everything in the store to the archive `path` (a temporary name until it is whole).
    public static func export(from store: any StoreAdministration, images: any ImageRepository, to path: String) async throws -> ExportSummary {
        let path = URL(fileURLWithPath: path).standardizedFileURL.path
        let scratch = try ScratchFolder(beside: path)
        defer { scratch.remove() }
        let rows = try RowFiles(folder: scratch.path)
        try await store.readRows(of: ArchiveEntities.all, into: rows)
        try rows.close()

        var manifest = ArchiveManifest(kind: "archive", source: store.location, store: store.kind)
        let tar = try TarWriter(path: path)
        do {
            manifest.files = rows.files
            for file in rows.files {
                let size = file.bytes
                try tar.add(file.name, size: size) { write in
                    try FolderContainer(folder: scratch.path, imagesRoot: scratch.path).read(file.name) { try write($0) }
                }
            }
            for (hash, reference) in rows.images.sorted(by: { $0.key < $1.key }) {
                guard let data = try? await images.load(reference), ContentHash.hex(of: data) == hash else {
                    manifest.missingImages.append(hash)
                    continue
                }
                try tar.add(ArchiveValue.imagePath(hash), data: data)
                manifest.images.append(.init(hash: hash, bytes: data.count))
            }
            try tar.add("manifest.json", data: Data((manifest.json().prettySerialized() + "\n").utf8))
            try tar.finish()
        } catch {
            tar.abandon()
            throw error
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return ExportSummary(path: path, rows: Dictionary(uniqueKeysWithValues: rows.files.map { ($0.entity ?? $0.name, $0.rows ?? 0) }),
                             images: manifest.images.count, imageBytes: manifest.images.reduce(0) { $0 + $1.bytes }, bytes: bytes,
                             missingImages: manifest.missingImages)
    }

    // MARK: Backup

    public struct BackupSummary: Sendable {
        /// The snapshot's folder.
        public var path: String
        public var kind: String
        public var rows: Int
        /// Images copied by this backup, and those the backup folder had already.
        public var imagesCopied: Int
        public var imagesKept: Int
        public var bytesCopied: Int
        /// The snapshot's own files (the database copy or its rows), without the images.
        public var snapshotBytes: Int
        public var missingImages: [String]
        /// Snapshots removed by `keep`, and images no kept snapshot names any more.
        public var removed: [String] = []
        public var imagesRemoved = 0
    }

    /// Where a test stops a backup to kill it (`receipts store backup --pause-at`).
    public enum Pause: String, Sendable, CaseIterable {
        /// Half of the new images copied.
        case images
        /// Everything written but the manifest.
        case manifest
    }

    /// Takes a snapshot of the store into the backup folder `destination` (created when new), then
    /// keeps only the newest `keep` snapshots (all when nil). Two backups into one folder wait for
    /// each other (a lock file). `pause` (for tests) calls `paused` and waits forever at that point.
    public static func backup(from store: any StoreAdministration, images: any ImageRepository, to destination: String,
                              keep: Int? = nil, pause: Pause? = nil, paused: @Sendable () -> Void = {}) async throws -> BackupSummary {
        let root = URL(fileURLWithPath: destination).standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(atPath: root + "/images", withIntermediateDirectories: true)
        } catch {
            throw ReceiptError(.cannotOpen, file: root, "cannot create the backup folder; check the path and its permissions",
                               cause: error.localizedDescription)
        }
        let lock = try await FolderLock.acquire(root + "/.lock")
        defer { lock.release() }
        // What a killed backup left: its unfinished snapshot and half-written images.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where name.hasPrefix(".partial-") {
            try? FileManager.default.removeItem(atPath: root + "/" + name)
        }
        let name = snapshotName(in: root)
        let partial = root + "/.partial-" + name
        try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: true)

        var manifest = ArchiveManifest(kind: "backup", source: store.location, store: store.kind)
        var summary = BackupSummary(path: root + "/" + name, kind: store.kind, rows: 0, imagesCopied: 0, imagesKept: 0, bytesCopied: 0,
                                    snapshotBytes: 0, missingImages: [])
        let references: [String: String]
        if let named = try await store.copyDatabase(to: partial + "/receipts.sqlite") {
            references = named
            let file = try hashFile(partial + "/receipts.sqlite", name: "receipts.sqlite")
            manifest.database = file
            summary.snapshotBytes = file.bytes
        } else {
            let rows = try RowFiles(folder: partial)
            try await store.readRows(of: ArchiveEntities.all, into: rows)
            try rows.close()
            references = rows.images
            manifest.files = rows.files
            summary.rows = rows.files.reduce(0) { $0 + ($1.rows ?? 0) }
            summary.snapshotBytes = rows.files.reduce(0) { $0 + $1.bytes }
        }

        // Images by content: those the folder has are not copied again.
        let pool = ImageStore(directory: URL(fileURLWithPath: root + "/images"))
        let wanted = references.sorted { $0.key < $1.key }
        let new = wanted.filter { !FileManager.default.fileExists(atPath: pool.path(forHash: $0.key)) }
        for (index, (hash, reference)) in new.enumerated() {
            if pause == .images, index == new.count / 2 { await wait(paused) }
            guard let data = try? await images.load(reference), ContentHash.hex(of: data) == hash else {
                manifest.missingImages.append(hash)
                continue
            }
            _ = try await Offload.run { try pool.store(data, hash: hash) }
            summary.imagesCopied += 1
            summary.bytesCopied += data.count
        }
        summary.imagesKept = wanted.count - new.count
        // The backup checks itself: every image it names, read back and hashed.
        let missing = Set(manifest.missingImages)
        for (hash, _) in wanted where !missing.contains(hash) {
            let path = pool.path(forHash: hash)
            guard let data = FileManager.default.contents(atPath: path), ContentHash.hex(of: data) == hash else {
                try? FileManager.default.removeItem(atPath: path)
                throw ReceiptError(.damagedArchive, file: path, "an image of the backup does not read back as written; the backup is incomplete (run it again)")
            }
            manifest.images.append(.init(hash: hash, bytes: data.count))
        }
        summary.missingImages = manifest.missingImages
        if pause == .manifest { await wait(paused) }
        for file in try FileManager.default.subpathsOfDirectory(atPath: partial) { FileSystem.syncFile(partial + "/" + file) }
        try FileSystem.writeDurably(Data((manifest.json().prettySerialized() + "\n").utf8), to: partial + "/manifest.json")
        guard rename(partial, summary.path) == 0 else {
            throw ReceiptError(.damagedArchive, file: summary.path, "cannot put the snapshot in place", cause: String(cString: strerror(errno)))
        }
        FileSystem.syncFolder(of: summary.path)
        if let keep { try rotate(root, keep: keep, into: &summary) }
        return summary
    }

    private static func wait(_ paused: @Sendable () -> Void) async {
        paused()
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }

    /// `receipts-20240501T120000Z`, made unique in `root`.
    private static func snapshotName(in root: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = "receipts-" + formatter.string(from: Date())
        var name = base
        var n = 2
        while FileManager.default.fileExists(atPath: root + "/" + name) {
            name = base + "-\(n)"
            n += 1
        }
        return name
    }

    /// The complete snapshots of a backup folder, oldest first.
    public static func snapshots(in root: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter { $0.hasPrefix("receipts-") && FileManager.default.fileExists(atPath: root + "/" + $0 + "/manifest.json") }
            .sorted { a, b in (a.count, a) < (b.count, b) }
    }

    /// Removes all but the newest `keep` snapshots, then the images no kept snapshot names.
    private static func rotate(_ root: String, keep: Int, into summary: inout BackupSummary) throws {
        let all = snapshots(in: root)
        let old = all.dropLast(max(keep, 1))
        guard !old.isEmpty else { return }
        for name in old {
            // The manifest goes first: a snapshot half removed is no longer taken for a complete one.
            try? FileManager.default.removeItem(atPath: root + "/" + name + "/manifest.json")
            try? FileManager.default.removeItem(atPath: root + "/" + name)
            summary.removed.append(name)
        }
        var named = Set<String>()
        for name in snapshots(in: root) {
            guard let data = FileManager.default.contents(atPath: root + "/" + name + "/manifest.json"),
                  let manifest = try? ArchiveManifest(data: data, location: name) else { return }   // keep every image when unsure
            named.formUnion(manifest.images.map(\.hash))
            named.formUnion(manifest.missingImages)
        }
        let images = root + "/images"
        for folder in (try? FileManager.default.contentsOfDirectory(atPath: images)) ?? [] {
            for file in (try? FileManager.default.contentsOfDirectory(atPath: images + "/" + folder)) ?? [] where !named.contains(file) {
                try? FileManager.default.removeItem(atPath: images + "/" + folder + "/" + file)
                summary.imagesRemoved += 1
            }
        }
    }

    // MARK: Restore

    public struct RestoreSummary: Sendable {
        /// What was restored: the archive, or the backup's snapshot folder.
        public var source: String
        public var written: [String: Int]
        public var skipped: [String: Int]
        public var images: Int
    }

    /// An archive or a backup, opened and checked whole (every file's SHA-256 and size, every
    /// image's) before anything is written anywhere.
    public struct Source: Sendable {
        let container: any ArchiveContainer
        let manifest: ArchiveManifest
        /// What was opened: the archive file or the snapshot folder (a backup folder's newest).
        public let location: String
        public var createdAt: String { manifest.createdAt }
        public var isBackup: Bool { manifest.kind == "backup" }

        /// Opens `path`: an archive file, a backup folder (its newest complete snapshot) or one
        /// snapshot's folder. Throws a `ReceiptError` (`.damagedArchive`) whose one line names what
        /// is wrong: a file changed, missing or cut short, an image missing or damaged.
        public static func open(_ path: String) throws -> Source {
            let path = URL(fileURLWithPath: path).standardizedFileURL.path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw ReceiptError(.unreadable, file: path, "no such archive or backup")
            }
            let container: any ArchiveContainer
            if isFolder.boolValue {
                var folder = path
                if !FileManager.default.fileExists(atPath: path + "/manifest.json") {
                    guard let newest = StoreArchive.snapshots(in: path).last else {
                        let unfinished = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
                            .contains { $0.hasPrefix(".partial-") || $0.hasPrefix("receipts-") }
                        throw ReceiptError(.damagedArchive, file: path, unfinished
                            ? "no complete backup here (a snapshot without its manifest.json is unfinished)"
                            : "not a backup folder (no snapshot with a manifest.json)")
                    }
                    folder = path + "/" + newest
                }
                container = FolderContainer(folder: folder, imagesRoot: (folder as NSString).deletingLastPathComponent + "/images")
            } else {
                container = try TarContainer(path: path)
            }
            guard container.size(of: "manifest.json") != nil else {
                throw ReceiptError(.damagedArchive, file: container.location,
                                   "no manifest.json: the \(isFolder.boolValue ? "backup" : "archive") is incomplete (interrupted, or cut short)")
            }
            let manifest = try ArchiveManifest(data: try container.data(of: "manifest.json"), location: container.location)
            try verify(container, manifest)
            return Source(container: container, manifest: manifest, location: container.location)
        }

        private static func verify(_ container: any ArchiveContainer, _ manifest: ArchiveManifest) throws {
            let kind = container is TarContainer ? "archive" : "backup"
            for file in manifest.files + [manifest.database].compactMap({ $0 }) {
                guard let size = container.size(of: file.name) else {
                    throw ReceiptError(.damagedArchive, file: container.location, "\(file.name) is missing from the \(kind)")
                }
                guard size == file.bytes else {
                    throw ReceiptError(.damagedArchive, file: container.location,
                                       "\(file.name) has \(size) bytes, the manifest says \(file.bytes) (the file is truncated or was changed)")
                }
                guard try container.sha256(of: file.name).hash == file.sha256 else {
                    throw ReceiptError(.damagedArchive, file: container.location, "\(file.name) is damaged (its SHA-256 is not the manifest's)")
                }
            }
            for image in manifest.images {
                let member = ArchiveValue.imagePath(image.hash)
                guard container.size(of: member) != nil else {
                    throw ReceiptError(.damagedArchive, file: container.location, "the image \(member) is missing from the \(kind)")
                }
                guard try container.sha256(of: member).hash == image.hash else {
                    throw ReceiptError(.damagedArchive, file: container.location, "the image \(member) is damaged (its bytes do not match its SHA-256)")
                }
            }
        }
    }

    /// Restores `source` into `store` (its images into `images`): into an empty store, or with
    /// `merge` into one with records, skipping what is there (by id, by content hash). Rows are
    /// written in one transaction; nothing is written when the store is not empty and `merge` is false.
    public static func restore(_ source: Source, into store: any StoreAdministration, images: any ImageRepository,
                               merge: Bool) async throws -> RestoreSummary {
        var existing: [String: [[String]: Set<String>]] = [:]
        var held: [(entity: String, order: Int, text: String)] = []
        for entity in ArchiveEntities.all {
            let keys = [entity.key] + entity.alsoThere
            let fields = Array(Set(Array(keys.joined()) + (entity.key.isEmpty ? [entity.fields[0].name] : []))).sorted()
            let rows = try await store.values(of: entity, fields: fields)
            let made = Set(entity.madeByEveryStore.map { given in ArchiveFeed.keyText(entity.key.map { given[$0] ?? .null }) })
            var sets: [[String]: Set<String>] = [:]
            for key in keys where !key.isEmpty {
                let positions = key.map { fields.firstIndex(of: $0)! }
                sets[key] = Set(rows.map { row in ArchiveFeed.keyText(positions.map { row[$0] }) })
            }
            let own = entity.key.isEmpty ? rows.count : (sets[entity.key] ?? []).subtracting(made).count
            if own > 0 {
                let plural = entity.name.replacingOccurrences(of: "_", with: " ")
                let one = plural.hasSuffix("xes") ? String(plural.dropLast(2)) : String(plural.dropLast())
                held.append((entity.name, held.count, "\(own) \(own == 1 ? one : plural)"))
            }
            existing[entity.name] = sets
        }
        if !held.isEmpty, !merge {
            // Everything it holds, what people miss most first: receipts, expenses, tokens, users.
            let first = ["receipts", "expenses", "tokens", "users"]
            let named = held.sorted { a, b in
                (first.firstIndex(of: a.entity) ?? first.count, a.order) < (first.firstIndex(of: b.entity) ?? first.count, b.order)
            }.map(\.text)
            throw ReceiptError(.storeNotEmpty, file: store.location,
                               "the store is not empty (it holds \(named.joined(separator: ", "))); restore into a new store, or add --merge to add what it lacks")
        }

        // A SQLite backup: its copy of the database (migrated when an older receipts made it) read as rows.
        var container = source.container
        var scratch: ScratchFolder?
        defer { scratch?.remove() }
        var fileNames = Set(source.manifest.files.compactMap(\.entity))
        if let database = source.manifest.database {
            let folder = try ScratchFolder(beside: NSTemporaryDirectory() + "receipts-restore")
            scratch = folder
            let copy = folder.path + "/receipts.sqlite"
            try FileManager.default.copyItem(atPath: source.container.location + "/" + database.name, toPath: copy)
            let snapshot = try SQLiteReceiptStore(path: copy)
            let rows = try RowFiles(folder: folder.path)
            try await snapshot.readRows(of: ArchiveEntities.all, into: rows)
            try rows.close()
            fileNames = Set(rows.files.compactMap(\.entity))
            container = FolderContainer(folder: folder.path, imagesRoot: (source.container.location as NSString).deletingLastPathComponent + "/images")
        }

        var references: [String: String] = [:]
        for image in source.manifest.images {
            let data = try container.data(of: ArchiveValue.imagePath(image.hash))
            guard ContentHash.hex(of: data) == image.hash else {
                throw ReceiptError(.damagedArchive, file: source.location, "the image \(ArchiveValue.imagePath(image.hash)) changed while it was restored")
            }
            references[image.hash] = try await images.store(data, hash: image.hash)
        }
        let feed = ArchiveFeed(container: container, entities: ArchiveEntities.all.filter { fileNames.contains($0.name) },
                               imageReferences: references, merge: merge, existing: merge ? existing : [:])
        try await store.writeRows(from: feed)
        return RestoreSummary(source: source.location, written: feed.written, skipped: feed.skippedCounts, images: references.count)
    }

    static func hashFile(_ path: String, name: String) throws -> ArchiveManifest.File {
        let (hash, bytes) = try FolderContainer(folder: (path as NSString).deletingLastPathComponent, imagesRoot: "").sha256(of: name)
        return .init(name: name, entity: nil, rows: nil, bytes: bytes, sha256: hash)
    }
}

/// Rows read from a store, written as `data/<entity>.jsonl` files (hashed and counted as they are
/// written), and the images they name.
final class RowFiles: ArchiveRowSink, @unchecked Sendable {
    private let folder: String
    private var open: [String: (handle: FileHandle, buffer: Data, hasher: SHA256, rows: Int, bytes: Int)] = [:]
    private var order: [String] = []
    private(set) var files: [ArchiveManifest.File] = []
    private(set) var images: [String: String] = [:]

    init(folder: String) throws {
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder + "/data", withIntermediateDirectories: true)
        // Every entity has its file, empty or not: a restore tells "none" from "not in this archive".
        for entity in ArchiveEntities.all { try start(entity) }
    }

    private func start(_ entity: ArchiveEntity) throws {
        let path = folder + "/" + entity.file
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw ReceiptError(.damagedArchive, file: path, "cannot write the file; check the folder's permissions and free space")
        }
        open[entity.name] = (handle, Data(), SHA256(), 0, 0)
        order.append(entity.name)
    }

    func row(_ entity: ArchiveEntity, _ values: [String: JSONValue]) throws {
        if open[entity.name] == nil { try start(entity) }
        let line = Data((JSONValue.object(entity.fields.map { ($0.name, values[$0.name] ?? .null) }).serialized() + "\n").utf8)
        open[entity.name]!.buffer.append(line)
        open[entity.name]!.rows += 1
        if open[entity.name]!.buffer.count > 1 << 18 { try flush(entity.name) }
    }

    func image(hash: String, reference: String) { images[hash] = reference }

    private func flush(_ name: String) throws {
        guard var file = open[name], !file.buffer.isEmpty else { return }
        do {
            try file.handle.write(contentsOf: file.buffer)
        } catch {
            throw ReceiptError(.damagedArchive, file: folder, "cannot write the rows (disk full?)", cause: error.localizedDescription)
        }
        file.hasher.update(data: file.buffer)
        file.bytes += file.buffer.count
        file.buffer.removeAll(keepingCapacity: true)
        open[name] = file
    }

    func close() throws {
        for name in order {
            try flush(name)
            guard let file = open[name] else { continue }
            try? file.handle.synchronize()
            try? file.handle.close()
            files.append(.init(name: "data/\(name).jsonl", entity: name, rows: file.rows, bytes: file.bytes,
                               sha256: ContentHash.hex(of: file.hasher.finalize())))
        }
        open = [:]
    }
}

/// A temporary folder beside `path` (on its disk), removed when done.
struct ScratchFolder {
    let path: String

    init(beside path: String) throws {
        let url = URL(fileURLWithPath: path)
        self.path = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).work-\(getpid())-\(UUID().uuidString.prefix(8))").path
        do {
            try FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
        } catch {
            throw ReceiptError(.cannotOpen, file: self.path, "cannot create a working folder; check the folder exists and may be written",
                               cause: error.localizedDescription)
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// An exclusive lock on a file (flock), held until released or the process ends (a killed
/// backup's lock goes with it).
struct FolderLock: Sendable {
    private let fd: Int32

    static func acquire(_ path: String) async throws -> FolderLock {
        let fd = open(path, O_RDWR | O_CREAT, 0o600)
        guard fd >= 0 else {
            throw ReceiptError(.cannotOpen, file: path, "cannot create the backup's lock file", cause: String(cString: strerror(errno)))
        }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            try await Task.sleep(for: .milliseconds(200))
        }
        return FolderLock(fd: fd)
    }

    private init(fd: Int32) { self.fd = fd }

    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
