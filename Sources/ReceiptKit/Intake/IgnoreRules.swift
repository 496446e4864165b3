import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which names in a watched folder are never taken: files still being written by common tools,
/// system clutter, dotfiles, and the user's own glob patterns.
public struct IgnoreRules: Sendable, Equatable {
    /// Suffixes of partial downloads and temporary copies (compared case-insensitively).
    public static let partialSuffixes = [".part", ".filepart", ".crdownload", ".tmp", ".partial", ".download", ".swp"]
    /// Exact names of system files and folders (Finder, Windows Explorer, Synology).
    public static let systemNames: Set<String> = [".DS_Store", "Thumbs.db", "desktop.ini", "@eaDir", "#recycle", "$RECYCLE.BIN"]

    /// Extra glob patterns (`fnmatch` syntax: `*`, `?`, `[...]`). A pattern without `/` is matched
    /// against the name; one with `/` against the path relative to the watched folder.
    public var patterns: [String]

    public init(patterns: [String] = []) {
        self.patterns = patterns
    }

    /// Whether `name` (a file or folder at `relativePath` under the watched folder) is ignored.
    public func ignores(name: String, relativePath: String) -> Bool {
        if name.hasPrefix(".") || name.hasPrefix("~$") || Self.systemNames.contains(name) { return true }
        let lower = name.lowercased()
        if Self.partialSuffixes.contains(where: { lower.hasSuffix($0) }) { return true }
        for pattern in patterns {
            if pattern.contains("/") {
                let trimmed = pattern.hasPrefix("/") ? String(pattern.dropFirst()) : pattern
                if fnmatch(trimmed, relativePath, FNM_PATHNAME) == 0 { return true }
            } else if fnmatch(pattern, name, 0) == 0 {
                return true
            }
        }
        return false
    }
}
