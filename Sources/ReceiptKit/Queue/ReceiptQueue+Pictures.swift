import Foundation
import Logging

/// Receipts photographed in several pictures: submitting them (all the pictures stored, then the
/// receipt and its pictures in one transaction), adding one to a receipt, and reading them back
/// for a worker.
extension ReceiptQueue {
    /// Stores the pictures' bytes, then a pending receipt of those pictures in order (or returns
    /// the receipt the owner already has of the same pictures: its `contentHash` is the hash of
    /// all of them together). `displayPath` names the receipt (the first picture's path).
    func submit(pictures: [ReceiptPicture], displayPath: String, as ownership: Ownership, force: Bool,
                source: ReceiptSource? = nil) async throws -> (receipt: Receipt, isNew: Bool) {
        guard pictures.count > 1 else {
            guard let picture = pictures.first else { throw ReceiptError(.badImage, file: displayPath, "no picture to read") }
            return try await submit(data: picture.data, displayPath: displayPath, as: ownership, force: force, source: source)
        }
        let hashes = try await BlockingIO.run { pictures.map { ContentHash.hex(of: $0.data) } }
        var stored: [StoredPicture] = []
        for (index, (picture, hash)) in zip(pictures, hashes).enumerated() {
            stored.append(StoredPicture(position: index + 1, name: picture.name, contentHash: hash,
                                        imagePath: try await images.store(picture.data, hash: hash)))
        }
        let now = Date()
        let receipt = Receipt(filePath: displayPath, contentHash: ContentHash.hex(ofPictures: hashes), uploadTimestamp: now,
                              createdAt: now, updatedAt: now, ownership: ownership, source: source)
        return try await settle(try await store.insert(receipt, pictures: stored, deduplicate: !force), as: ownership,
                                displayPath: displayPath, now: now)
    }

    /// Reads and submits image files that are one receipt's pictures, top to bottom. A file that
    /// cannot be read makes the receipt a `failed` one naming that file and the cause.
    func submit(paths: [String], as ownership: Ownership, force: Bool) async throws -> (receipt: Receipt, isNew: Bool) {
        guard let first = paths.first else { throw ReceiptError(.badImage, file: nil, "no picture to read") }
        var pictures: [ReceiptPicture] = []
        for path in paths {
            switch try await BlockingIO.run({ BlockingIO.readImage(at: path) }) {
            case let .success(data):
                pictures.append(ReceiptPicture(data: data, name: path))
            case let .failure(error):
                let now = Date()
                let error = configuration.advice.apply(to: error)
                let receipt = Receipt(filePath: first, uploadTimestamp: now, ocrStatus: .failed, lastError: error.description,
                                      createdAt: now, updatedAt: now, ownership: ownership)
                let result = try await store.insert(receipt, imagePath: nil, deduplicate: false)
                finished.notifyAll()
                return result
            }
        }
        return try await submit(pictures: pictures, displayPath: first, as: ownership, force: force)
    }

    /// What became of candidate pictures submitted (`BatchItem.candidates`).
    enum CandidateSubmission {
        /// Read apart, each as a file: one cannot be read (it fails alone, naming itself), or
        /// each is a receipt of the owner's already (split before).
        case apart
        /// Submitted together (or found: the owner has a receipt of these pictures).
        case together(Receipt, isNew: Bool)
    }

    /// Submits candidate pictures of one long receipt together, unless they are to be read apart.
    func submit(candidates paths: [String], as ownership: Ownership, force: Bool) async throws -> CandidateSubmission {
        var pictures: [ReceiptPicture] = []
        for path in paths {
            guard case let .success(data) = try await BlockingIO.run({ BlockingIO.readImage(at: path) }) else { return .apart }
            pictures.append(ReceiptPicture(data: data, name: path))
        }
        if !force {
            let scope = ownership.externalUser.map { Scope.externalUser($0, of: ownership.owner) } ?? .owner(ownership.owner)
            let read = pictures
            let hashes = try await BlockingIO.run { read.map { ContentHash.hex(of: $0.data) } }
            if let known = try await store.receipt(contentHash: ContentHash.hex(ofPictures: hashes), in: scope), known.ocrStatus != .failed {
                return .together(known, isNew: false)
            }
            var alone = true
            for hash in hashes where alone {
                let known = try await store.receipt(contentHash: hash, in: scope)
                alone = known != nil && known?.ocrStatus != .failed
            }
            if alone { return .apart }
        }
        let (receipt, isNew) = try await submit(pictures: pictures, displayPath: paths[0], as: ownership, force: force)
        return .together(receipt, isNew: isNew)
    }

    /// Adds a picture below a receipt's others and puts it back in the queue to be read again.
    func addPicture(_ picture: ReceiptPicture, toReceipt id: UUID, in scope: Scope) async throws -> Receipt {
        let hash = try await BlockingIO.run { ContentHash.hex(of: picture.data) }
        let path = try await images.store(picture.data, hash: hash)
        let receipt = try await store.addPicture(name: picture.name, contentHash: hash, imagePath: path, toReceipt: id, in: scope, now: Date())
        logger.debug("Picture added; receipt back in the queue", metadata: ["receipt.id": "\(id.uuidString.lowercased())",
                                                                             "receipt.picture": "\(picture.name)"])
        workAvailable.notifyOne()
        finished.notifyAll()
        return receipt
    }

    /// Splits a receipt into receipts of its pictures (`ScopedStore.split`) and has them read: the
    /// new ones are in the queue; one the owner had already that failed is put back in it.
    func split(_ id: UUID, into parts: [[Int]]?, records: ScopedStore) async throws -> [(receipt: Receipt, isNew: Bool)] {
        var receipts = try await records.split(id: id, into: parts, now: Date())
        for (i, part) in receipts.enumerated() where !part.isNew && part.receipt.ocrStatus == .failed {
            do {
                receipts[i].receipt = try await store.requeue(id: part.receipt.id, in: .everyone, now: Date())
            } catch let error as ReceiptError where error.code == .invalidState {
                // Put back (or finished) by someone else meanwhile: as it is now.
                receipts[i].receipt = try await store.receipt(id: part.receipt.id, in: .everyone) ?? part.receipt
            }
        }
        logger.debug("Receipt split into receipts of its pictures", metadata: [
            "receipt.id": "\(id.uuidString.lowercased())",
            "receipt.split": "\(receipts.map { $0.receipt.id.uuidString.lowercased() }.joined(separator: " "))",
        ])
        workAvailable.notifyAll()
        finished.notifyAll()
        return receipts
    }

    /// The pictures of a claimed receipt: its stored pictures when it has several, else its image.
    func readPictures(of job: ClaimedJob) async -> Swift.Result<[ReceiptPicture], ReceiptError> {
        let stored: [StoredPicture]
        do {
            stored = try await store.pictures(ofReceipt: job.receipt.id, in: .everyone)
        } catch {
            let message = (error as? ReceiptError)?.message ?? "\(error)"
            return .failure(ReceiptError(.database, file: job.receipt.filePath, "cannot read the receipt's pictures (\(message))", retry: .later))
        }
        guard stored.count > 1 else {
            return await readImage(of: job).map { [ReceiptPicture(data: $0, name: job.receipt.filePath)] }
        }
        var pictures: [ReceiptPicture] = []
        for picture in stored {
            do {
                pictures.append(ReceiptPicture(data: try await images.load(picture.imagePath), name: picture.name))
            } catch let error as ReceiptError where error.isTransient {
                return .failure(ReceiptError(error.code, file: picture.name, error.message, cause: error.cause, retry: .later))
            } catch {
                let message = (error as? ReceiptError)?.message ?? "\(error)"
                return .failure(ReceiptError(.unreadable, file: picture.name, "the stored copy of the picture is missing or unreadable (\(message))"))
            }
        }
        return .success(pictures)
    }
}
