import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts a handled file where it belongs: `processed/<name>` with `<stem>.json` (its NDJSON record),
/// or `failed/<name>` with `<stem>.error.txt` (the one-line error). Subfolders of the watched
/// folder are kept below the output folder. A name taken by another file gets a suffix
/// (`a-1.jpg`, `a-1.json`); nothing is ever overwritten, except a sidecar this very receipt wrote
/// before a crash, which is reused.
///
/// Order: the sidecar is written (temporary name, flushed, renamed), then the image is moved
/// (a rename that never replaces an existing name). A crash in between leaves
/// the image in the watched folder and its sidecar in place; the next run finds it by content,
/// reuses the sidecar's name and moves the image beside it.
struct IntakeFiler: Sendable {
    enum Outcome: Sendable {
        /// Completed (or a duplicate of a completed receipt): the sidecar's JSON.
        case processed(JSONValue, receiptId: UUID)
        /// Failed: the one-line error.
        case failed(String)
    }

    let processedDirectory: String
    let failedDirectory: String
    /// Leave images where they are; only write sidecars.
    let keep: Bool

    /// Files `file` and returns where the image went (with `keep`, where the sidecar went).
    func file(_ file: WatchedFile, _ outcome: Outcome) throws -> String {
        let destination = Destination(of: file, outcome, filer: self)
        let folder = destination.folder
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ReceiptError(.outputFolder, file: folder, "cannot create the output folder; check permissions and free space",
                              cause: error.localizedDescription)
        }
        var suffix = 0
        while true {
            let (image, sidecar) = destination.names(suffix)
            suffix += 1
            if !keep && Self.exists(image) {
                // A move cut short between its link and its unlink: finish it.
                if Self.isSameFile(image, file.path) && isOwnSidecar(sidecar, of: file, filedAs: image, outcome) {
                    unlink(file.path)
                    Self.syncFolder((file.path as NSString).deletingLastPathComponent)
                    return image
                }
                continue
            }
            if Self.exists(sidecar) && !isOwnSidecar(sidecar, of: file, filedAs: image, outcome) { continue }
            // The record names the image where it is going (beside the sidecar), not where it was.
            try Self.writeAtomically(Self.contents(outcome, filedAs: keep ? [file.path] : [image]), to: sidecar)
            if keep { return sidecar }
            switch Self.moveWithoutReplacing(file.path, to: image) {
            case .moved:
                Self.syncFolder(folder)
                Self.syncFolder((file.path as NSString).deletingLastPathComponent)
                return image
            case .targetExists:
                // Taken since we looked (another program): try the next name.
                unlink(sidecar)
                continue
            case let .failed(cause):
                throw ReceiptError(.filingFailed, file: file.path,
                                  "cannot move the file to \(folder); check permissions (its result is in \(sidecar))",
                                  cause: cause)
            }
        }
    }

    /// Whether this receipt was filed from this same path before, image and sidecar both (the
    /// same file dropped again under the same name, rather than one left behind by a crash).
    func wasFiledBefore(_ file: WatchedFile, _ outcome: Outcome) -> Bool {
        guard !keep else { return false }
        let destination = Destination(of: file, outcome, filer: self)
        var suffix = 0
        while true {
            let (image, sidecar) = destination.names(suffix)
            suffix += 1
            let imageThere = Self.exists(image), sidecarThere = Self.exists(sidecar)
            if !imageThere && !sidecarThere { return false }
            if imageThere && sidecarThere && !Self.isSameFile(image, file.path) && isOwnSidecar(sidecar, of: file, filedAs: image, outcome) {
                return true
            }
        }
    }

    /// Where a file goes: its output folder (subfolders kept) and the names it may take there.
    private struct Destination {
        let folder: String
        let stem: String
        let ext: String
        let sidecarSuffix: String

        init(of file: WatchedFile, _ outcome: Outcome, filer: IntakeFiler) {
            let base: String
            switch outcome {
            case .processed: (base, sidecarSuffix) = (filer.processedDirectory, ".json")
            case .failed: (base, sidecarSuffix) = (filer.failedDirectory, ".error.txt")
            }
            let subfolder = (file.relativePath as NSString).deletingLastPathComponent
            folder = subfolder.isEmpty ? base : base + "/" + subfolder
            let name = (file.path as NSString).lastPathComponent
            ext = (name as NSString).pathExtension
            stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        }

        /// The image and sidecar paths for the `suffix`-th try: `a.jpg`/`a.json`, then `a-1.jpg`/`a-1.json`, …
        func names(_ suffix: Int) -> (image: String, sidecar: String) {
            let candidate = suffix == 0 ? stem : "\(stem)-\(suffix)"
            return (folder + "/" + (ext.isEmpty ? candidate : candidate + "." + ext), folder + "/" + candidate + sidecarSuffix)
        }
    }

    /// What a sidecar holds: a completed receipt's record naming its files as `files` (the first
    /// as `file`; all of them as `pictures` when it has several), or the one-line error.
    static func contents(_ outcome: Outcome, filedAs files: [String]) -> Data {
        switch outcome {
        case let .processed(json, _):
            var record = json
            if case let .object(pairs) = json {
                record = .object(pairs.map { key, value in
                    switch key {
                    case "file": (key, files.first.map(JSONValue.string) ?? value)
                    case "pictures" where files.count > 1: (key, .array(files.map(JSONValue.string)))
                    default: (key, value)
                    }
                })
            }
            return Data((record.serialized() + "\n").utf8)
        case let .failed(message):
            return Data((message.oneLine + "\n").utf8)
        }
    }

    /// A sidecar left by an earlier run for this same file and receipt (a crash before the move):
    /// its record names the file where it was going (`filedAs`), or where it was (a sidecar of an
    /// earlier version, or one kept in place).
    private func isOwnSidecar(_ sidecar: String, of file: WatchedFile, filedAs image: String, _ outcome: Outcome) -> Bool {
        guard let data = FileManager.default.contents(atPath: sidecar) else { return false }
        let text = String(decoding: data, as: UTF8.self)
        switch outcome {
        case let .processed(_, receiptId):
            guard let json = try? JSONValue.parse(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return false }
            return [file.path, image].contains(json["file"]?.stringValue) && json["receiptId"]?.stringValue == receiptId.uuidString.lowercased()
        case .failed:
            return text.hasPrefix(file.path + ": ")
        }
    }

    // MARK: File system steps

    /// Whether two paths name the same file (hard links to one inode).
    static func isSameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        guard lstat(a, &first) == 0, lstat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Writes to a temporary name in the same folder, flushes, renames over `path`.
    static func writeAtomically(_ data: Data, to path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = folder + "/.receipts-\(UUID().uuidString.lowercased()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ReceiptError(.outputFolder, file: path, "cannot write the sidecar; check permissions and free space",
                              cause: String(cString: strerror(errno)))
        }
        var failure = writeAll(fd, data)
        if failure == 0, fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw ReceiptError(.outputFolder, file: path, "cannot write the sidecar; check permissions and free space",
                              cause: String(cString: strerror(failure)))
        }
    }

    enum MoveResult { case moved, targetExists, failed(String) }

    /// Moves `source` to `target` unless `target` exists. The name leaves the watched folder at the
    /// instant it appears in the output folder (`renameat2` with `RENAME_NOREPLACE`), so a program
    /// writing a new file under the same name never writes into the filed one. Where the file
    /// system cannot do that, the target is checked, then renamed. Across file systems the bytes are
    /// copied (flushed) first and the source removed after, unless it changed meanwhile.
    static func moveWithoutReplacing(_ source: String, to target: String) -> MoveResult {
        let error = renameNoReplace(source, target)
        switch error {
        case 0:
            return .moved
        case EEXIST:
            return .targetExists
        case EXDEV:
            return copyThenRemove(source, to: target)
        case EINVAL, ENOSYS, ENOTSUP, EOPNOTSUPP:
            if exists(target) { return .targetExists }
            if rename(source, target) == 0 { return .moved }
            if errno == EXDEV { return copyThenRemove(source, to: target) }
            return .failed(String(cString: strerror(errno)))
        default:
            return .failed(String(cString: strerror(error)))
        }
    }

    #if os(Linux)
    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
    /// glibc's `renameat2` (2.28+), looked up at run time: Swift's Glibc module does not export it.
    private static let renameat2: RenameAt2? = dlsym(nil, "renameat2").map { unsafeBitCast($0, to: RenameAt2.self) }
    #endif

    /// `rename` that fails with EEXIST instead of replacing; 0 or the errno (ENOSYS: not available).
    private static func renameNoReplace(_ source: String, _ target: String) -> Int32 {
        #if os(Linux)
        guard let renameat2 else { return ENOSYS }
        let renameNoReplace: UInt32 = 1  // RENAME_NOREPLACE
        return renameat2(AT_FDCWD, source, AT_FDCWD, target, renameNoReplace) == 0 ? 0 : errno
        #else
        return ENOSYS
        #endif
    }

    private static func copyThenRemove(_ source: String, to target: String) -> MoveResult {
        guard let (before, _) = FileSignature.of(source), let data = FileManager.default.contents(atPath: source) else {
            return .failed("cannot read \(source)")
        }
        let folder = (target as NSString).deletingLastPathComponent
        let temporary = folder + "/.receipts-\(UUID().uuidString.lowercased()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return .failed(String(cString: strerror(errno))) }
        var failure = writeAll(fd, data)
        if failure == 0, fsync(fd) != 0 { failure = errno }
        close(fd)
        defer { unlink(temporary) }
        guard failure == 0 else { return .failed(String(cString: strerror(failure))) }
        switch renameNoReplace(temporary, target) {
        case 0: break
        case EEXIST: return .targetExists
        default:
            if exists(target) { return .targetExists }
            guard rename(temporary, target) == 0 else { return .failed(String(cString: strerror(errno))) }
        }
        syncFolder(folder)
        // Rewritten since it was read (a new file under the same name): leave it to be taken again.
        if FileSignature.of(source)?.0 == before { unlink(source) }
        return .moved
    }

    private static func writeAll(_ fd: Int32, _ data: Data) -> Int32 {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32 in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return 0
        }
    }

    static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}
