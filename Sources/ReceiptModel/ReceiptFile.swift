import Foundation

/// Reading receipt files with errors that name the file and the cause.
public enum ReceiptFile {
    /// Reads a file's bytes.
    /// - Throws: `ReceiptError(.unreadable)`: missing file, a folder, no permission.
    public static func read(_ url: URL, file: String) throws -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ReceiptError(.unreadable, file: file, "no such file")
        }
        if isDirectory.boolValue {
            throw ReceiptError(.unreadable, file: file, "is a folder, not an image file")
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw ReceiptError(.unreadable, file: file, "cannot read the file (permission denied)")
        }
        do {
            return try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw ReceiptError(.unreadable, file: file, "cannot read the file (\(error.localizedDescription))")
        }
    }

    /// File name extensions taken when a folder is scanned.
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "jpe", "png", "tif", "tiff", "webp", "bmp", "gif", "heic", "heif", "avif", "pdf"]
}
