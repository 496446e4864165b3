import Foundation

/// Expands the paths a user gives (files and folders, recursively) into the receipts to process.
public struct InputCollector: Sendable {
    public enum Item: Sendable, Equatable {
        /// A file to process, as the user would name it.
        case file(path: String)
        /// Something named that cannot be processed; becomes a failed record.
        case invalid(path: String, reason: String)

        public var path: String {
            switch self {
            case let .file(path), let .invalid(path, _): return path
            }
        }
    }

    /// Folder names never entered (output folders of `watch`, system folders).
    public var skippedFolderNames: Set<String>

    public init(skippedFolderNames: Set<String> = ["@eaDir", ".git"]) {
        self.skippedFolderNames = skippedFolderNames
    }

    /// Files named directly are always taken; inside folders only image extensions are, in name order.
    public func collect(_ paths: [String]) -> [Item] {
        var items: [Item] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                items.append(.invalid(path: path, reason: "no such file or folder"))
                continue
            }
            if isDirectory.boolValue {
                if Self.hasImageExtension(path) && !path.hasSuffix("/") {
                    items.append(.invalid(path: path, reason: "is a folder, not an image file"))
                } else {
                    items.append(contentsOf: walk(path))
                }
            } else {
                items.append(.file(path: path))
            }
        }
        return items
    }

    private func walk(_ folder: String) -> [Item] {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder) else {
            return [.invalid(path: folder, reason: "cannot list folder (permission denied?)")]
        }
        var items: [Item] = []
        for name in names.sorted() where !name.hasPrefix(".") && !skippedFolderNames.contains(name) {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                if Self.hasImageExtension(name) {
                    items.append(.invalid(path: path, reason: "is a folder, not an image file"))
                } else {
                    items.append(contentsOf: walk(path))
                }
            } else if Self.hasImageExtension(name) {
                items.append(.file(path: path))
            }
        }
        return items
    }

    static func hasImageExtension(_ path: String) -> Bool {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        let ext = (trimmed as NSString).pathExtension.lowercased()
        return ReceiptFile.imageExtensions.contains(ext)
    }
}
