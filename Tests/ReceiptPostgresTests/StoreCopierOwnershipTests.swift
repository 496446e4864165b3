import Foundation
import Testing
@testable import ReceiptKit
import ReceiptPostgres
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// `receipts store migrate` of a SQLite store with users: users, groups and members, tokens (that
/// still work), users' webhooks, each receipt's ownership, who confirmed each expense and its
/// history, and a long receipt's pictures all arrive in PostgreSQL; the same bytes of two users stay two receipts; a second run
/// copies nothing again.
@Suite(.enabled(if: PostgresTestServer.available, "PostgreSQL is not installed: see the message on stderr"))
struct StoreCopierOwnershipTests {
    @Test func aSQLiteStoreWithUsersMigratesWhole() async throws {
        let dir = try TemporaryDirectory()
        let source = try SQLiteReceiptStore(path: dir.storePath)
        let sourceImages = ImageStore(besideDatabase: source.location)
        let now = Date(timeIntervalSince1970: TimeInterval(Int(Date().timeIntervalSince1970)))
        for (name, admin) in [("alice", false), ("bob", false), ("carol", false), ("svc", false), ("root", true)] {
            _ = try await source.addUser(name: name, isAdmin: admin, defaultGroup: nil, now: now)
        }
        _ = try await source.addGroup(name: "home", members: ["alice": .editor, "carol": .viewer], now: now)
        _ = try await source.addUser(name: "dave", isAdmin: false, defaultGroup: "home", now: now)
        let alicesSecret = try await source.createToken(name: "alice-phone", user: "alice", scopes: [.read, .upload],
                                                        expiresAt: now.addingTimeInterval(86400), rateLimit: RateLimit(requests: 60, seconds: 60),
                                                        now: now)
        let revokedSecret = try await source.createToken(name: "old", user: "bob", now: now)
        _ = try await source.revokeToken(name: "old", now: now)
        let webhook = WebhookSubscription(user: "svc", externalUser: "u-1", url: URL(string: "https://hooks.example/svc")!, secret: "s",
                                          createdAt: now)
        try await source.addWebhookSubscription(webhook)

        // The same bytes from alice and from bob: two receipts in the source, two in the target.
        let bytes = Data("the same receipt".utf8)
        let hash = ContentHash.hex(of: bytes)
        let image = try await sourceImages.store(bytes, hash: hash)
        let metadata = try JSONValue.parse(#"{"order":"A-1"}"#)
        let alices = try await source.insert(Receipt(filePath: "alice.jpg", contentHash: hash, ownership: Ownership(owner: "alice", group: "home")),
                                             imagePath: image, deduplicate: true).receipt
        let bobs = try await source.insert(Receipt(filePath: "bob.jpg", contentHash: hash, ownership: Ownership(owner: "bob")),
                                           imagePath: image, deduplicate: true).receipt
        let u1 = try await source.insert(Receipt(filePath: "u1.jpg", contentHash: "u1-bytes",
                                                 ownership: Ownership(owner: "svc", externalUser: "u-1", metadata: metadata)),
                                         imagePath: nil, deduplicate: true).receipt
        // A long receipt in two pictures: both go, each with its bytes.
        let parts = [Data("top of a long receipt".utf8), Data("bottom of a long receipt".utf8)]
        var stored: [StoredPicture] = []
        for (index, part) in parts.enumerated() {
            let partHash = ContentHash.hex(of: part)
            stored.append(StoredPicture(position: index + 1, name: "long-\(index + 1).jpg", contentHash: partHash,
                                        imagePath: try await sourceImages.store(part, hash: partHash)))
        }
        let long = try await source.insert(Receipt(filePath: "long-1.jpg", contentHash: ContentHash.hex(ofPictures: stored.map(\.contentHash)),
                                                   ownership: Ownership(owner: "bob")),
                                           pictures: stored, deduplicate: true).receipt
        #expect(alices.id != bobs.id)
        guard case .claimed = try await source.claim(id: alices.id, Lease(holder: "w", duration: 60)) else {
            throw ReceiptError(.invalidState, "alice's receipt could not be claimed")
        }
        let analysis = ReceiptAnalysis(vendor: "Shell", date: CalendarDate(iso: "2024-03-01"), total: Decimal(string: "23.45"), category: "Fuel",
                                       analyzer: "t")
        let work = CompletedWork(analysis: analysis, ocrText: "Shell 23.45",
                                 expense: Expense.draft(from: analysis, receiptId: alices.id, taxonomy: .default))
        var expense = try #require(try await source.complete(id: alices.id, holder: "w", work: work, now: now)).1
        expense.amount = Decimal(string: "24.00")
        _ = try await source.correct(expense, changed: [("amount", .string("23.45"))], by: ChangeAuthor(user: "alice", token: "alice-phone"),
                                     in: .user("alice"), now: now, expectedVersion: nil)
        expense.status = .confirmed
        _ = try await source.correct(expense, changed: [], by: ChangeAuthor(user: "carol"), in: .user("carol"), now: now.addingTimeInterval(60),
                                     expectedVersion: nil)

        let server = try #require(await PostgresTestServer.shared())
        guard case let .postgres(location) = try StoreLocation(try await server.freshDatabase()) else { return }
        let target = try await PostgresReceiptStore.open(location, logger: TestSupport.logger)
        defer { target.close() }
        let copier = StoreCopier(from: source, images: sourceImages, to: target, images: PostgresImageRepository(store: target))
        let summary = try await copier.copy()
        #expect(summary.copied == 4 && summary.sameImage.isEmpty && summary.missingImages.isEmpty)
        #expect(summary.accounts.users == 6 && summary.accounts.groups == 1 && summary.accounts.members == 3, "admin was there already")
        #expect(summary.accounts.tokens == 2 && summary.accounts.webhooks == 1)

        // Users, groups and members as they were.
        #expect(try await target.users().map(\.name) == ["admin", "alice", "bob", "carol", "dave", "root", "svc"])
        #expect(try await target.user(named: "root")?.isAdmin == true)
        #expect(try await target.user(named: "dave")?.defaultGroup == "home")
        #expect(try await target.groups().map(\.members) == [["alice": .editor, "carol": .viewer, "dave": .editor]])
        // Tokens keep working with the secrets their holders have, as their users'.
        let token = try #require(try await target.token(secret: alicesSecret))
        #expect(token.user == "alice" && token.scopes == [.read, .upload] && token.rateLimit == RateLimit(requests: 60, seconds: 60))
        #expect(token.expiresAt.map { abs($0.timeIntervalSince(now.addingTimeInterval(86400))) < 0.001 } == true)
        #expect(try await target.token(secret: revokedSecret) == nil, "a revoked token stays revoked")
        #expect(try await target.tokens().first { $0.name == "old" }?.revokedAt != nil)
        #expect(try await target.webhookSubscriptions(user: "svc").map(\.id) == [webhook.id])

        // Each receipt is its owner's, with its group, end user and metadata; the expense keeps who confirmed it and its history.
        for receipt in [alices, bobs, u1] {
            #expect(try await target.receipt(id: receipt.id, in: .owner(receipt.ownership.owner))?.ownership == receipt.ownership)
        }
        #expect(try await target.receipt(id: alices.id, in: .user("carol")) != nil)
        #expect(try await target.receipt(id: alices.id, in: .user("bob")) == nil)
        #expect(try await target.receipts(ReceiptQuery(), in: .externalUser("u-1", of: "svc")).map(\.id) == [u1.id])
        let copied = try #require(try await target.expense(receiptId: alices.id, in: .user("alice")))
        #expect(copied.confirmedBy == "carol" && copied.amount == Decimal(string: "24.00"))
        #expect(try await target.history(ofExpense: copied.id, in: .user("alice"))
                == source.history(ofExpense: expense.id, in: .everyone))
        #expect(try await target.history(ofExpense: copied.id, in: .everyone).map(\.author.user) == ["alice", "carol"])
        // The image of the shared bytes is there for both.
        let reference = try #require(try await target.imagePath(ofReceipt: bobs.id, in: .user("bob")))
        #expect(try await PostgresImageRepository(store: target).load(reference) == bytes)

        // The long receipt's pictures, in order, with their bytes; its image is its first picture.
        let pictures = try await target.pictures(ofReceipt: long.id, in: .user("bob"))
        #expect(pictures.map(\.name) == ["long-1.jpg", "long-2.jpg"])
        for (picture, part) in zip(pictures, parts) {
            #expect(try await PostgresImageRepository(store: target).load(picture.imagePath) == part)
        }
        #expect(try await target.imagePath(ofReceipt: long.id, in: .user("bob")) == pictures.first?.imagePath)

        // Again: nothing new.
        let second = try await copier.copy()
        #expect(second.copied == 0 && second.alreadyThere == 4 && second.accounts == ImportedAccounts())
        #expect(try await target.receipts(ReceiptQuery(), in: .everyone).count == 4)
        #expect(try await target.history(ofExpense: copied.id, in: .everyone).count == 2)
    }
}
