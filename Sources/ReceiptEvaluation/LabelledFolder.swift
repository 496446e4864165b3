import Foundation
import ReceiptModel

/// One receipt image with its ground truth.
public struct LabelledReceipt: Sendable {
    public var image: URL
    public var truthFile: URL
    public var truth: GroundTruth

    /// The image's file name, used in reports.
    public var name: String { image.lastPathComponent }
}

/// A folder of receipt images, each beside a same-name `.json` (../shared/receipts) or a
/// `<name>.expected.json` (TestReceipts). Images without ground truth are left out; subfolders
/// are not searched.
public enum LabelledFolder {
    public static let imageExtensions: Set<String> = ReceiptFile.imageExtensions

    public static func load(_ folder: URL) throws -> [LabelledReceipt] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ReceiptError(.labels, file: folder.path, "not a folder (give a folder of images with .json ground truth)")
        }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder.path) } catch {
            throw ReceiptError(.labels, file: folder.path, "cannot list folder (\(error.localizedDescription))")
        }
        let present = Set(names)
        var result: [LabelledReceipt] = []
        for name in names.sorted() {
            let url = folder.appendingPathComponent(name)
            guard imageExtensions.contains(url.pathExtension.lowercased()) else { continue }
            let stem = url.deletingPathExtension().lastPathComponent
            guard let truthName = [stem + ".expected.json", stem + ".json"].first(where: present.contains) else { continue }
            let truthURL = folder.appendingPathComponent(truthName)
            result.append(LabelledReceipt(image: url, truthFile: truthURL, truth: try readTruth(truthURL)))
        }
        return result
    }

    public static func readTruth(_ url: URL) throws -> GroundTruth {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ReceiptError(.labels, file: url.path, "cannot read ground truth (\(error.localizedDescription))")
        }
        let json: JSONValue
        do { json = try JSONValue.parse(data) } catch {
            throw ReceiptError(.labels, file: url.path, "ground truth is not valid JSON (\(error))")
        }
        return try GroundTruth(json: json, file: url.path)
    }
}
