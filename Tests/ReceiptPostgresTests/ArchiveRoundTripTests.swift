import Foundation
import Testing
@testable import ReceiptKit
import ReceiptPostgres
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// `store export --archive` and `store restore` on both stores: SQLite → archive → PostgreSQL →
/// archive → SQLite gives the same rows of every entity, tokens that still sign in and
/// byte-identical images; a damaged archive is refused before anything is written; a store with
/// records is refused unless merging, and merging skips what is there by id and by content; an
/// older archive (an entity and fields it did not have) restores.
@Suite(.enabled(if: PostgresTestServer.available, "PostgreSQL is not installed: see the message on stderr"))
struct ArchiveRoundTripTests {
    /// A SQLite store with one of everything an archive holds.
    struct Made {
        var store: SQLiteReceiptStore
        var images: ImageStore
        var secrets: [String: String]
        var bytes: [UUID: Data]
    }

    static func makeStore(at path: String) async throws -> Made {
        let store = try SQLiteReceiptStore(path: path)
        let images = ImageStore(besideDatabase: store.location)
        let now = Date(timeIntervalSince1970: 1_714_557_600.25)
        _ = try await store.addGroup(name: "home", members: [:], now: now)
        _ = try await store.addUser(name: "alice", isAdmin: false, defaultGroup: "home", now: now)
        _ = try await store.addUser(name: "bob", isAdmin: true, defaultGroup: nil, now: now.addingTimeInterval(1))
        try await store.setMember(group: "home", user: "bob", role: .viewer)
        var secrets: [String: String] = [:]
        secrets["alice-phone"] = try await store.createToken(name: "alice-phone", user: "alice", scopes: [.read, .upload],
                                                             expiresAt: now.addingTimeInterval(86400 * 365 * 30),
                                                             rateLimit: RateLimit(requests: 60, seconds: 60), now: now)
        secrets["old"] = try await store.createToken(name: "old", user: "bob", now: now)
        _ = try await store.revokeToken(name: "old", now: now.addingTimeInterval(5))
        try await store.addWebhookSubscription(WebhookSubscription(user: "alice", externalUser: nil, url: URL(string: "https://hooks.example/a")!,
                                                                   secret: "whsec", createdAt: now))
        try await store.setWebhooksEnabled(true)
        // How people sign in: a password's hash, a passkey (its public key is bytes, not text), an open invitation.
        try await store.setPasswordHash(user: "alice", hash: "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA", now: now)
        try await store.addPasskey(Passkey(id: "cred-1", user: "alice", userHandle: "aGFuZGxl", name: "Phone",
                                           publicKey: [0xa5, 0x01, 0x02, 0xff, 0x00, 0x80, 0xc3], algorithm: -7, signCount: 3,
                                           createdAt: now, lastUsedAt: now.addingTimeInterval(2)))
        try await store.addInvitation(Invitation(id: "inv-1", user: "bob", createdBy: "admin", createdAt: now,
                                                 expiresAt: now.addingTimeInterval(86400 * 365 * 30)), secretHash: String(repeating: "ab", count: 32))

        var bytes: [UUID: Data] = [:]
        func submit(_ name: String, _ owner: Ownership, _ content: String? = nil) async throws -> Receipt {
            let data = Data((content ?? "receipt \(name)").utf8) + Data((0..<64).map { UInt8(($0 * 7 + name.count) % 256) })
            let hash = ContentHash.hex(of: data)
            let reference = try await images.store(data, hash: hash)
            let receipt = try await store.insert(Receipt(filePath: name, contentHash: hash, ownership: owner), imagePath: reference,
                                                 deduplicate: true).receipt
            bytes[receipt.id] = data
            return receipt
        }
        func complete(_ receipt: Receipt, vendor: String, total: String) async throws -> Expense {
            guard case .claimed = try await store.claim(id: receipt.id, Lease(holder: "w", now: now, duration: 60)) else {
                throw ReceiptError(.invalidState, "cannot claim \(receipt.filePath)")
            }
            let analysis = ReceiptAnalysis(vendor: vendor, date: CalendarDate(iso: "2024-03-01"), total: Decimal(string: total), category: "Fuel",
                                           analyzer: "t")
            let work = CompletedWork(analysis: analysis, ocrText: "\(vendor) \(total)",
                                     expense: Expense.draft(from: analysis, receiptId: receipt.id, taxonomy: .default))
            return try #require(try await store.complete(id: receipt.id, holder: "w", work: work, now: now)).1
        }
        let metadata = try JSONValue.parse(#"{"order":"A-1","n":[1,2]}"#)
        let first = try await submit("a.jpg", Ownership(owner: "alice", group: "home", metadata: metadata))
        var expense = try await complete(first, vendor: "Shell", total: "23.45")
        _ = try await complete(try await submit("b.jpg", Ownership(owner: "alice")), vendor: "Shell", total: "23.45")   // a possible duplicate
        expense.amount = Decimal(string: "24.10")
        _ = try await store.correct(expense, changed: [("amount", .string("23.45"))], by: ChangeAuthor(user: "alice", token: "alice-phone"),
                                    in: .user("alice"), now: now.addingTimeInterval(10), expectedVersion: nil)
        expense.status = .confirmed
        _ = try await store.correct(expense, changed: [], by: ChangeAuthor(user: "bob"), in: .everyone, now: now.addingTimeInterval(20),
                                    expectedVersion: nil)
        // The same bytes for bob: a receipt of his own; a failed one; one a worker holds; one waiting.
        _ = try await submit("c.jpg", .admin, "receipt a.jpg")
        let failed = try await submit("d.jpg", Ownership(owner: "bob"))
        guard case .claimed = try await store.claim(id: failed.id, Lease(holder: "w", now: now, duration: 60)) else { throw ReceiptError(.invalidState, "d") }
        _ = try await store.fail(id: failed.id, holder: "w", error: "d.jpg: unreadable", retryAt: nil, now: now)
        let held = try await submit("e.jpg", Ownership(owner: "bob", externalUser: "u-1"))
        _ = try await store.claim(id: held.id, Lease(holder: "w", now: now, duration: 60))
        let waiting = try await submit("f.jpg", .admin)
        _ = try await store.claimIdempotencyKey("key-1", of: Principal(user: Ownership.defaultAdmin), fingerprint: waiting.contentHash!, now: now)
        try await store.bindIdempotencyKey("key-1", of: Principal(user: Ownership.defaultAdmin), receiptId: waiting.id)
        // E-mail: a message kept by its SHA-256 and a mailbox's watermark.
        let eml = Data("From: shop@example.com\r\nSubject: Your receipt\r\n\r\nTotal 9.99\r\n".utf8)
        let emlHash = ContentHash.hex(of: eml)
        let emlPath = try await images.store(eml, hash: emlHash)
        if case let .new(message) = try await store.receiveMessage(MailMessage(mailbox: "INBOX", uidValidity: 7, uid: 42, messageId: "<m@x>",
                                                                             sha256: emlHash, from: "shop@example.com", subject: "Your receipt",
                                                                             date: nil, emlPath: emlPath, receivedAt: now)) {
            try await store.fileMessage(id: message.id, receiptIds: [waiting.id], note: nil, now: now)
        }
        try await store.setMailboxWatermark("INBOX", uidValidity: 7, lastUID: 42, now: now)
        return Made(store: store, images: images, secrets: secrets, bytes: bytes)
    }

    /// Each entity's rows in an archive (extracted with the system's tar), as sorted JSON lines.
    static func rows(ofArchive path: String) throws -> [String: [String]] {
        let dir = try TemporaryDirectory()
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/tar")
        tar.arguments = ["-xf", path, "-C", dir.url.path]
        try tar.run()
        tar.waitUntilExit()
        #expect(tar.terminationStatus == 0, "tar cannot read \(path)")
        var rows: [String: [String]] = [:]
        for entity in ArchiveEntities.all {
            let text = (try? String(contentsOfFile: dir.path(entity.file), encoding: .utf8)) ?? ""
            rows[entity.name] = text.split(separator: "\n").map(String.init).sorted()
        }
        return rows
    }

    /// A new PostgreSQL store, opened as `receipts` opens one (its images in the database).
    static func openPostgres() async throws -> (store: PostgresReceiptStore, images: PostgresImageRepository) {
        let server = try #require(await PostgresTestServer.shared())
        guard case let .postgres(location) = try StoreLocation(try await server.freshDatabase()) else { throw ReceiptError(.internal, "not PostgreSQL") }
        let store = try await PostgresReceiptStore.open(location, logger: TestSupport.logger)
        return (store, PostgresImageRepository(store: store))
    }

    @Test func sqliteToArchiveToPostgresToArchiveToSQLiteKeepsEverything() async throws {
        let dir = try TemporaryDirectory()
        let made = try await Self.makeStore(at: dir.path("one/receipts.sqlite"))
        let first = dir.path("first.tar")
        let exported = try await StoreArchive.export(from: made.store, images: made.images, to: first)
        #expect(exported.rows["receipts"] == 6 && exported.rows["expenses"] == 2 && exported.images == 6 && exported.missingImages.isEmpty)

        let postgres = try await Self.openPostgres()
        defer { postgres.store.close() }
        let admin = postgres.store
        let intoPostgres = try await StoreArchive.restore(try .open(first), into: admin, images: postgres.images, merge: false)
        #expect(intoPostgres.written["receipts"] == 6 && intoPostgres.images == 6)
        let second = dir.path("second.tar")
        _ = try await StoreArchive.export(from: admin, images: postgres.images, to: second)

        let final = try SQLiteReceiptStore(path: dir.path("two/receipts.sqlite"))
        let finalImages = ImageStore(besideDatabase: final.location)
        _ = try await StoreArchive.restore(try .open(second), into: final, images: finalImages, merge: false)
        let third = dir.path("third.tar")
        _ = try await StoreArchive.export(from: final, images: finalImages, to: third)

        // Every entity's rows the same, all the way round (the receipt a worker held comes back pending).
        var a = try Self.rows(ofArchive: first)
        let b = try Self.rows(ofArchive: second)
        let c = try Self.rows(ofArchive: third)
        #expect(a["receipts"]?.filter { $0.contains(#""ocrStatus":"processing""#) }.count == 1)
        a["receipts"] = a["receipts"]?.map { $0.replacingOccurrences(of: #""ocrStatus":"processing""#, with: #""ocrStatus":"pending""#) }.sorted()
        for entity in ArchiveEntities.all {
            #expect(a[entity.name] == b[entity.name], "\(entity.name): SQLite's archive and PostgreSQL's differ")
            #expect(b[entity.name] == c[entity.name], "\(entity.name): PostgreSQL's archive and the new SQLite's differ")
        }
        for (entity, count) in [("users", 3), ("groups", 1), ("tokens", 2), ("passwords", 1), ("passkeys", 1), ("invitations", 1), ("webhook_subscriptions", 1), ("expense_changes", 2),
                                ("idempotency_keys", 1), ("settings", 1), ("mail_messages", 1), ("mailboxes", 1)] {
            #expect(c[entity]?.count == count, "\(entity)")
        }
        #expect(c["group_members"]?.isEmpty == false && c["webhook_events"]?.isEmpty == false)

        // What a user would look at: records, expenses, corrections, history, users, groups.
        let source = made.store
        for store in [postgres.store, final] as [any ServerStore] {
            #expect(try await store.receipts(ReceiptQuery(), in: .everyone).map(\.id) == source.receipts(ReceiptQuery(), in: .everyone).map(\.id))
            for receipt in try await source.receipts(ReceiptQuery(), in: .everyone) {
                var restored = try #require(try await store.receipt(id: receipt.id, in: .everyone))
                if receipt.ocrStatus == .processing { #expect(restored.ocrStatus == .pending); restored.ocrStatus = .processing }
                #expect(restored == receipt)
                #expect(try await store.expense(receiptId: receipt.id, in: .everyone) == source.expense(receiptId: receipt.id, in: .everyone))
            }
            let expenses = try await source.expenses(ExpenseQuery(), in: .everyone)
            #expect(try await store.expenses(ExpenseQuery(), in: .everyone) == expenses)
            #expect(expenses.contains { $0.possibleDuplicateOf != nil })
            for expense in expenses {
                #expect(try await store.corrections(ofExpense: expense.id, in: .everyone) == source.corrections(ofExpense: expense.id, in: .everyone))
                #expect(try await store.history(ofExpense: expense.id, in: .everyone) == source.history(ofExpense: expense.id, in: .everyone))
            }
            #expect(try await store.users() == source.users())
            #expect(try await store.groups() == source.groups())
            // Tokens sign in with the secrets their holders have; the revoked one does not.
            #expect(try await store.token(secret: made.secrets["alice-phone"]!)?.user == "alice")
            #expect(try await store.token(secret: made.secrets["old"]!) == nil)
            // Passwords, passkeys and open invitations still sign people in.
            #expect(try await store.passwordHash(user: "alice") == source.passwordHash(user: "alice"))
            let passkey = try #require(try await store.passkey(id: "cred-1"))
            #expect(passkey == (try await source.passkey(id: "cred-1")))
            #expect(passkey.publicKey == [0xa5, 0x01, 0x02, 0xff, 0x00, 0x80, 0xc3])
            #expect(try await store.invitation(secretHash: String(repeating: "ab", count: 32))?.user == "bob")
        }
        // Byte-identical images.
        for (id, data) in made.bytes {
            let reference = try #require(try await final.imagePath(ofReceipt: id, in: .everyone))
            #expect(try await finalImages.load(reference) == data)
            let inPostgres = try #require(try await postgres.store.imagePath(ofReceipt: id, in: .everyone))
            #expect(try await postgres.images.load(inPostgres) == data)
        }
        #expect(try await final.mailboxWatermark("INBOX")?.lastUID == 42)
    }

    @Test func aDamagedArchiveIsRefusedWithOneLineNamingWhatIsWrong() async throws {
        let dir = try TemporaryDirectory()
        let made = try await Self.makeStore(at: dir.path("one/receipts.sqlite"))
        let path = dir.path("good.tar")
        _ = try await StoreArchive.export(from: made.store, images: made.images, to: path)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = try StoreArchive.Source.open(path)

        /// The offset of a member's first byte in the tar.
        func offset(of member: String) throws -> Int {
            var at = 0
            while at + 512 <= good.count {
                let name = String(decoding: good[at..<at + 100].prefix { $0 != 0 }, as: UTF8.self)
                let size = Int(String(decoding: good[at + 124..<at + 135], as: UTF8.self), radix: 8) ?? 0
                if name == member { return at + 512 }
                at += 512 + (size + 511) / 512 * 512
            }
            throw ReceiptError(.notFound, "\(member) not in the archive")
        }
        let receiptsAt = try offset(of: "data/receipts.jsonl")
        let image = ArchiveValue.imagePath(ContentHash.hex(of: made.bytes.values.first!))
        let imageAt = try offset(of: image)

        var flipped = good
        flipped[receiptsAt + 40] ^= 0x01
        var flippedImage = good
        flippedImage[imageAt + 3] ^= 0x80
        // The image's member renamed away: its header's name and checksum made again.
        var missing = good
        let header = imageAt - 512
        missing.replaceSubrange(header..<header + 100, with: Data("x".utf8) + Data(count: 99))
        for i in 148..<156 { missing[header + i] = 0x20 }
        let sum = missing[header..<header + 512].reduce(0) { $0 + Int($1) }
        missing.replaceSubrange(header + 148..<header + 156, with: Data(String(format: "%06o\u{0} ", sum).utf8))
        let truncated = good.prefix(good.count / 2)

        for (name, data, expected) in [("flipped.tar", flipped, "data/receipts.jsonl is damaged"),
                                       ("flipped-image.tar", flippedImage, "the image \(image) is damaged"),
                                       ("missing-image.tar", missing, "the image \(image) is missing from the archive"),
                                       ("truncated.tar", Data(truncated), "truncated")] {
            let damaged = try dir.write(name, data)
            do {
                _ = try StoreArchive.Source.open(damaged)
                Issue.record("\(name) was taken for a whole archive")
            } catch let error as ReceiptError {
                #expect(error.code == .damagedArchive, "\(name): \(error)")
                #expect(error.description.contains(expected), "\(name): \(error)")
                #expect(error.description.hasPrefix(damaged) && !error.description.contains("\n"))
            }
        }
    }

    @Test func aStoreWithRecordsIsRefusedUnlessMergingWhichSkipsWhatIsThere() async throws {
        let dir = try TemporaryDirectory()
        let made = try await Self.makeStore(at: dir.path("one/receipts.sqlite"))
        let path = dir.path("a.tar")
        _ = try await StoreArchive.export(from: made.store, images: made.images, to: path)
        let archive = try StoreArchive.Source.open(path)

        // A store with a receipt of its own, of the same bytes as the archive's a.jpg (alice's).
        let target = try SQLiteReceiptStore(path: dir.path("two/receipts.sqlite"))
        let targetImages = ImageStore(besideDatabase: target.location)
        _ = try await target.addUser(name: "alice", isAdmin: false, defaultGroup: nil, now: Date())
        let aliceA = try #require(try await made.store.receipts(ReceiptQuery(), in: .owner("alice")).first { $0.filePath == "a.jpg" })
        let own = try await target.insert(Receipt(filePath: "mine.jpg", contentHash: aliceA.contentHash, ownership: Ownership(owner: "alice")),
                                          imagePath: nil, deduplicate: true).receipt
        await #expect(throws: ReceiptError.self) {
            _ = try await StoreArchive.restore(archive, into: target, images: targetImages, merge: false)
        }
        #expect(try await target.receipts(ReceiptQuery(), in: .everyone).map(\.id) == [own.id], "nothing was written")

        let merged = try await StoreArchive.restore(archive, into: target, images: targetImages, merge: true)
        #expect(merged.skipped["receipts"] == 1 && merged.skipped["expenses"] == 1 && merged.skipped["users"] == 2)
        let receipts = try await target.receipts(ReceiptQuery(), in: .everyone)
        #expect(receipts.count == 6 && receipts.contains { $0.id == own.id } && !receipts.contains { $0.id == aliceA.id })
        // The expense changes of the skipped receipt's expense stayed out with it; the other expense's link is gone with it.
        #expect(try await target.expenses(ExpenseQuery(), in: .everyone).count == 1)

        // Again: everything is there.
        let again = try await StoreArchive.restore(archive, into: target, images: targetImages, merge: true)
        #expect(again.written.values.reduce(0, +) == 0)
        #expect(try await target.receipts(ReceiptQuery(), in: .everyone).count == 6)
    }

    @Test func anOlderArchiveWithoutAnEntityOrAFieldRestores() async throws {
        let dir = try TemporaryDirectory()
        // An archive as an older receipts wrote it: no mail entities, receipts without `source` nor `metadata`.
        let receipt = #"{"id":"6f1e2d3c-0000-4000-8000-000000000001","filePath":"old.jpg","contentHash":null,"uploadTimestamp":"2020-01-02T03:04:05.000000Z","ocrStatus":"pending","createdAt":"2020-01-02T03:04:05.000000Z","updatedAt":"2020-01-02T03:04:05.000000Z"}"#
        let rows = Data((receipt + "\n").utf8)
        let manifest = """
            {"format":"receipts-archive","version":1,"kind":"archive","createdAt":"2020-01-02T03:04:05.000000Z","source":"old","store":"sqlite",
             "files":[{"name":"data/receipts.jsonl","entity":"receipts","rows":1,"bytes":\(rows.count),"sha256":"\(ContentHash.hex(of: rows))"}],
             "images":[]}
            """
        let path = dir.path("old.tar")
        let tar = try TarWriter(path: path)
        try tar.add("data/receipts.jsonl", data: rows)
        try tar.add("manifest.json", data: Data(manifest.utf8))
        try tar.finish()

        let target = try SQLiteReceiptStore(path: dir.path("new/receipts.sqlite"))
        _ = try await StoreArchive.restore(try .open(path), into: target, images: ImageStore(besideDatabase: target.location), merge: false)
        let restored = try #require(try await target.receipt(id: UUID(uuidString: "6f1e2d3c-0000-4000-8000-000000000001")!, in: .everyone))
        #expect(restored.filePath == "old.jpg" && restored.ocrStatus == .pending && restored.ownership.owner == "admin" && restored.attempts == 0)
        #expect(try await target.users().map(\.name) == ["admin"])

        // One of a newer format is refused, naming the upgrade.
        let newer = dir.path("newer.tar")
        let newTar = try TarWriter(path: newer)
        try newTar.add("manifest.json", data: Data(#"{"format":"receipts-archive","version":99,"files":[],"images":[]}"#.utf8))
        try newTar.finish()
        #expect(throws: ReceiptError.self) { _ = try StoreArchive.Source.open(newer) }
    }

    @Test func aBackupCopiesOnlyNewImagesAndRestoresIntoPostgres() async throws {
        let dir = try TemporaryDirectory()
        let made = try await Self.makeStore(at: dir.path("one/receipts.sqlite"))
        let backups = dir.path("backups")
        let first = try await StoreArchive.backup(from: made.store, images: made.images, to: backups)
        #expect(first.imagesCopied == 6 && first.imagesKept == 0 && first.kind == "sqlite")
        let data = Data("one more".utf8)
        let reference = try await made.images.store(data, hash: ContentHash.hex(of: data))
        let added = try await made.store.insert(Receipt(filePath: "g.jpg", contentHash: ContentHash.hex(of: data), ownership: .admin),
                                                imagePath: reference, deduplicate: true).receipt
        let second = try await StoreArchive.backup(from: made.store, images: made.images, to: backups, keep: 1)
        #expect(second.imagesCopied == 1 && second.imagesKept == 6 && second.removed.count == 1)
        #expect(StoreArchive.snapshots(in: backups).count == 1)

        let postgres = try await Self.openPostgres()
        defer { postgres.store.close() }
        let restored = try await StoreArchive.restore(try .open(backups), into: postgres.store, images: postgres.images, merge: false)
        #expect(restored.written["receipts"] == 7)
        let inPostgres = try #require(try await postgres.store.imagePath(ofReceipt: added.id, in: .everyone))
        #expect(try await postgres.images.load(inPostgres) == data)

        // PostgreSQL's own backup (its rows, one transaction) restores into SQLite.
        let pgBackup = try await StoreArchive.backup(from: postgres.store, images: postgres.images, to: dir.path("pg-backups"))
        #expect(pgBackup.kind == "postgresql" && pgBackup.rows > 0)
        let back = try SQLiteReceiptStore(path: dir.path("back/receipts.sqlite"))
        _ = try await StoreArchive.restore(try .open(dir.path("pg-backups")), into: back, images: ImageStore(besideDatabase: back.location),
                                           merge: false)
        #expect(try await back.receipts(ReceiptQuery(), in: .everyone).map(\.id)
                == made.store.receipts(ReceiptQuery(), in: .everyone).map(\.id))
    }
}
