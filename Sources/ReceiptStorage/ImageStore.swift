import Foundation
import ReceiptModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps receipt images by content: `images/ab/abcdef…` (SHA-256 of the bytes) beside the database.
///
/// A receipt's bytes are written here (to a temporary name, flushed to disk, then renamed) before its
/// row is inserted, so a receipt submitted from memory survives a crash, and a watched folder may move
/// its files away once they are submitted. The same bytes are kept once.
public struct ImageStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// `images/` beside the database file.
    public init(besideDatabase path: String) {
        self.init(directory: URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent()
            .appendingPathComponent("images", isDirectory: true))
    }

    public func path(forHash hash: String) -> String {
        directory.appendingPathComponent(String(hash.prefix(2)), isDirectory: true)
            .appendingPathComponent(hash).path
    }

    /// Stores `data` under `hash` (nothing to do when it is there already) and returns its path.
    @discardableResult
    public func store(_ data: Data, hash: String) throws -> String {
        let final = path(forHash: hash)
        if FileManager.default.fileExists(atPath: final) { return final }
        let folder = (final as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ReceiptError(.imageStorage, "cannot create the image folder; check permissions and free space",
                             file: folder, cause: error.localizedDescription)
        }
        let temporary = folder + "/.tmp-\(UUID().uuidString.lowercased())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else {
            throw ReceiptError(.imageStorage, "cannot write the image copy; check permissions and free space",
                             file: temporary, cause: String(cString: strerror(errno)))
        }
        var failure: Int32 = 0
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += n
            }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0, rename(temporary, final) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw ReceiptError(.imageStorage, "cannot write the image copy; check permissions and free space",
                             file: final, cause: String(cString: strerror(failure)))
        }
        let dirFD = open(folder, O_RDONLY)
        if dirFD >= 0 { fsync(dirFD); close(dirFD) }
        return final
    }
}
