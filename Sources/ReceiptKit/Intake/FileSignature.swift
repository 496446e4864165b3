import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a file looks like from outside: a file counts as unchanged while this stays the same.
public struct FileSignature: Sendable, Hashable {
    public var size: Int64
    /// Modification time in nanoseconds since 1970.
    public var modified: Int64
    public var inode: UInt64

    public init(size: Int64, modified: Int64, inode: UInt64) {
        self.size = size
        self.modified = modified
        self.inode = inode
    }

    /// What `path` is, following a symbolic link to its target.
    enum Kind { case file, folder, other }

    /// Stats `path` (following symbolic links). Nil when it does not exist or cannot be stat'ed.
    static func of(_ path: String) -> (FileSignature, Kind)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        let type = info.st_mode & S_IFMT
        let kind: Kind = type == S_IFREG ? .file : type == S_IFDIR ? .folder : .other
        return (FileSignature(size: Int64(info.st_size), modified: modified, inode: UInt64(info.st_ino)), kind)
    }

    /// Whether `path` itself is a symbolic link (folders reached through links are not entered).
    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFLNK
    }
}

/// A file in a watched folder that has stopped changing.
public struct WatchedFile: Sendable, Hashable {
    /// The absolute path.
    public var path: String
    /// The path below the watched folder (`scans/2024/a.jpg`).
    public var relativePath: String
    public var signature: FileSignature

    public init(path: String, relativePath: String, signature: FileSignature) {
        self.path = path
        self.relativePath = relativePath
        self.signature = signature
    }
}
