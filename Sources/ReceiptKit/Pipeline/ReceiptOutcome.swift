import Foundation

/// One receipt of a batch, given to `ReceiptPipeline.process(_:)`.
public enum BatchItem: Sendable {
    /// An image file; the path is kept as given (in `Receipt.filePath` and errors).
    case file(String)
    /// Image bytes held in memory, named for messages.
    case data(Data, filename: String)
    /// A receipt already in the store (e.g. after `retry`).
    case receipt(UUID)
    /// Image files that are one receipt's pictures, top to bottom (a long receipt photographed in
    /// several); named by the first.
    case pictures([String])
    /// Image files named as the pictures of one long receipt (`NAME-1.jpg`, `NAME-2.jpg`…, in
    /// number order): read together, they are one receipt when each overlaps the one before as
    /// parts of one receipt; otherwise receipts of the pictures that do (each picture alone when
    /// none does), as the watched folder reads them. Reported as the receipts they are.
    case candidates([String])

    /// How the item is named in results and errors.
    public var displayName: String {
        switch self {
        case let .file(path): return path
        case let .data(_, filename): return filename
        case let .receipt(id): return id.uuidString.lowercased()
        case let .pictures(paths), let .candidates(paths): return paths.first ?? ""
        }
    }

    /// Image files as a batch, the pictures of each long receipt's name (`NAME-1.jpg`,
    /// `NAME-2.jpg`… in one folder: `PictureGroup.member`) as one `candidates` item in number order,
    /// where the first of them was; every other file (a lone `NAME-1.jpg` too) as a `file`.
    public static func joiningPictures(_ files: [String]) -> [BatchItem] {
        var groups: [String: [(number: Int, path: String)]] = [:]
        for path in files {
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            guard let (base, number) = PictureGroup.member(name) else { continue }
            groups[((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(base), default: []].append((number, path))
        }
        var items: [BatchItem] = []
        var placed: Set<String> = []
        for path in files {
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            guard let (base, _) = PictureGroup.member(name),
                  case let key = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(base),
                  let group = groups[key], group.count > 1 else {
                items.append(.file(path))
                continue
            }
            guard placed.insert(key).inserted else { continue }
            // The same number twice (IMG-1.jpg and IMG-1.png): not pictures of one receipt.
            let numbers = group.map(\.number)
            if Set(numbers).count != numbers.count {
                items += group.map { .file($0.path) }
                continue
            }
            items.append(.candidates(group.sorted { $0.number < $1.number }.map(\.path)))
        }
        return items
    }
}

/// A receipt that reached `completed` or `failed`.
public struct ReceiptOutcome: Sendable {
    /// The file (or name) as given in the batch.
    public var source: String
    public var receipt: Receipt
    /// The drafted expense of a completed receipt.
    public var expense: Expense?
    /// The same bytes were already in the store: this is the earlier receipt, not processed again.
    public var isDuplicate: Bool

    public init(source: String, receipt: Receipt, expense: Expense?, isDuplicate: Bool) {
        self.source = source
        self.receipt = receipt
        self.expense = expense
        self.isDuplicate = isDuplicate
    }

    public var analysis: ReceiptAnalysis? { receipt.analysis }

    /// The one-line error of a failed receipt.
    public var error: String? { receipt.ocrStatus == .failed ? (receipt.lastError ?? "\(source): failed") : nil }

    /// The NDJSON record of the `receipts process` contract (`record.json.serialized()` is the line).
    public var record: ReceiptRecord {
        ReceiptRecord(receipt: receipt, expense: expense, file: source)
    }
}
