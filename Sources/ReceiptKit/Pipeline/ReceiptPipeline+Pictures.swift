import Foundation

/// Receipts photographed in several pictures (a long receipt: top, middle, bottom), read as one.
extension ReceiptPipeline {
    /// Submits the pictures of one receipt, top to bottom; returns the pending receipt (named by
    /// the first picture). The same pictures in the same order submitted before by the same owner
    /// (and end user) return that receipt, as the same bytes do for one picture. One picture is
    /// submitted as `submit(imageData:filename:as:force:source:)` does.
    @discardableResult
    public func submit(pictures: [ReceiptPicture], as ownership: Ownership, force: Bool = false,
                       source: ReceiptSource? = nil) async throws -> Receipt {
        try await queue.submit(pictures: pictures, displayPath: pictures.first?.name ?? "", as: ownership, force: force,
                               source: source).receipt
    }

    /// As `submit(pictures:as:force:source:)`, saying whether the receipt is new (false: the owner
    /// had these pictures already), as `submitReporting(imageData:…)` does for one picture.
    public func submitReporting(pictures: [ReceiptPicture], as ownership: Ownership, force: Bool = false,
                                source: ReceiptSource? = nil) async throws -> (receipt: Receipt, isNew: Bool) {
        try await queue.submit(pictures: pictures, displayPath: pictures.first?.name ?? "", as: ownership, force: force, source: source)
    }

    /// Submits image files that are one receipt's pictures, top to bottom (paths kept as given). A
    /// file that cannot be read makes a `failed` receipt naming that file and the cause.
    @discardableResult
    public func submit(picturesAt paths: [String], as ownership: Ownership, force: Bool = false) async throws -> Receipt {
        try await queue.submit(paths: paths, as: ownership, force: force).receipt
    }

    /// The bytes of one of a receipt's pictures (from `ScopedPipeline.pictures(ofReceipt:)`), as
    /// `ScopedPipeline.image(ofReceipt:)` reads a receipt's image; nil when they are no longer stored.
    public func image(ofPicture picture: StoredPicture) async throws -> Data? {
        try? await images.load(picture.imagePath)
    }
}

extension ScopedStore {
    /// Deletes a receipt it may delete as `deleteReceipt(id:force:)` does, and of its pictures'
    /// bytes those no other receipt keeps. Returns the image files the caller removes (a folder's
    /// copies).
    public func deleteReceiptAndPictures(id: UUID, force: Bool) async throws -> [String] {
        let pictures = try await self.pictures(ofReceipt: id)
        var files: [String] = []
        if let image = try await deleteReceipt(id: id, force: force) { files.append(image) }
        if !pictures.isEmpty {
            files += try await store.releaseImages(pictures.map(\.imagePath)).filter { !files.contains($0) }
        }
        return files
    }
}
