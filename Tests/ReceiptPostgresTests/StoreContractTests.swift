import Foundation
import Testing
@testable import ReceiptKit
import ReceiptPostgres
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// The store contract, run against every store: SQLite always, PostgreSQL when its programs are
/// installed (a real server the tests start; `make test` installs it). What the queue, the CLI and
/// `serve` rely on, so either store can be swapped in.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    /// PostgreSQL only where it can run (otherwise its tests are skipped, with a message on stderr).
    static var available: [StoreKind] { PostgresTestServer.available ? [.sqlite, .postgres] : [.sqlite] }

    var testDescription: String { rawValue }
}

/// A new, empty store of one kind.
struct TestStore: Sendable {
    let kind: StoreKind
    let store: any ServerStore
    let images: any ImageRepository
    let dir: TemporaryDirectory
    /// What `--store` takes: the SQLite path or the PostgreSQL URL (with its password).
    let location: String

    static func make(_ kind: StoreKind) async throws -> TestStore {
        let dir = try TemporaryDirectory()
        let location = kind == .sqlite ? dir.storePath : try await #require(await PostgresTestServer.shared()).freshDatabase()
        let opened = try await open(location)
        return TestStore(kind: kind, store: opened.store, images: opened.images, dir: dir, location: location)
    }

    /// Another connection (pool) to the same store, as another process would have.
    func reopen() async throws -> any ServerStore {
        try await Self.open(location).store
    }

    /// The store at `location`, typed as the `ServerStore` both kinds are (as `receipts` opens it).
    static func open(_ location: String) async throws -> (store: any ServerStore, images: any ImageRepository) {
        switch try StoreLocation(location) {
        case let .sqlite(path):
            let store = try SQLiteReceiptStore(path: path)
            return (store, ImageStore(besideDatabase: store.location))
        case let .postgres(postgres):
            let store = try await PostgresReceiptStore.open(postgres, logger: TestSupport.logger)
            return (store, PostgresImageRepository(store: store))
        }
    }
}

@Suite struct StoreContractTests {
    private func pending(_ store: any ReceiptStore, _ name: String = "r.jpg") async throws -> Receipt {
        try await store.insert(Receipt(filePath: name, contentHash: UUID().uuidString), imagePath: nil, deduplicate: true).receipt
    }

    private func work(_ receipt: Receipt, vendor: String = "Shell", date: String = "2024-03-01", total: String = "23.45") -> CompletedWork {
        let analysis = ReceiptAnalysis(vendor: vendor, date: CalendarDate(iso: date), total: Decimal(string: total), category: "Fuel", analyzer: "t")
        return CompletedWork(analysis: analysis, ocrText: "\(vendor) \(total)",
                             expense: Expense.draft(from: analysis, receiptId: receipt.id, taxonomy: .default))
    }

    @Test(arguments: StoreKind.available)
    func aReceiptMovesPendingProcessingCompletedWithOneExpense(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        let receipt = try await pending(store)
        #expect(receipt.ocrStatus == .pending)
        let job = try #require(try await store.claimNext(Lease(holder: "w1", duration: 60)))
        #expect(job.receipt.id == receipt.id)
        #expect(job.receipt.ocrStatus == .processing)
        #expect(job.receipt.attempts == 1)
        #expect(try await store.claimNext(Lease(holder: "w2", duration: 60)) == nil)
        // Another worker cannot complete it.
        #expect(try await store.complete(id: receipt.id, holder: "w2", work: work(receipt), now: Date()) == nil)
        let (done, expense) = try #require(try await store.complete(id: receipt.id, holder: "w1", work: work(receipt), now: Date()))
        #expect(done.ocrStatus == .completed)
        #expect(done.expenseId == expense.id)
        #expect(done.ocrText == "Shell 23.45")
        #expect(done.analysis?.total == Decimal(string: "23.45"))
        // What was stored reads back the same (times to the millisecond the stores keep).
        var stored = try #require(try await store.expense(receiptId: receipt.id, in: .everyone))
        #expect(abs(stored.lastModified.timeIntervalSince(expense.lastModified)) < 0.001)
        stored.lastModified = expense.lastModified
        #expect(stored == expense)
        #expect(try await store.expenses(ExpenseQuery(), in: .everyone).count == 1)
        #expect(try await store.claimNext(Lease(holder: "w1", duration: 60)) == nil)
        await #expect(throws: ReceiptError.self) { try await store.requeue(id: receipt.id, in: .everyone, now: Date()) }
        #expect(try await store.statusCounts(in: .everyone) == [.completed: 1])
    }

    @Test(arguments: StoreKind.available)
    func transientFailuresWaitForTheirTimePermanentOnesFail(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        let receipt = try await pending(store)
        let now = Date()
        _ = try #require(try await store.claimNext(Lease(holder: "w", now: now, duration: 60)))
        let retried = try #require(try await store.fail(id: receipt.id, holder: "w", error: "r.jpg: timed out",
                                                       retryAt: now.addingTimeInterval(30), now: now))
        #expect(retried.ocrStatus == .pending)
        #expect(retried.lastError == "r.jpg: timed out")
        let due = try #require(try await store.nextDueDate())
        #expect(abs(due.timeIntervalSince(now.addingTimeInterval(30))) < 0.01)
        #expect(try await store.claimNext(Lease(holder: "w", now: now.addingTimeInterval(10), duration: 60)) == nil)
        if case let .notDue(_, until) = try await store.claim(id: receipt.id, Lease(holder: "w", now: now.addingTimeInterval(10), duration: 60)) {
            #expect(abs(until.timeIntervalSince(now.addingTimeInterval(30))) < 0.01)
        } else {
            Issue.record("a receipt waiting for its retry time is not due")
        }
        let again = try #require(try await store.claimNext(Lease(holder: "w", now: now.addingTimeInterval(31), duration: 60)))
        #expect(again.receipt.attempts == 2)
        let failed = try #require(try await store.fail(id: receipt.id, holder: "w", error: "r.jpg: truncated JPEG",
                                                      retryAt: nil, now: now.addingTimeInterval(31)))
        #expect(failed.ocrStatus == .failed)
        #expect(try await store.expense(receiptId: receipt.id, in: .everyone) == nil)
        let requeued = try await store.requeue(id: receipt.id, in: .everyone, now: Date())
        #expect(requeued.ocrStatus == .pending)
        #expect(requeued.attempts == 0)
        _ = try #require(try await store.claimNext(Lease(holder: "w", duration: 60)))
        _ = try await store.fail(id: receipt.id, holder: "w", error: "again", retryAt: nil, now: Date())
        #expect(try await store.requeueFailed(in: .everyone, now: Date()).map(\.id) == [receipt.id])
    }

    @Test(arguments: StoreKind.available)
    func workersOnSeveralConnectionsNeverClaimTheSameReceipt(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        var stores: [any ServerStore] = [test.store]
        for _ in 0..<2 { stores.append(try await test.reopen()) }
        let count = 300
        for i in 0..<count { _ = try await pending(test.store, "r\(i).jpg") }
        let claimed = try await withThrowingTaskGroup(of: [UUID].self) { group in
            for worker in 0..<12 {
                let store = stores[worker % stores.count]
                group.addTask {
                    var mine: [UUID] = []
                    while let job = try await store.claimNext(Lease(holder: "w\(worker)", duration: 60)) { mine.append(job.receipt.id) }
                    return mine
                }
            }
            var all: [[UUID]] = []
            for try await list in group { all.append(list) }
            return all
        }
        let ids = claimed.flatMap { $0 }
        #expect(ids.count == count)
        #expect(Set(ids).count == count)
        #expect(claimed.filter { !$0.isEmpty }.count > 1)
        #expect(try await test.store.statusCounts(in: .everyone) == [.processing: count])
    }

    @Test(arguments: StoreKind.available)
    func expiredLeasesAreReclaimedAndTheOldOwnerCannotFinish(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        let receipt = try await pending(store)
        let t0 = Date()
        _ = try #require(try await store.claimNext(Lease(holder: "host:1:a/0", now: t0, duration: 10)))
        #expect(try await store.renew(id: receipt.id, Lease(holder: "host:1:a/0", now: t0, duration: 10)))
        #expect(try await store.reclaim(now: t0.addingTimeInterval(5), maxAttempts: 3, isAbandoned: { _ in false }).isEmpty)
        let back = try await store.reclaim(now: t0.addingTimeInterval(11), maxAttempts: 3, isAbandoned: { _ in false })
        #expect(back.map(\.id) == [receipt.id])
        #expect(back.first?.ocrStatus == .pending)
        #expect(!(try await store.renew(id: receipt.id, Lease(holder: "host:1:a/0", duration: 10))))
        let again = try #require(try await store.claimNext(Lease(holder: "host:2:b/0", now: t0.addingTimeInterval(12), duration: 10)))
        #expect(again.receipt.attempts == 2)
        #expect(try await store.fail(id: receipt.id, holder: "host:1:a/0", error: "x", retryAt: nil, now: Date()) == nil)
        #expect(try await store.receipt(id: receipt.id, in: .everyone)?.ocrStatus == .processing)
        // An abandoned owner's receipt comes back before its lease expires.
        let early = try await store.reclaim(now: t0.addingTimeInterval(13), maxAttempts: 3, isAbandoned: { $0 == "host:2:b/0" })
        #expect(early.map(\.id) == [receipt.id])
    }

    @Test(arguments: StoreKind.available)
    func aReceiptInterruptedTooOftenFailsNamingItsFile(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        let receipt = try await pending(store, "crashy.jpg")
        var t = Date()
        for _ in 0..<2 {
            _ = try #require(try await store.claimNext(Lease(holder: "gone", now: t, duration: 1)))
            t = t.addingTimeInterval(2)
            _ = try await store.reclaim(now: t, maxAttempts: 2, isAbandoned: { _ in true })
        }
        let failed = try #require(try await store.receipt(id: receipt.id, in: .everyone))
        #expect(failed.ocrStatus == .failed)
        #expect(failed.lastError?.hasPrefix("crashy.jpg: processing was interrupted 2 times") == true)
    }

    @Test(arguments: StoreKind.available)
    func theSameBytesAreOneReceiptUnlessForcedEvenWhenSubmittedAtOnce(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        let other = try await test.reopen()
        // Ten submissions of the same bytes at once, over two connections: one receipt.
        let results = try await withThrowingTaskGroup(of: (Receipt, Bool).self) { group in
            for i in 0..<10 {
                let store = i % 2 == 0 ? test.store : other
                group.addTask { try await store.insert(Receipt(filePath: "copy\(i).jpg", contentHash: "same-bytes"), imagePath: nil, deduplicate: true) }
            }
            var all: [(Receipt, Bool)] = []
            for try await r in group { all.append(r) }
            return all
        }
        #expect(results.filter(\.1).count == 1)
        #expect(Set(results.map(\.0.id)).count == 1)
        let forced = try await test.store.insert(Receipt(filePath: "again.jpg", contentHash: "same-bytes"), imagePath: nil, deduplicate: false)
        #expect(forced.isNew)
        #expect(forced.receipt.id != results[0].0.id)
        #expect(try await test.store.receipt(contentHash: "same-bytes", in: .everyone)?.id == results[0].0.id)
        #expect(try await test.store.receipts(ReceiptQuery(), in: .everyone).count == 2)
        let prefix = String(forced.receipt.id.uuidString.lowercased().prefix(8))
        #expect(try await test.store.receipt(idPrefix: prefix, in: .everyone).id == forced.receipt.id)
        await #expect(throws: ReceiptError.self) { try await test.store.receipt(idPrefix: "zz", in: .everyone) }
    }

    @Test(arguments: StoreKind.available)
    func moneyAndDatesRoundTripExactly(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        let amounts = ["23.45", "0.1", "0.30", "1234567.89", "0.005", "99999999999999.99", "-1.73", "100"]
        let dates = ["2024-02-29", "2023-12-31", "2024-01-01", "1999-06-30"]
        for (i, text) in amounts.enumerated() {
            let receipt = try await pending(store, "\(i).jpg")
            _ = try #require(try await store.claim(id: receipt.id, Lease(holder: "w", duration: 60)) as ClaimAttempt?)
            let value = try #require(Decimal(string: text))
            let analysis = ReceiptAnalysis(vendor: "V\(i)", date: CalendarDate(iso: dates[i % dates.count]), total: value, tax: value,
                                           currency: "GBP", analyzer: "t")
            var expense = Expense.draft(from: analysis, receiptId: receipt.id, taxonomy: .default)
            expense.taxDeductiblePercentage = Decimal(string: "12.5")!
            _ = try #require(try await store.complete(id: receipt.id, holder: "w",
                                                      work: CompletedWork(analysis: analysis, ocrText: "", expense: expense), now: Date()))
            let back = try #require(try await store.expense(receiptId: receipt.id, in: .everyone))
            #expect(back.amount?.plainString == value.plainString)
            #expect(back.taxAmount == value)
            #expect(back.date?.description == dates[i % dates.count])
            #expect(back.taxDeductiblePercentage == Decimal(string: "12.5"))
            #expect(try await store.receipt(id: receipt.id, in: .everyone)?.analysis?.total == value)
        }
        let inRange = try await store.expenses(ExpenseQuery(from: CalendarDate(iso: "2023-12-31"), to: CalendarDate(iso: "2024-01-01")), in: .everyone)
        #expect(inRange.map { $0.date?.description } == ["2023-12-31", "2023-12-31", "2024-01-01", "2024-01-01"])
        #expect(try await store.expenses(ExpenseQuery(category: "other", limit: 3), in: .everyone).count == 3)
    }

    @Test(arguments: StoreKind.available)
    func aSecondExpenseForTheSamePurchaseIsFlaggedAsAPossibleDuplicate(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        var expenses: [Expense] = []
        for name in ["a.jpg", "b.jpg"] {
            let receipt = try await pending(store, name)
            _ = try #require(try await store.claimNext(Lease(holder: "w", duration: 60)))
            var done = work(receipt, vendor: name == "a.jpg" ? "Shell" : " shell ")
            done.expense.description = name == "a.jpg" ? "Shell" : " shell "
            expenses.append(try #require(try await store.complete(id: receipt.id, holder: "w", work: done, now: Date())).1)
        }
        #expect(expenses[0].possibleDuplicateOf == nil)
        #expect(expenses[1].possibleDuplicateOf == expenses[0].id)
    }

    /// A token's scopes, expiry, own rate limit and last use, as both stores keep them.
    @Test(arguments: StoreKind.available)
    func tokensKeepTheirScopesExpiryRateLimitAndLastUse(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        let now = Date(timeIntervalSince1970: TimeInterval(Int(Date().timeIntervalSince1970)))
        let expires = now.addingTimeInterval(90 * 86400)
        let scanner = try await store.createToken(name: "scanner", user: "admin", scopes: [.upload], expiresAt: expires,
                                                  rateLimit: RateLimit(requests: 120, seconds: 60), now: now)
        let full = try await store.createToken(name: "full", now: now)
        let late = try await store.createToken(name: "late", user: "admin", scopes: [.read, .review], expiresAt: now.addingTimeInterval(-1),
                                               rateLimit: .unlimited, now: now.addingTimeInterval(-60))
        let found = try #require(try await store.token(secret: scanner))
        #expect(found.name == "scanner" && found.scopes == [.upload] && found.expiresAt == expires && found.lastUsedAt == nil)
        #expect(found.rateLimit == RateLimit(requests: 120, seconds: 60))
        let admin = try #require(try await store.token(secret: full))
        #expect(admin.scopes == [.admin] && admin.expiresAt == nil && admin.rateLimit == nil)
        // An expired token is found (to be refused as expired), but is not active; it still closes the server.
        let expired = try #require(try await store.token(secret: late))
        #expect(expired.isExpired(at: now) && expired.scopes == [.read, .review] && expired.rateLimit == .unlimited)
        #expect(try await store.activeToken(secret: late, now: now) == nil)
        #expect(try await store.token(secret: "rcp_unknown") == nil)
        _ = try await store.revokeToken(name: "scanner", now: now)
        _ = try await store.revokeToken(name: "full", now: now)
        #expect(try await store.hasActiveTokens(), "an expired token still counts")
        #expect(try await store.token(secret: scanner) == nil, "a revoked token is not found")
        // Use is noted, never moved back.
        try await store.recordTokenUse(name: "late", at: now.addingTimeInterval(120))
        try await store.recordTokenUse(name: "late", at: now.addingTimeInterval(60))
        let listed = try await store.tokens().first { $0.name == "late" }
        #expect(listed?.lastUsedAt == now.addingTimeInterval(120))
        #expect(try await store.tokens().first { $0.name == "scanner" }?.revokedAt == now)
    }

    @Test(arguments: StoreKind.available)
    func tokensIdempotencyKeysCorrectionsAndDeletion(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        let store = test.store
        #expect(try await !store.hasActiveTokens())
        let secret = try await store.createToken(name: "app", now: Date())
        #expect(secret.hasPrefix("rcp_"))
        await #expect(throws: ReceiptError.self) { try await store.createToken(name: "app", now: Date()) }
        #expect(try await store.activeToken(secret: secret) == "app")
        #expect(try await store.hasActiveTokens())
        #expect(try await store.revokeToken(name: "app", now: Date()).revokedAt != nil)
        #expect(try await store.activeToken(secret: secret) == nil)
        #expect(try await store.tokens().map(\.name) == ["app"])
        // A revoked token's name can be used again; an active one's cannot.
        let renewed = try await store.createToken(name: "app", now: Date())
        #expect(try await store.activeToken(secret: renewed) == "app")
        #expect(try await store.activeToken(secret: secret) == nil)
        await #expect(throws: ReceiptError.self) { try await store.createToken(name: "app", now: Date()) }
        #expect(try await store.tokens().map(\.name) == ["app"])

        let admin = Principal(user: "admin")
        let data = Data("image bytes \(UUID())".utf8)
        let hash = ContentHash.hex(of: data)
        let reference = try await test.images.store(data, hash: hash)
        #expect(try await test.images.load(reference) == data)
        let receipt = try await store.insert(Receipt(filePath: "r.jpg", contentHash: hash), imagePath: reference, deduplicate: true).receipt
        #expect(try await store.imagePath(ofReceipt: receipt.id, in: .everyone) == reference)
        // An idempotency key is claimed once, then says which request (fingerprint) and receipt it stands for.
        #expect(try await store.claimIdempotencyKey("k1", of: admin, fingerprint: hash, now: Date()) == .claimed)
        #expect(try await store.claimIdempotencyKey("k1", of: admin, fingerprint: "other", now: Date()) == .taken(fingerprint: hash, receiptId: nil))
        try await store.bindIdempotencyKey("k1", of: admin, receiptId: receipt.id)
        #expect(try await store.claimIdempotencyKey("k1", of: admin, fingerprint: hash, now: Date())
                == .taken(fingerprint: hash, receiptId: receipt.id))
        #expect(try await store.claimIdempotencyKey("k2", of: admin, fingerprint: hash, now: Date()) == .claimed)
        try await store.releaseIdempotencyKey("k2", of: admin, fingerprint: hash)
        #expect(try await store.claimIdempotencyKey("k2", of: admin, fingerprint: "other", now: Date()) == .claimed, "a released key is free")

        _ = try #require(try await store.claimNext(Lease(holder: "w", duration: 60)))
        var expense = try #require(try await store.complete(id: receipt.id, holder: "w", work: work(receipt), now: Date())).1
        let drafted = try #require(try await store.expense(id: expense.id, in: .everyone))
        expense.amount = Decimal(string: "24.00")
        expense.status = .confirmed
        let corrections = try await store.correct(expense, changed: [("amount", .string("23.45"))], by: ChangeAuthor(user: "admin"),
                                                  in: .everyone, now: Date(),
                                                  expectedVersion: drafted.etag)
        #expect(corrections == .object([("amount", .string("23.45"))]))
        #expect(try await store.corrections(ofExpense: expense.id, in: .everyone) == corrections)
        #expect(try await store.expense(id: expense.id, in: .everyone)?.amount == Decimal(string: "24.00"))
        #expect(try await store.expense(id: expense.id, in: .everyone)?.status == .confirmed)
        // A correction made from a version that is no longer stored is refused (two reviewers).
        await #expect(throws: ReceiptError.self) {
            try await store.correct(drafted, changed: [], by: ChangeAuthor(user: "admin"), in: .everyone, now: Date(), expectedVersion: drafted.etag)
        }
        #expect(try await store.expense(id: expense.id, in: .everyone)?.amount == Decimal(string: "24.00"))

        // A confirmed expense is a person's record: deleting its receipt needs force.
        await #expect(throws: ReceiptError.self) { try await store.deleteReceipt(id: receipt.id, in: .everyone, force: false) }
        #expect(try await store.receipt(id: receipt.id, in: .everyone) != nil)
        _ = try await store.deleteReceipt(id: receipt.id, in: .everyone, force: true)
        #expect(try await store.receipt(id: receipt.id, in: .everyone) == nil)
        #expect(try await store.expense(id: expense.id, in: .everyone) == nil)
        #expect(try await store.claimIdempotencyKey("k1", of: admin, fingerprint: "new", now: Date()) == .claimed, "the key went with its receipt")
        await #expect(throws: ReceiptError.self) { try await store.deleteReceipt(id: receipt.id, in: .everyone, force: true) }
    }

    @Test(arguments: StoreKind.available)
    func aPipelineOnTheStoreProcessesSubmittedReceipts(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        let pipeline = ReceiptPipeline(store: test.store, images: test.images, processor: ScriptedProcessor(),
                                       configuration: .init(workers: 2, leaseDuration: 5 * testTimeScale, pollInterval: 0.05), logger: TestSupport.logger)
        let images = (0..<6).map { ScriptedProcessor.image(total: "1\($0).00", id: "\($0)") }
        var outcomes: [ReceiptOutcome] = []
        for try await outcome in pipeline.process(images.enumerated().map { .data($1, filename: "r\($0).jpg") }, as: .admin) {
            outcomes.append(outcome)
        }
        #expect(outcomes.count == 6)
        #expect(outcomes.allSatisfy { $0.receipt.ocrStatus == .completed })
        #expect(Set(outcomes.compactMap { $0.expense?.amount }) == Set((0..<6).map { Decimal(string: "1\($0).00")! }))
    }
}
