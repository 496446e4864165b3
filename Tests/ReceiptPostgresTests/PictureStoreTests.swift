import Foundation
import Testing
@testable import ReceiptKit
import ReceiptPostgres
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// Receipts photographed in several pictures, in every store: stored with their pictures at once,
/// the same pictures again the same receipt, a picture added later making the receipt read again,
/// and the pictures' bytes kept while any receipt uses them.
@Suite struct PictureStoreTests {
    private func pictures(_ store: TestStore, _ names: [String]) async throws -> [StoredPicture] {
        var stored: [StoredPicture] = []
        for (i, name) in names.enumerated() {
            let data = Data("picture \(name)".utf8), hash = ContentHash.hex(of: data)
            stored.append(StoredPicture(position: i + 1, name: name, contentHash: hash, imagePath: try await store.images.store(data, hash: hash)))
        }
        return stored
    }

    private func receipt(of pictures: [StoredPicture], owner: String = "admin") -> Receipt {
        Receipt(filePath: pictures[0].name, contentHash: ContentHash.hex(ofPictures: pictures.map(\.contentHash)),
                ownership: Ownership(owner: owner))
    }

    @Test(arguments: StoreKind.available)
    func aReceiptIsStoredWithItsPicturesInOrderAndTheSamePicturesAreTheSameReceipt(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        let stored = try await pictures(test, ["top.jpg", "middle.jpg", "bottom.jpg"])
        let (first, isNew) = try await test.store.insert(receipt(of: stored), pictures: stored, deduplicate: true)
        #expect(isNew && first.ocrStatus == .pending)
        #expect(try await test.store.pictures(ofReceipt: first.id, in: .owner("admin")) == stored)
        #expect(try await test.store.imagePath(ofReceipt: first.id, in: .everyone) == stored[0].imagePath)
        // The same pictures in the same order: that receipt. In another order: another receipt.
        let (again, againNew) = try await test.store.insert(receipt(of: stored), pictures: stored, deduplicate: true)
        #expect(!againNew && again.id == first.id)
        let reordered = [stored[1], stored[0], stored[2]].enumerated().map { i, p in
            StoredPicture(position: i + 1, name: p.name, contentHash: p.contentHash, imagePath: p.imagePath)
        }
        let (other, otherNew) = try await test.store.insert(receipt(of: reordered), pictures: reordered, deduplicate: true)
        #expect(otherNew && other.id != first.id)
        // Outside the scope, no pictures are said to exist.
        _ = try await test.store.addUser(name: "bob", isAdmin: false, defaultGroup: nil, now: Date())
        #expect(try await test.store.pictures(ofReceipt: first.id, in: .user("bob")).isEmpty)
        // A worker takes it like any receipt.
        let job = try #require(try await test.store.claimNext(Lease(holder: "w", duration: 60)))
        #expect(job.receipt.id == first.id && job.imagePath == stored[0].imagePath)
    }

    @Test(arguments: StoreKind.available)
    func addingAPictureReadsTheReceiptAgainAndTakesBackItsLease(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        let store = test.store
        let top = try await pictures(test, ["top.jpg"])[0]
        let one = Receipt(filePath: "top.jpg", contentHash: top.contentHash)
        let receipt = try await store.insert(one, imagePath: top.imagePath, deduplicate: true).receipt
        // Read as one picture, its expense drafted.
        _ = try #require(try await store.claimNext(Lease(holder: "w1", duration: 60)))
        let analysis = ReceiptAnalysis(vendor: "Ridgeway", date: CalendarDate(iso: "2025-03-08"), total: Decimal(string: "12.00"), analyzer: "t")
        let work = CompletedWork(analysis: analysis, ocrText: "x", expense: Expense.draft(from: analysis, receiptId: receipt.id, taxonomy: .default))
        _ = try #require(try await store.complete(id: receipt.id, holder: "w1", work: work, now: Date()))

        let bottom = try await pictures(test, ["bottom.jpg"])[0]
        let again = try await store.addPicture(name: "bottom.jpg", contentHash: bottom.contentHash, imagePath: bottom.imagePath,
                                               toReceipt: receipt.id, in: .owner("admin"), now: Date())
        #expect(again.ocrStatus == .pending && again.attempts == 0 && again.expenseId == nil && again.ocrResultJson == nil)
        #expect(again.contentHash == ContentHash.hex(ofPictures: [top.contentHash, bottom.contentHash]))
        #expect(try await store.pictures(ofReceipt: receipt.id, in: .everyone).map(\.name) == ["top.jpg", "bottom.jpg"])
        #expect(try await store.expense(receiptId: receipt.id, in: .everyone) == nil, "the drafted expense is drafted again")

        // Added while a worker reads it: that worker's result of the pictures before is not written.
        _ = try #require(try await store.claimNext(Lease(holder: "w2", duration: 60)))
        let third = try await pictures(test, ["more.jpg"])[0]
        _ = try await store.addPicture(name: "more.jpg", contentHash: third.contentHash, imagePath: third.imagePath,
                                       toReceipt: receipt.id, in: .everyone, now: Date())
        #expect(try await store.complete(id: receipt.id, holder: "w2", work: work, now: Date()) == nil)
        let job = try #require(try await store.claimNext(Lease(holder: "w3", duration: 60)))
        #expect(job.receipt.id == receipt.id)
        _ = try #require(try await store.complete(id: receipt.id, holder: "w3", work: work, now: Date()))
        #expect(try await store.pictures(ofReceipt: receipt.id, in: .everyone).count == 3)

        // A confirmed expense is a person's record: no picture is added to it.
        let expense = try #require(try await store.expense(receiptId: receipt.id, in: .everyone))
        var confirmed = expense
        confirmed.status = .confirmed
        _ = try await store.correct(confirmed, changed: [], by: ChangeAuthor(user: "admin", token: nil), in: .everyone, now: Date(), expectedVersion: nil)
        await #expect(throws: ReceiptError.self) {
            try await store.addPicture(name: "late.jpg", contentHash: third.contentHash, imagePath: third.imagePath,
                                       toReceipt: receipt.id, in: .everyone, now: Date())
        }
        // Another user's receipt is not found.
        _ = try await store.addUser(name: "bob", isAdmin: false, defaultGroup: nil, now: Date())
        do {
            _ = try await store.addPicture(name: "x.jpg", contentHash: third.contentHash, imagePath: third.imagePath,
                                           toReceipt: receipt.id, in: .user("bob"), now: Date())
            Issue.record("bob added a picture to admin's receipt")
        } catch let error as ReceiptError {
            #expect(error.code == .notFound)
        }
    }

    @Test(arguments: StoreKind.available)
    func picturesKeepTheirBytesWhileAnyReceiptUsesThem(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        let store = test.store
        let stored = try await pictures(test, ["a.jpg", "b.jpg"])
        let long = try await store.insert(receipt(of: stored), pictures: stored, deduplicate: true).receipt
        // b.jpg alone is another receipt too.
        let single = try await store.insert(Receipt(filePath: "b.jpg", contentHash: stored[1].contentHash), imagePath: stored[1].imagePath,
                                            deduplicate: true).receipt
        // Deleting the single receipt keeps b's bytes: the long receipt's second picture.
        let freed = try await store.scoped(to: .administrator()).deleteReceiptAndPictures(id: single.id, force: false)
        #expect(freed.isEmpty)
        #expect(try await store.isImageUsed(stored[1].imagePath))
        _ = try await test.images.load(stored[1].imagePath)
        // Deleting the long receipt frees both.
        let files = try await store.scoped(to: .administrator()).deleteReceiptAndPictures(id: long.id, force: false)
        let firstUsed = try await store.isImageUsed(stored[0].imagePath)
        let secondUsed = try await store.isImageUsed(stored[1].imagePath)
        #expect(!firstUsed && !secondUsed)
        if kind == .sqlite {
            #expect(Set(files) == Set(stored.map(\.imagePath)), "the folder's copies to remove")
        } else {
            #expect(files.isEmpty)
            await #expect(throws: (any Error).self) { try await test.images.load(stored[1].imagePath) }
        }
    }

    /// Splitting a receipt of pictures of different receipts (issue 56): one receipt per part, in
    /// one transaction, the receipt split gone with its drafted expense and its bytes kept; a part
    /// the owner already has is that receipt; a confirmed one, one of one picture, someone else's
    /// and a split that does not take each picture once are refused.
    @Test(arguments: StoreKind.available)
    func aReceiptSplitsIntoReceiptsOfItsPictures(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        let store = test.store
        _ = try await store.addGroup(name: "family", members: [:], now: Date())
        _ = try await store.addUser(name: "carol", isAdmin: false, defaultGroup: "family", now: Date())
        let stored = try await pictures(test, ["fuel.jpg", "diner.jpg", "parts-1.jpg", "parts-2.jpg"])
        let ownership = Ownership(owner: "carol", group: "family", metadata: .object([("trip", .string("north"))]))
        var long = receipt(of: stored, owner: "carol")
        long.ownership = ownership
        let original = try await store.insert(long, pictures: stored, deduplicate: true).receipt
        // diner.jpg alone is a receipt carol has already.
        var diner = Receipt(filePath: "diner.jpg", contentHash: stored[1].contentHash)
        diner.ownership = ownership
        let known = try await store.insert(diner, imagePath: stored[1].imagePath, deduplicate: true).receipt
        // Read, its expense drafted: a worker's result.
        guard case .claimed = try await store.claim(id: original.id, Lease(holder: "w1", duration: 60)) else {
            Issue.record("not claimed")
            return
        }
        let analysis = ReceiptAnalysis(vendor: "Northway", date: CalendarDate(iso: "2024-03-14"), total: Decimal(string: "104.36"), analyzer: "t")
        let work = CompletedWork(analysis: analysis, ocrText: "x", expense: Expense.draft(from: analysis, receiptId: original.id, taxonomy: .default))
        _ = try #require(try await store.complete(id: original.id, holder: "w1", work: work, now: Date()))

        // Not a split: each picture once, in order, in two parts or more.
        for parts in [[[1, 2, 3, 4]], [[1], [2, 3]], [[2], [1], [3, 4]], [[1], [1, 2, 3, 4]], [[1], [], [2, 3, 4]]] {
            await #expect(throws: ReceiptError.self, "\(parts)") {
                try await store.split(receipt: original.id, into: parts, in: .everyone, now: Date())
            }
        }
        // Someone else's receipt is not found.
        _ = try await store.addUser(name: "bob", isAdmin: false, defaultGroup: nil, now: Date())
        do {
            _ = try await store.split(receipt: original.id, into: [[1], [2], [3, 4]], in: .user("bob"), now: Date())
            Issue.record("bob split carol's receipt")
        } catch let error as ReceiptError {
            #expect(error.code == .notFound)
        }

        let split = try await store.split(receipt: original.id, into: [[1], [2], [3, 4]], in: .user("carol"), now: Date())
        #expect(split.count == 3)
        #expect(split.map { $0.isNew } == [true, false, true])
        #expect(split[1].receipt.id == known.id, "the diner's picture is the receipt carol had")
        let fuel = split[0].receipt, parts = split[2].receipt
        #expect(fuel.filePath == "fuel.jpg" && fuel.contentHash == stored[0].contentHash && fuel.ocrStatus == .pending)
        #expect(fuel.ownership == ownership && parts.ownership == ownership, "owner, group and metadata kept")
        #expect(try await store.imagePath(ofReceipt: fuel.id, in: .everyone) == stored[0].imagePath)
        #expect(try await store.pictures(ofReceipt: fuel.id, in: .everyone).isEmpty, "a receipt of one picture")
        #expect(parts.filePath == "parts-1.jpg" && parts.contentHash == ContentHash.hex(ofPictures: [stored[2].contentHash, stored[3].contentHash]))
        #expect(try await store.pictures(ofReceipt: parts.id, in: .everyone).map(\.name) == ["parts-1.jpg", "parts-2.jpg"])
        #expect(try await store.pictures(ofReceipt: parts.id, in: .everyone).map(\.position) == [1, 2])
        // The receipt split is gone, with its expense; its bytes are kept.
        #expect(try await store.receipt(id: original.id, in: .everyone) == nil)
        #expect(try await store.expense(receiptId: original.id, in: .everyone) == nil)
        #expect(try await store.expenses(ExpenseQuery(), in: .everyone).isEmpty)
        for picture in stored { #expect(try await store.isImageUsed(picture.imagePath)) }
        // The new receipts wait for a worker; the same parts again are those receipts.
        let job = try #require(try await store.claimNext(Lease(holder: "w2", duration: 60)))
        #expect([fuel.id, parts.id, known.id].contains(job.receipt.id))
        let again = try await store.insert(Receipt(filePath: "x", contentHash: parts.contentHash, ownership: ownership),
                                           imagePath: nil, deduplicate: true)
        #expect(!again.isNew && again.receipt.id == parts.id)

        // A receipt of one picture has nothing to split; a confirmed one is a person's record.
        await #expect(throws: ReceiptError.self) { try await store.split(receipt: fuel.id, into: [[1]], in: .everyone, now: Date()) }
        var holder = "w2"
        if job.receipt.id != parts.id {
            holder = "w3"
            _ = try await store.claim(id: parts.id, Lease(holder: holder, duration: 60))
        }
        let work2 = CompletedWork(analysis: analysis, ocrText: "x", expense: Expense.draft(from: analysis, receiptId: parts.id, taxonomy: .default))
        let (_, expense) = try #require(try await store.complete(id: parts.id, holder: holder, work: work2, now: Date()))
        var confirmed = expense
        confirmed.status = .confirmed
        _ = try await store.correct(confirmed, changed: [], by: ChangeAuthor(user: "carol", token: nil), in: .everyone, now: Date(), expectedVersion: nil)
        do {
            _ = try await store.split(receipt: parts.id, into: [[1], [2]], in: .everyone, now: Date())
            Issue.record("a confirmed receipt was split")
        } catch let error as ReceiptError {
            #expect(error.code == .invalidState)
        }
    }
}
