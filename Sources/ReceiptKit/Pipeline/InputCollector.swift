import Foundation

/// Expands the paths a user gives (files and folders, recursively) into the paths to process.
/// Paths that cannot be receipts (missing, a folder named like an image) are kept, so the pipeline
/// reports each as a failed receipt with its cause.
public struct InputCollector: Sendable {
    /// Folder names never entered (system folders).
    public var skippedFolderNames: Set<String>

    public init(skippedFolderNames: Set<String> = ["@eaDir", ".git"]) {
        self.skippedFolderNames = skippedFolderNames
    }

    /// Paths named directly are always taken; inside folders only image extensions are, in name order.
    public func collect(_ paths: [String]) -> [String] {
        paths.flatMap { path -> [String] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
                  !(Self.hasImageExtension(path) && !path.hasSuffix("/")) else { return [path] }
            return walk(path)
        }
    }

    private func walk(_ folder: String) -> [String] {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder) else { return [folder] }
        var found: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") && !skippedFolderNames.contains(name) {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue && !Self.hasImageExtension(name) {
                found.append(contentsOf: walk(path))
            } else if Self.hasImageExtension(name) {
                found.append(path)
            }
        }
        return found
    }

    static func hasImageExtension(_ path: String) -> Bool {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        return ReceiptFile.imageExtensions.contains((trimmed as NSString).pathExtension.lowercased())
    }
}
