import Foundation
import ReceiptModel

/// One picture of a receipt photographed in several (a long receipt: top, middle, bottom).
public struct StoredPicture: Sendable, Equatable {
    /// From 1, top to bottom.
    public var position: Int
    /// The picture's file name as given (for records and errors).
    public var name: String
    /// The SHA-256 of its bytes.
    public var contentHash: String
    /// Where its bytes are kept (an `ImageRepository` reference).
    public var imagePath: String

    public init(position: Int, name: String, contentHash: String, imagePath: String) {
        self.position = position
        self.name = name
        self.contentHash = contentHash
        self.imagePath = imagePath
    }
}

/// The pictures of receipts photographed in several, beside the store's receipts: a receipt of one
/// picture has none (its `imagePath` is its picture); a receipt of several has one row per
/// picture, the first also its `imagePath`, and as `contentHash` the hash of all its pictures'
/// bytes together (`ContentHash.hex(ofPictures:)`), so the same pictures sent again are the same
/// receipt.
public protocol ReceiptPictureStore: Sendable {
    /// Stores a new receipt of several pictures (in order) with its pictures, in one transaction:
    /// as `insert(_:imagePath:deduplicate:)` does, the receipt the owner (and end user) already has
    /// with the same pictures is returned instead when `deduplicate`.
    func insert(_ receipt: Receipt, pictures: [StoredPicture], deduplicate: Bool) async throws -> (receipt: Receipt, isNew: Bool)
    /// A receipt's pictures in order; empty for a receipt of one picture (or one not in `scope`).
    func pictures(ofReceipt id: UUID, in scope: Scope) async throws -> [StoredPicture]
    /// Adds a picture below a receipt's others (its first picture is the receipt's own image) and
    /// puts the receipt back in the queue to be read again with it: `pending`, attempts reset,
    /// its drafted expense removed (it is drafted again from the new reading), its lease (if a
    /// worker is reading it) taken back, so that the reading of the pictures before cannot be
    /// written. `.invalidState` when its expense is confirmed (a person's record) or it has no
    /// stored image; `.notFound` outside `scope`. Returns the receipt as it is now.
    func addPicture(name: String, contentHash: String, imagePath: String, toReceipt id: UUID, in scope: Scope,
                    now: Date) async throws -> Receipt
    /// Splits a receipt of several pictures into receipts of its pictures, in one transaction:
    /// `parts` are the new receipts' pictures (positions from 1, in order; together each picture
    /// once, in two parts or more). Each new receipt is pending, named by its first picture, with
    /// the receipt's owner, group, end user, metadata and source; a part whose pictures the owner
    /// (and end user) has already as a receipt is that receipt instead (`isNew` false). The receipt
    /// split is deleted with its drafted expense (a worker reading it cannot write its result).
    /// `.notFound` outside `scope`; `.invalidState` when its expense is confirmed (a person's
    /// record), when it has fewer than two pictures, or when `parts` are not such a split.
    func split(receipt id: UUID, into parts: [[Int]], in scope: Scope, now: Date) async throws -> [(receipt: Receipt, isNew: Bool)]
    /// Whether any receipt or picture still keeps its bytes at `imagePath`.
    func isImageUsed(_ imagePath: String) async throws -> Bool
    /// After a receipt of several pictures was deleted: of its pictures' `imagePaths`, the files
    /// no receipt or picture uses any more, for the caller to remove (bytes the store keeps in the
    /// database itself it removes on its own).
    func releaseImages(_ imagePaths: [String]) async throws -> [String]
}

extension StoredPicture {
    /// The receipts a split makes of `pictures` (a receipt's, in order): for each part (positions
    /// from 1), the new receipt and its pictures renumbered from 1 (none for a receipt of one
    /// picture: its `imagePath` is that picture). `.invalidState` when `parts` do not take each
    /// picture once, in order, in two parts or more.
    public static func split(_ pictures: [StoredPicture], of receipt: Receipt, into parts: [[Int]],
                             now: Date) throws -> [(receipt: Receipt, pictures: [StoredPicture], imagePath: String)] {
        let id = receipt.id.uuidString.lowercased()
        guard pictures.count >= 2 else {
            throw ReceiptError(.invalidState, "receipt \(id) is of one picture: there is nothing to split")
        }
        guard parts.count >= 2, parts.allSatisfy({ !$0.isEmpty }), parts.flatMap({ $0 }) == Array(1...pictures.count) else {
            throw ReceiptError(.invalidState, "receipt \(id) has \(pictures.count) pictures: a split takes each once, in order, in two parts or more (got \(parts))")
        }
        return parts.map { part in
            let own = part.enumerated().map { i, position in
                let p = pictures[position - 1]
                return StoredPicture(position: i + 1, name: p.name, contentHash: p.contentHash, imagePath: p.imagePath)
            }
            let hash = own.count == 1 ? own[0].contentHash : ContentHash.hex(ofPictures: own.map(\.contentHash))
            let made = Receipt(filePath: own[0].name, contentHash: hash, uploadTimestamp: receipt.uploadTimestamp, createdAt: now,
                               updatedAt: now, ownership: receipt.ownership, source: receipt.source)
            return (made, own.count == 1 ? [] : own, own[0].imagePath)
        }
    }
}

extension ContentHash {
    /// The `contentHash` of a receipt of several pictures: the SHA-256 of its pictures' hashes in
    /// order, so it names those pictures in that order and no single picture's bytes.
    public static func hex(ofPictures hashes: [String]) -> String {
        hex(of: Data(("receipt-pictures\n" + hashes.joined(separator: "\n")).utf8))
    }
}
