import Foundation
import ReceiptModel

/// One receipt image with its ground truth.
public struct LabelledReceipt: Sendable {
    public var image: URL
    public var truthFile: URL
    public var truth: GroundTruth
    /// A receipt photographed in several pictures (`NAME-1.jpg`, `NAME-2.jpg`… beside
    /// `NAME.expected.json`): the pictures in order, `image` the first; else `[image]`.
    public var pictures: [URL]

    public init(image: URL, truthFile: URL, truth: GroundTruth, pictures: [URL]? = nil) {
        self.image = image
        self.truthFile = truthFile
        self.truth = truth
        self.pictures = pictures ?? [image]
    }

    /// The image's file name, used in reports (a receipt of several pictures: `NAME-1..3.jpg`).
    public var name: String {
        guard pictures.count > 1 else { return image.lastPathComponent }
        let stem = truthFile.lastPathComponent.replacingOccurrences(of: ".expected.json", with: "").replacingOccurrences(of: ".json", with: "")
        return "\(stem)-1..\(pictures.count).\(image.pathExtension)"
    }
}

/// A folder of receipt images, each beside a same-name `.json` (../shared/receipts) or a
/// `<name>.expected.json` (TestReceipts). A receipt in several pictures is `NAME-1.jpg`,
/// `NAME-2.jpg`… beside one `NAME.expected.json` (the watched folder's naming). Images without
/// ground truth are left out; subfolders are not searched.
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
        var groups: [String: [(Int, URL)]] = [:]
        for name in names.sorted() {
            let url = folder.appendingPathComponent(name)
            guard imageExtensions.contains(url.pathExtension.lowercased()) else { continue }
            let stem = url.deletingPathExtension().lastPathComponent
            guard let truthName = [stem + ".expected.json", stem + ".json"].first(where: present.contains) else {
                // One picture of a receipt in several: NAME-<n> with NAME's ground truth.
                if let (base, number) = PictureGroup.member(stem), [base + ".expected.json", base + ".json"].contains(where: present.contains) {
                    groups[base, default: []].append((number, url))
                }
                continue
            }
            let truthURL = folder.appendingPathComponent(truthName)
            result.append(LabelledReceipt(image: url, truthFile: truthURL, truth: try readTruth(truthURL)))
        }
        for (base, members) in groups {
            let pictures = members.sorted { $0.0 < $1.0 }.map(\.1)
            let truthURL = folder.appendingPathComponent([base + ".expected.json", base + ".json"].first(where: present.contains)!)
            result.append(LabelledReceipt(image: pictures[0], truthFile: truthURL, truth: try readTruth(truthURL), pictures: pictures))
        }
        return result.sorted { $0.image.lastPathComponent < $1.image.lastPathComponent }
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
