import Foundation
import Testing
@testable import ReceiptKit
import ReceiptPostgres
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// Receipts that belong to someone, in both stores (SQLite always, PostgreSQL when installed):
/// the same bytes from two users are two receipts, nothing of one user is seen or changed in
/// another's scope (checked by id, read by read), group members see their groups' receipts, a
/// backend's end users see only their own; who corrected and confirmed is kept; users, groups,
/// idempotency keys and users' webhooks each keep to their owner.
@Suite struct OwnershipStoreTests {
    /// A store with users alice, bob and carol, a service user `svc` (a backend) and an
    /// administrator `root` beside `admin`; the group `home` has alice as its editor.
    private func people(_ kind: StoreKind) async throws -> TestStore {
        let test = try await TestStore.make(kind)
        for name in ["alice", "bob", "carol", "svc"] {
            _ = try await test.store.addUser(name: name, isAdmin: false, defaultGroup: nil, now: Date())
        }
        _ = try await test.store.addUser(name: "root", isAdmin: true, defaultGroup: nil, now: Date())
        _ = try await test.store.addGroup(name: "home", members: ["alice": .editor], now: Date())
        return test
    }

    private func insert(_ store: any ReceiptStore, _ ownership: Ownership, hash: String = UUID().uuidString, image: String? = nil,
                        status: OCRStatus = .pending, deduplicate: Bool = true) async throws -> (receipt: Receipt, isNew: Bool) {
        try await store.insert(Receipt(filePath: "\(ownership.owner).jpg", contentHash: hash, ocrStatus: status, ownership: ownership),
                               imagePath: image, deduplicate: deduplicate)
    }

    /// Claims and completes `receipt` (vendor Shell, 2024-03-01, 23.45 unless told); its expense.
    private func complete(_ store: any ReceiptStore, _ receipt: Receipt, vendor: String = "Shell",
                          total: String = "23.45") async throws -> Expense {
        guard case .claimed = try await store.claim(id: receipt.id, Lease(holder: "w", duration: 60)) else {
            throw ReceiptError(.invalidState, "\(receipt.id) could not be claimed")
        }
        let analysis = ReceiptAnalysis(vendor: vendor, date: CalendarDate(iso: "2024-03-01"), total: Decimal(string: total),
                                       category: "Fuel", analyzer: "t")
        var expense = Expense.draft(from: analysis, receiptId: receipt.id, taxonomy: .default)
        expense.description = vendor
        let work = CompletedWork(analysis: analysis, ocrText: "\(vendor) \(total)", expense: expense)
        guard let (_, done) = try await store.complete(id: receipt.id, holder: "w", work: work, now: Date()) else {
            throw ReceiptError(.invalidState, "\(receipt.id) could not be completed")
        }
        return done
    }

    /// The `ReceiptError` `body` throws (nil when it throws none, or another error).
    private func failure(_ body: () async throws -> Void) async -> ReceiptError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? ReceiptError
        }
    }

    // MARK: Deduplication per owner

    @Test(arguments: StoreKind.available)
    func theSameBytesFromTwoUsersAreTwoReceiptsAndOneWithinAnOwner(kind: StoreKind) async throws {
        let test = try await people(kind)
        let store = test.store
        let other = try await test.reopen()
        // Alice and Bob upload the same bytes at once, three times each, over two connections.
        let results = try await withThrowingTaskGroup(of: (String, Receipt, Bool).self) { group in
            for i in 0..<6 {
                let owner = i % 2 == 0 ? "alice" : "bob"
                let connection = i % 3 == 0 ? store : other
                group.addTask {
                    let (receipt, isNew) = try await insert(connection, Ownership(owner: owner), hash: "same-bytes")
                    return (owner, receipt, isNew)
                }
            }
            var all: [(String, Receipt, Bool)] = []
            for try await result in group { all.append(result) }
            return all
        }
        let alices = Set(results.filter { $0.0 == "alice" }.map(\.1.id)), bobs = Set(results.filter { $0.0 == "bob" }.map(\.1.id))
        #expect(alices.count == 1 && bobs.count == 1, "within one owner the same bytes are one receipt")
        #expect(alices != bobs, "the same bytes from two users are two receipts")
        #expect(results.filter(\.2).count == 2, "one new receipt per owner")
        #expect(results.allSatisfy { $0.1.ownership.owner == $0.0 }, "each is answered with a receipt of their own")
        let alice = try #require(alices.first), bob = try #require(bobs.first)

        // A backend's end users are apart too, and apart from the service's own uploads.
        let u1 = try await insert(store, Ownership(owner: "svc", externalUser: "u-1"), hash: "same-bytes")
        let u2 = try await insert(store, Ownership(owner: "svc", externalUser: "u-2"), hash: "same-bytes")
        let own = try await insert(store, Ownership(owner: "svc"), hash: "same-bytes")
        #expect(u1.isNew && u2.isNew && own.isNew)
        #expect(Set([u1.receipt.id, u2.receipt.id, own.receipt.id, alice, bob]).count == 5)
        let u1Again = try await insert(store, Ownership(owner: "svc", externalUser: "u-1"), hash: "same-bytes")
        #expect(!u1Again.isNew && u1Again.receipt.id == u1.receipt.id)
        // Forced: another receipt of the same owner, beside the first.
        let forced = try await insert(store, Ownership(owner: "alice"), hash: "same-bytes", deduplicate: false)
        #expect(forced.isNew && forced.receipt.id != alice)

        #expect(try await store.receipt(contentHash: "same-bytes", in: .user("bob"))?.id == bob)
        #expect(try await store.receipt(contentHash: "same-bytes", in: .user("alice"))?.id == alice, "the oldest of alice's")
        #expect(try await store.receipt(contentHash: "same-bytes", in: .externalUser("u-2", of: "svc"))?.id == u2.receipt.id)
        #expect(try await store.receipts(ReceiptQuery(), in: .everyone).count == 6)
    }

    @Test(arguments: StoreKind.available)
    func aReceiptKeepsItsOwnershipAndNeedsAnOwnerAndAGroupThatExist(kind: StoreKind) async throws {
        let store = try await people(kind).store
        let metadata = try JSONValue.parse(#"{"order":"A-1","lines":[1,2],"note":"é ü"}"#)
        let stored = try await insert(store, Ownership(owner: "svc", group: "home", externalUser: "u-42", metadata: metadata)).receipt
        let back = try #require(try await store.receipt(id: stored.id, in: .everyone))
        #expect(back.ownership == Ownership(owner: "svc", group: "home", externalUser: "u-42", metadata: metadata))
        #expect(back.ownership.metadata?.serialized() == metadata.serialized(), "metadata comes back verbatim")

        let unknownUser = await failure { _ = try await insert(store, Ownership(owner: "mallory")) }
        #expect(unknownUser?.code == .notFound && unknownUser?.message.contains("mallory") == true)
        let unknownGroup = await failure { _ = try await insert(store, Ownership(owner: "alice", group: "office")) }
        #expect(unknownGroup?.code == .notFound && unknownGroup?.message.contains("office") == true)
        #expect(try await store.receipts(ReceiptQuery(), in: .everyone).map(\.id) == [stored.id], "nothing stored for either")
    }

    // MARK: Lists as queries

    /// A list is a page the store reads (issue 47): pages joined by their cursors are the whole
    /// listing, the same as what each scope may see of everyone's, in its order; `needsReview`,
    /// `owner` and an end user filter in the store; a cursor not in the listing is not found;
    /// totals and counts are those of the expenses listed, and follow a receipt to its new owner.
    @Test(arguments: StoreKind.available)
    func listsArePagesOfTheStoreWithCursorsFiltersTotalsAndCounts(kind: StoreKind) async throws {
        let test = try await people(kind)
        let store = test.store
        _ = try await test.store.addGroup(name: "flat", members: ["alice": .editor, "carol": .viewer], now: Date())
        let owners = [Ownership(owner: "alice"), Ownership(owner: "alice", group: "home"), Ownership(owner: "carol", group: "flat"),
                      Ownership(owner: "bob"), Ownership(owner: "carol"), Ownership(owner: "svc", externalUser: "u-1"),
                      Ownership(owner: "svc", externalUser: "u-2"), Ownership(owner: "alice", group: "flat")]
        var flagged: Set<UUID> = []
        for i in 0..<24 {
            let receipt = try await insert(store, owners[i % owners.count]).receipt
            guard i % 3 != 2 else { continue }  // a third stay pending
            guard case .claimed = try await store.claim(id: receipt.id, Lease(holder: "w", duration: 60)) else { continue }
            let date = i % 5 == 0 ? nil : CalendarDate(iso: "2024-0\(1 + i % 4)-1\(i % 10)")
            let analysis = ReceiptAnalysis(vendor: "Shop \(i)", date: date, total: Decimal(i) + Decimal(string: "0.25")!,
                                           currency: i % 4 == 0 ? "USD" : "EUR", category: i % 2 == 0 ? "Fuel" : "Groceries", analyzer: "t")
            var expense = Expense.draft(from: analysis, receiptId: receipt.id, taxonomy: .default)
            expense.needsReview = i % 4 == 1
            if expense.needsReview { flagged.insert(receipt.id) }
            _ = try await store.complete(id: receipt.id, holder: "w", work: CompletedWork(analysis: analysis, ocrText: "", expense: expense), now: Date())
        }
        let everyone = try await store.receipts(ReceiptQuery(), in: .everyone)
        let everyExpense = try await store.expenses(ExpenseQuery(), in: .everyone)
        #expect(everyone.count == 24 && everyExpense.count == 16)

        /// Every page of `limit` after the one before, joined.
        func pages(_ query: ReceiptQuery, _ scope: Scope, limit: Int = 2) async throws -> [UUID] {
            var all: [UUID] = [], query = query
            query.limit = limit
            while true {
                let page = try await store.receipts(query, in: scope)
                all += page.map(\.id)
                guard page.count == limit, let last = page.last else { return all }
                query.after = last.id
            }
        }
        func expensePages(_ query: ExpenseQuery, _ scope: Scope, limit: Int = 3) async throws -> [UUID] {
            var all: [UUID] = [], query = query
            query.limit = limit
            while true {
                let page = try await store.expenses(query, in: scope)
                all += page.map(\.id)
                guard page.count == limit, let last = page.last else { return all }
                query.after = last.id
            }
        }
        let scopes: [(Scope, Set<String>)] = [(.user("alice"), ["home", "flat"]), (.user("carol"), ["flat"]), (.user("bob"), []),
                                               (.owner("alice"), []), (.externalUser("u-1", of: "svc"), []), (.everyone, [])]
        for (scope, groups) in scopes {
            let seen = everyone.filter { scope.contains($0.ownership, groupsOfUser: groups) }
            #expect(try await pages(ReceiptQuery(), scope) == seen.map(\.id), "\(scope)")
            #expect(try await pages(ReceiptQuery(needsReview: true), scope) == seen.filter { flagged.contains($0.id) }.map(\.id), "\(scope)")
            #expect(try await pages(ReceiptQuery(needsReview: false), scope) == seen.filter { !flagged.contains($0.id) }.map(\.id), "\(scope)")
            #expect(try await pages(ReceiptQuery(status: .pending), scope) == seen.filter { $0.ocrStatus == .pending }.map(\.id), "\(scope)")
            #expect(try await pages(ReceiptQuery(owner: "carol"), scope) == seen.filter { $0.ownership.owner == "carol" }.map(\.id), "\(scope)")
            let seenIds = Set(seen.map(\.id))
            let expenses = everyExpense.filter { seenIds.contains($0.receiptId) }
            #expect(try await expensePages(ExpenseQuery(), scope) == expenses.map(\.id), "\(scope)")
            #expect(try await expensePages(ExpenseQuery(needsReview: true), scope) == expenses.filter(\.needsReview).map(\.id), "\(scope)")
            #expect(try await expensePages(ExpenseQuery(from: CalendarDate(iso: "2024-02-01"), to: CalendarDate(iso: "2024-03-31")), scope)
                    == expenses.filter { $0.date.map { $0 >= CalendarDate(iso: "2024-02-01")! && $0 <= CalendarDate(iso: "2024-03-31")! } ?? false }
                        .map(\.id), "\(scope)")
            // Totals: what the expenses listed add up to, per currency.
            let totals = try await store.expenseTotals(ExpenseQuery(), in: scope)
            var sums: [String: Decimal] = [:], summed: [String: Decimal] = [:]
            for e in expenses { sums[e.currency ?? "", default: 0] += e.amount ?? 0 }
            for row in totals.rows { summed[row.currency ?? "", default: 0] += row.total }
            #expect(summed == sums.filter { $0.value != 0 }, "\(scope)")
            #expect(totals.rows.reduce(0) { $0 + $1.count } == expenses.count, "\(scope)")
            let counts = try await store.inboxCounts(ReceiptQuery(), in: scope, cap: 1000)
            #expect(counts.review == seen.filter { flagged.contains($0.id) }.count, "\(scope)")
            #expect(counts.reading == seen.filter { $0.ocrStatus == .pending }.count, "\(scope)")
            #expect(counts.done == expenses.filter { !$0.needsReview }.count, "\(scope)")
            #expect(try await store.inboxCounts(ReceiptQuery(), in: scope, cap: 2).reading == min(2, counts.reading), "counted up to the cap")
        }

        // The export's pages, joined, are the export read at once.
        let whole = try await store.expenseListings(ExpenseQuery(), in: .user("alice")).map(ExpenseExport.record)
        var joined: [JSONValue] = []
        for try await page in ExpenseExport.pages(ExpenseQuery(), from: store.scoped(to: Principal(user: "alice")), batch: 3, first: 1) { joined += page }
        #expect(joined == whole && whole.count > 4)

        // A cursor that is not in the listing: not found, never another page.
        let bobs = try #require(everyone.first { $0.ownership.owner == "bob" })
        let notInIt = await failure { _ = try await store.receipts(ReceiptQuery(after: bobs.id, limit: 2), in: .user("alice")) }
        #expect(notInIt?.code == .notFound)
        let gone = await failure { _ = try await store.expenses(ExpenseQuery(after: UUID(), limit: 2), in: .everyone) }
        #expect(gone?.code == .notFound)

        // Bob's receipts go to alice: her lists and totals have them at once.
        let before = try await store.expenseTotals(ExpenseQuery(), in: .owner("alice")).rows.reduce(0) { $0 + $1.count }
        let bobsExpenses = everyExpense.filter { e in everyone.contains { $0.id == e.receiptId && $0.ownership.owner == "bob" } }
        _ = try await store.removeUser(name: "bob", reassignTo: "alice")
        #expect(try await pages(ReceiptQuery(), .owner("alice")).contains(bobs.id))
        #expect(try await store.expenseTotals(ExpenseQuery(), in: .owner("alice")).rows.reduce(0) { $0 + $1.count } == before + bobsExpenses.count)
        #expect(Set(try await expensePages(ExpenseQuery(), .owner("alice"))).isSuperset(of: bobsExpenses.map(\.id)))
    }

    // MARK: Reads

    @Test(arguments: StoreKind.available)
    func nothingOfAlicesIsSeenByBobAndCarolSeesItOnceInItsGroup(kind: StoreKind) async throws {
        let store = try await people(kind).store
        let theirs = try await insert(store, Ownership(owner: "alice", group: "home"), hash: "alice-bytes", image: "images/alice").receipt
        var expense = try await complete(store, theirs)
        expense.amount = Decimal(string: "24.00")
        _ = try await store.correct(expense, changed: [("amount", .string("23.45"))], by: ChangeAuthor(user: "alice"), in: .user("alice"),
                                    now: Date(), expectedVersion: nil)
        let bobs = try await insert(store, Ownership(owner: "bob"), hash: "bob-bytes", image: "images/bob").receipt
        let bobsExpense = try await complete(store, bobs, vendor: "Tesco")
        let prefix = String(theirs.id.uuidString.lowercased().prefix(8))

        /// What `scope` sees of alice's receipt, read by read.
        func sees(_ scope: Scope) async throws -> [String] {
            var seen: [String] = []
            if try await store.receipt(id: theirs.id, in: scope) != nil { seen.append("receipt") }
            if try await store.receipts(ReceiptQuery(), in: scope).contains(where: { $0.id == theirs.id }) { seen.append("list") }
            if try await store.expense(id: expense.id, in: scope) != nil { seen.append("expense") }
            if try await store.expense(receiptId: theirs.id, in: scope) != nil { seen.append("expense of receipt") }
            if try await store.expenses(ExpenseQuery(), in: scope).contains(where: { $0.id == expense.id }) { seen.append("expenses") }
            if try await store.corrections(ofExpense: expense.id, in: scope) != .object([]) { seen.append("corrections") }
            if try await !store.history(ofExpense: expense.id, in: scope).isEmpty { seen.append("history") }
            if try await store.imagePath(ofReceipt: theirs.id, in: scope) != nil { seen.append("image") }
            if (try? await store.receipt(idPrefix: prefix, in: scope))?.id == theirs.id { seen.append("id prefix") }
            if try await store.receipt(contentHash: "alice-bytes", in: scope)?.id == theirs.id { seen.append("content hash") }
            return seen
        }
        let everything = ["receipt", "list", "expense", "expense of receipt", "expenses", "corrections", "history", "image", "id prefix",
                          "content hash"]
        #expect(try await sees(.user("alice")) == everything)
        #expect(try await sees(.everyone) == everything)
        #expect(try await sees(.user("bob")) == [], "bob sees nothing of alice's")
        #expect(try await sees(.user("carol")) == [], "carol is not in alice's group yet")
        #expect(try await store.statusCounts(in: .user("carol")) == [:])
        #expect(try await store.statusCounts(in: .user("alice")) == [.completed: 1])
        #expect(try await store.statusCounts(in: .everyone) == [.completed: 2])
        // What bob sees is his own, by id.
        #expect(try await store.receipts(ReceiptQuery(), in: .user("bob")).map(\.id) == [bobs.id])
        #expect(try await store.expenses(ExpenseQuery(), in: .user("bob")).map(\.id) == [bobsExpense.id])
        #expect(try await store.statusCounts(in: .user("bob")) == [.completed: 1])
        let prefixError = await failure { _ = try await store.receipt(idPrefix: prefix, in: .user("bob")) }
        #expect(prefixError?.code == .notFound, "someone else's receipt is not found, never forbidden")

        try await store.setMember(group: "home", user: "carol", role: .viewer)
        #expect(try await sees(.user("carol")) == everything, "a group's member sees its receipts")
        #expect(try await store.statusCounts(in: .user("carol")) == [.completed: 1])
        #expect(try await sees(.owner("carol")) == [], "what carol owns is not what she may see")
        try await store.setMember(group: "home", user: "carol", role: nil)
        #expect(try await sees(.user("carol")) == [], "nor once she leaves it")
    }

    @Test(arguments: StoreKind.available)
    func aBackendsEndUserSeesOnlyTheirOwnReceipts(kind: StoreKind) async throws {
        let store = try await people(kind).store
        let u1 = try await insert(store, Ownership(owner: "svc", externalUser: "u-1")).receipt
        let u1Expense = try await complete(store, u1)
        let u2 = try await insert(store, Ownership(owner: "svc", externalUser: "u-2")).receipt
        let u2Expense = try await complete(store, u2)
        let own = try await insert(store, Ownership(owner: "svc")).receipt
        let alices = try await insert(store, Ownership(owner: "alice", externalUser: "u-1")).receipt

        let u1Scope = Scope.externalUser("u-1", of: "svc")
        #expect(try await store.receipts(ReceiptQuery(), in: u1Scope).map(\.id) == [u1.id])
        #expect(try await store.expenses(ExpenseQuery(), in: u1Scope).map(\.id) == [u1Expense.id])
        #expect(try await store.receipt(id: u2.id, in: u1Scope) == nil)
        #expect(try await store.expense(id: u2Expense.id, in: u1Scope) == nil)
        #expect(try await store.receipt(id: alices.id, in: u1Scope) == nil, "another owner's end user of the same name is another person")
        #expect(try await store.statusCounts(in: u1Scope) == [.completed: 1])
        // The service itself sees all it owns, and filters by end user when it asks.
        #expect(Set(try await store.receipts(ReceiptQuery(), in: .user("svc")).map(\.id)) == [u1.id, u2.id, own.id])
        #expect(try await store.receipts(ReceiptQuery(externalUser: "u-2"), in: .user("svc")).map(\.id) == [u2.id])
        #expect(try await store.expenses(ExpenseQuery(externalUser: "u-2"), in: .user("svc")).map(\.id) == [u2Expense.id])
        #expect(try await store.receipts(ReceiptQuery(externalUser: "u-1"), in: .everyone).map(\.id) == [alices.id, u1.id])
    }

    // MARK: Changes

    @Test(arguments: StoreKind.available)
    func changesOutOfScopeAreNotFoundAndChangeNothing(kind: StoreKind) async throws {
        let store = try await people(kind).store
        let failed = try await insert(store, Ownership(owner: "alice"), status: .failed).receipt
        let done = try await insert(store, Ownership(owner: "alice", group: "home")).receipt
        var expense = try await complete(store, done)
        let drafted = try #require(try await store.expense(id: expense.id, in: .everyone))
        expense.amount = Decimal(string: "99.00")

        #expect(await failure { _ = try await store.deleteReceipt(id: done.id, in: .user("bob"), force: true) }?.code == .notFound)
        #expect(await failure { _ = try await store.requeue(id: failed.id, in: .user("bob"), now: Date()) }?.code == .notFound)
        #expect(await failure {
            _ = try await store.correct(expense, changed: [("amount", .string("23.45"))], by: ChangeAuthor(user: "bob"), in: .user("bob"),
                                        now: Date(), expectedVersion: nil)
        }?.code == .notFound)
        #expect(try await store.requeueFailed(in: .user("bob"), now: Date()).isEmpty)
        #expect(await failure { _ = try await store.requeue(id: failed.id, in: .externalUser("alice", of: "svc"), now: Date()) }?.code
                == .notFound)

        #expect(try await store.receipt(id: done.id, in: .everyone) != nil, "not deleted")
        #expect(try await store.receipt(id: failed.id, in: .everyone)?.ocrStatus == .failed, "not requeued")
        #expect(try await store.expense(id: expense.id, in: .everyone) == drafted, "not corrected")
        #expect(try await store.history(ofExpense: expense.id, in: .everyone).isEmpty)

        // In scope, each works: alice's own, and the group's receipt for its member.
        try await store.setMember(group: "home", user: "carol", role: .editor)
        _ = try await store.correct(expense, changed: [("amount", .string("23.45"))], by: ChangeAuthor(user: "carol"), in: .user("carol"),
                                    now: Date(), expectedVersion: nil)
        #expect(try await store.expense(id: expense.id, in: .everyone)?.amount == Decimal(string: "99.00"))
        #expect(try await store.requeueFailed(in: .user("alice"), now: Date()).map(\.id) == [failed.id])
        _ = try await store.deleteReceipt(id: done.id, in: .user("alice"), force: false)
        #expect(try await store.receipt(id: done.id, in: .everyone) == nil)
    }

    @Test(arguments: StoreKind.available)
    func aCorrectionRecordsWhoMadeItAndWhoConfirmed(kind: StoreKind) async throws {
        let store = try await people(kind).store
        try await store.setMember(group: "home", user: "carol", role: .editor)
        let receipt = try await insert(store, Ownership(owner: "alice", group: "home")).receipt
        var expense = try await complete(store, receipt)
        let t0 = Date(timeIntervalSince1970: TimeInterval(Int(Date().timeIntervalSince1970)))

        expense.amount = Decimal(string: "24.00")
        _ = try await store.correct(expense, changed: [("amount", .string("23.45"))], by: ChangeAuthor(user: "carol", token: "carol-phone"),
                                    in: .user("carol"), now: t0, expectedVersion: nil)
        #expect(try await store.expense(id: expense.id, in: .everyone)?.confirmedBy == nil, "corrected, not confirmed")
        expense.status = .confirmed
        _ = try await store.correct(expense, changed: [], by: ChangeAuthor(user: "alice"), in: .user("alice"), now: t0.addingTimeInterval(60),
                                    expectedVersion: nil)
        #expect(try await store.expense(id: expense.id, in: .everyone)?.confirmedBy == "alice")
        expense.description = "Shell Express"
        expense.category = "Travel"
        _ = try await store.correct(expense, changed: [("description", .string("Shell")), ("category", .string("Fuel"))],
                                    by: ChangeAuthor(user: "carol", token: "carol-phone"), in: .user("carol"),
                                    now: t0.addingTimeInterval(120), expectedVersion: nil)
        #expect(try await store.expense(id: expense.id, in: .everyone)?.confirmedBy == "alice", "still confirmed by alice")
        // Saved again with nothing changed: no entry.
        _ = try await store.correct(expense, changed: [], by: ChangeAuthor(user: "carol"), in: .user("carol"),
                                    now: t0.addingTimeInterval(150), expectedVersion: nil)

        let history = try await store.history(ofExpense: expense.id, in: .user("carol"))
        #expect(history == [
            ExpenseChange(at: t0, author: ChangeAuthor(user: "carol", token: "carol-phone"), fields: ["amount"], confirmed: false),
            ExpenseChange(at: t0.addingTimeInterval(60), author: ChangeAuthor(user: "alice"), fields: [], confirmed: true),
            ExpenseChange(at: t0.addingTimeInterval(120), author: ChangeAuthor(user: "carol", token: "carol-phone"),
                          fields: ["description", "category"], confirmed: false),
        ])
        #expect(try await store.corrections(ofExpense: expense.id, in: .user("alice"))
                == .object([("amount", .string("23.45")), ("description", .string("Shell")), ("category", .string("Fuel"))]))

        expense.status = .draft
        _ = try await store.correct(expense, changed: [], by: ChangeAuthor(user: "alice"), in: .user("alice"), now: t0.addingTimeInterval(180),
                                    expectedVersion: nil)
        #expect(try await store.expense(id: expense.id, in: .everyone)?.confirmedBy == nil, "a draft again is confirmed by no one")
        // The history goes with its receipt.
        _ = try await store.deleteReceipt(id: receipt.id, in: .user("alice"), force: false)
        #expect(try await store.history(ofExpense: expense.id, in: .everyone).isEmpty)
    }

    // MARK: Keys and duplicates

    @Test(arguments: StoreKind.available)
    func idempotencyKeysOfTwoUsersNeverMeet(kind: StoreKind) async throws {
        let store = try await people(kind).store
        let owners = [Principal(user: "alice"), Principal(user: "bob"), Principal(user: "svc"), Principal(user: "svc", externalUser: "u-1"),
                      Principal(user: "svc", externalUser: "u-2")]
        for (i, owner) in owners.enumerated() {
            #expect(try await store.claimIdempotencyKey("order-1", of: owner, fingerprint: "f\(i)", now: Date()) == .claimed,
                    "\(owner.user)/\(owner.externalUser ?? "-") has keys of its own")
        }
        let receipt = try await insert(store, Ownership(owner: "alice")).receipt
        try await store.bindIdempotencyKey("order-1", of: owners[0], receiptId: receipt.id)
        #expect(try await store.claimIdempotencyKey("order-1", of: owners[0], fingerprint: "x", now: Date())
                == .taken(fingerprint: "f0", receiptId: receipt.id))
        #expect(try await store.claimIdempotencyKey("order-1", of: owners[1], fingerprint: "x", now: Date())
                == .taken(fingerprint: "f1", receiptId: nil), "bob's key is bob's request, not alice's receipt")
        #expect(try await store.claimIdempotencyKey("order-1", of: owners[3], fingerprint: "x", now: Date())
                == .taken(fingerprint: "f3", receiptId: nil))
        // Releasing bob's key leaves alice's as it is.
        try await store.releaseIdempotencyKey("order-1", of: owners[1], fingerprint: "f1")
        try await store.releaseIdempotencyKey("order-1", of: owners[1], fingerprint: "f0")
        #expect(try await store.claimIdempotencyKey("order-1", of: owners[1], fingerprint: "f9", now: Date()) == .claimed)
        #expect(try await store.claimIdempotencyKey("order-1", of: owners[0], fingerprint: "x", now: Date())
                == .taken(fingerprint: "f0", receiptId: receipt.id))
    }

    @Test(arguments: StoreKind.available)
    func aPossibleDuplicateIsNeverAnotherOwnersExpense(kind: StoreKind) async throws {
        let store = try await people(kind).store
        let alices = try await complete(store, try await insert(store, Ownership(owner: "alice")).receipt)
        let bobs = try await complete(store, try await insert(store, Ownership(owner: "bob")).receipt)
        #expect(alices.possibleDuplicateOf == nil)
        #expect(bobs.possibleDuplicateOf == nil, "the same purchase of another user is not named")
        let bobsAgain = try await complete(store, try await insert(store, Ownership(owner: "bob")).receipt)
        #expect(bobsAgain.possibleDuplicateOf == bobs.id)
        let u1 = try await complete(store, try await insert(store, Ownership(owner: "svc", externalUser: "u-1")).receipt)
        let u2 = try await complete(store, try await insert(store, Ownership(owner: "svc", externalUser: "u-2")).receipt)
        let u2Again = try await complete(store, try await insert(store, Ownership(owner: "svc", externalUser: "u-2")).receipt)
        #expect(u1.possibleDuplicateOf == nil && u2.possibleDuplicateOf == nil)
        #expect(u2Again.possibleDuplicateOf == u2.id)
        #expect(try await store.expense(id: bobsAgain.id, in: .user("bob"))?.possibleDuplicateOf == bobs.id)
    }

    /// Bob and alice both uploaded the same image; bob leaves and alice gets his receipts: the
    /// purchase is hers twice now, so the moved expense names hers as its possible duplicate (as a
    /// completion would), and PostgreSQL's one-first-copy-per-owner index is not in the way. A
    /// purchase alice did not have stays unflagged.
    @Test(arguments: StoreKind.available)
    func reassignedReceiptsThatTheNewOwnerHasAreMarkedAsPossibleDuplicates(kind: StoreKind) async throws {
        let store = try await people(kind).store
        let alices = try await complete(store, try await insert(store, Ownership(owner: "alice"), hash: "same-photo").receipt)
        let bobs = try await complete(store, try await insert(store, Ownership(owner: "bob"), hash: "same-photo").receipt,
                                      vendor: "Shell Forecourt")
        let bobsOwn = try await complete(store, try await insert(store, Ownership(owner: "bob"), hash: "other-photo").receipt,
                                         vendor: "Tesco", total: "5.00")
        let bobsSamePurchase = try await complete(store, try await insert(store, Ownership(owner: "bob"), hash: "third-photo").receipt)
        #expect(bobs.possibleDuplicateOf == nil && bobsOwn.possibleDuplicateOf == nil)
        #expect(try await store.removeUser(name: "bob", reassignTo: "alice") == 3)
        let hers = try await store.expenses(ExpenseQuery(), in: .owner("alice"))
        #expect(hers.count == 4)
        #expect(hers.first { $0.id == bobs.id }?.possibleDuplicateOf == alices.id, "the same bytes")
        #expect(hers.first { $0.id == bobsSamePurchase.id }?.possibleDuplicateOf == alices.id, "the same vendor, date and total")
        #expect(hers.first { $0.id == bobsOwn.id }?.possibleDuplicateOf == nil)
        #expect(hers.first { $0.id == alices.id }?.possibleDuplicateOf == nil)
        // Her bytes are still one receipt to her: uploading them again finds her first copy.
        let again = try await insert(store, Ownership(owner: "alice"), hash: "same-photo")
        #expect(!again.isNew && again.receipt.id == alices.receiptId)
    }

    // MARK: Users and groups

    @Test(arguments: StoreKind.available)
    func usersAreAddedListedAndRemovedWithTheirTokens(kind: StoreKind) async throws {
        let store = try await people(kind).store
        #expect(try await store.users().map(\.name) == ["admin", "alice", "bob", "carol", "root", "svc"])
        #expect(try await store.user(named: "root")?.isAdmin == true)
        #expect(try await store.user(named: "alice")?.isAdmin == false)
        #expect(try await store.user(named: "mallory") == nil)
        #expect(await failure { _ = try await store.addUser(name: "alice", isAdmin: false, defaultGroup: nil, now: Date()) }?.code
                == .invalidState)
        #expect(await failure { _ = try await store.addUser(name: "a/b", isAdmin: false, defaultGroup: nil, now: Date()) }?.code
                == .invalidInput)
        #expect(await failure { _ = try await store.addUser(name: "dave", isAdmin: false, defaultGroup: "office", now: Date()) }?.code
                == .notFound)
        #expect(try await store.user(named: "dave") == nil, "a refused user is not half made")
        let dave = try await store.addUser(name: "dave", isAdmin: false, defaultGroup: "home", now: Date())
        #expect(dave.defaultGroup == "home")
        #expect(try await store.memberships(ofUser: "dave") == ["home": .editor])

        // Tokens belong to a user.
        let secret = try await store.createToken(name: "alice-phone", user: "alice", now: Date())
        #expect(try await store.token(secret: secret)?.user == "alice")
        #expect(await failure { _ = try await store.createToken(name: "x", user: "mallory", now: Date()) }?.code == .notFound)
        #expect(try await store.tokens().map(\.name) == ["alice-phone"])

        // Refused while alice owns receipts; given to bob, they are his.
        let receipt = try await insert(store, Ownership(owner: "alice")).receipt
        #expect(try await store.claimIdempotencyKey("k", of: Principal(user: "alice"), fingerprint: "f", now: Date()) == .claimed)
        try await store.bindIdempotencyKey("k", of: Principal(user: "alice"), receiptId: receipt.id)
        let refused = await failure { _ = try await store.removeUser(name: "alice", reassignTo: nil) }
        #expect(refused?.code == .invalidState && refused?.message.contains("owns 1 receipt") == true)
        #expect(await failure { _ = try await store.removeUser(name: "alice", reassignTo: "mallory") }?.code == .notFound)
        #expect(await failure { _ = try await store.removeUser(name: "alice", reassignTo: "alice") }?.code == .notFound)
        #expect(try await store.user(named: "alice") != nil, "a refused removal removes nothing")
        #expect(try await store.token(secret: secret) != nil)
        #expect(try await store.removeUser(name: "alice", reassignTo: "bob") == 1)
        #expect(try await store.receipt(id: receipt.id, in: .owner("bob")) != nil)
        #expect(try await store.receipt(id: receipt.id, in: .everyone)?.ownership.owner == "bob")
        #expect(try await store.claimIdempotencyKey("k", of: Principal(user: "bob"), fingerprint: "g", now: Date())
                == .taken(fingerprint: "f", receiptId: receipt.id), "her keys went with her receipts")
        #expect(try await store.user(named: "alice") == nil)
        #expect(try await store.token(secret: secret) == nil, "her tokens went with her")
        #expect(try await store.tokens().isEmpty)
        #expect(try await store.groups().first { $0.name == "home" }?.members == ["dave": .editor], "and her memberships")
        #expect(await failure { _ = try await store.removeUser(name: "alice", reassignTo: nil) }?.code == .notFound)

        // A user who owns nothing goes at once; the last administrator never.
        #expect(try await store.removeUser(name: "carol", reassignTo: nil) == 0)
        #expect(try await store.removeUser(name: "root", reassignTo: nil) == 0)
        let last = await failure { _ = try await store.removeUser(name: "admin", reassignTo: nil) }
        #expect(last?.code == .invalidState && last?.message.contains("last administrator") == true)
        #expect(try await store.users().map(\.name) == ["admin", "bob", "dave", "svc"])
    }

    @Test(arguments: StoreKind.available)
    func groupsShareTheirReceiptsUntilRemoved(kind: StoreKind) async throws {
        let store = try await people(kind).store
        #expect(await failure { _ = try await store.addGroup(name: "home", members: [:], now: Date()) }?.code == .invalidState)
        #expect(await failure { _ = try await store.addGroup(name: "office", members: ["bob": .editor, "mallory": .viewer], now: Date()) }?
            .code == .notFound)
        #expect(try await store.groups().map(\.name) == ["home"], "a refused group is not half made")
        _ = try await store.addGroup(name: "office", members: ["bob": .editor, "carol": .viewer], now: Date())
        #expect(try await store.groups().map(\.name) == ["home", "office"])
        #expect(try await store.groups().last?.members == ["bob": .editor, "carol": .viewer])

        try await store.setMember(group: "office", user: "carol", role: .editor)
        try await store.setMember(group: "home", user: "carol", role: .viewer)
        #expect(try await store.memberships(ofUser: "carol") == ["office": .editor, "home": .viewer])
        #expect(await failure { try await store.setMember(group: "garage", user: "carol", role: .viewer) }?.code == .notFound)
        #expect(await failure { try await store.setMember(group: "home", user: "mallory", role: .viewer) }?.code == .notFound)

        let shared = try await insert(store, Ownership(owner: "bob", group: "office")).receipt
        #expect(try await store.receipt(id: shared.id, in: .user("carol")) != nil)
        #expect(try await store.removeGroup(name: "office") == 1)
        #expect(try await store.receipt(id: shared.id, in: .user("carol")) == nil, "no longer shared")
        let kept = try #require(try await store.receipt(id: shared.id, in: .user("bob")))
        #expect(kept.ownership.owner == "bob" && kept.ownership.group == nil, "still bob's")
        #expect(try await store.memberships(ofUser: "carol") == ["home": .viewer])
        #expect(try await store.groups().map(\.name) == ["home"])
        #expect(await failure { _ = try await store.removeGroup(name: "office") }?.code == .notFound)
    }

    // MARK: The access layer: a store seen by one principal

    @Test(arguments: StoreKind.available)
    func aScopedStoreAnswersAndChangesOnlyWhatItsPrincipalMay(kind: StoreKind) async throws {
        let store = try await people(kind).store
        try await store.setMember(group: "home", user: "carol", role: .viewer)
        let shared = try await insert(store, Ownership(owner: "alice", group: "home")).receipt
        let sharedExpense = try await complete(store, shared)
        let bobs = try await insert(store, Ownership(owner: "bob")).receipt
        _ = try await complete(store, bobs)
        let u1 = try await insert(store, Ownership(owner: "svc", externalUser: "u-1")).receipt

        // Each principal is read once from the store, as a request or a command builds it.
        func principal(_ name: String, externalUser: String? = nil) async throws -> Principal {
            try await store.principal(of: try #require(try await store.user(named: name)), externalUser: externalUser)
        }
        let alice = store.scoped(to: try await principal("alice"))
        let carol = store.scoped(to: try await principal("carol"))
        let bob = store.scoped(to: try await principal("bob"))
        let svcForU1 = store.scoped(to: try await principal("svc", externalUser: "u-1"))
        let root = store.scoped(to: try await principal("root"))

        // What each sees: lists, gets, totals alike.
        #expect(Set(try await alice.receipts().map(\.id)) == [shared.id])
        #expect(Set(try await carol.receipts().map(\.id)) == [shared.id], "a viewer of the group sees its receipts")
        #expect(Set(try await bob.receipts().map(\.id)) == [bobs.id])
        #expect(Set(try await svcForU1.receipts().map(\.id)) == [u1.id])
        #expect(Set(try await root.receipts().map(\.id)) == [shared.id, bobs.id, u1.id])
        #expect(try await bob.receipt(id: shared.id) == nil, "not seen is not found")
        #expect(try await bob.expense(id: sharedExpense.id) == nil)
        #expect(try await bob.expenseTotals().rows.map(\.count).reduce(0, +) == 1)

        // What each may change: a viewer sees but may not correct, retry or delete; another user
        // is told the receipt does not exist.
        var corrected = sharedExpense
        corrected.description = "Shell Garage"
        #expect(await failure { _ = try await carol.correct(corrected, changed: [("description", .string("Shell"))], now: Date(),
                                                            expectedVersion: nil) }?.code == .invalidState)
        #expect(await failure { _ = try await carol.deleteReceiptAndPictures(id: shared.id, force: false) }?.code == .invalidState)
        #expect(await failure { _ = try await bob.deleteReceiptAndPictures(id: shared.id, force: false) }?.code == .notFound)
        #expect(try await store.expense(id: sharedExpense.id, in: .everyone)?.description == "Shell", "nothing was written")

        // The owner's change is hers, in the expense's history.
        _ = try await alice.correct(corrected, changed: [("description", .string("Shell"))], now: Date(), expectedVersion: nil)
        #expect(try await carol.expense(id: sharedExpense.id)?.description == "Shell Garage")
        #expect(try await carol.history(ofExpense: sharedExpense.id).map(\.author.user) == ["alice"])
        #expect(try await bob.deleteReceiptAndPictures(id: bobs.id, force: false).isEmpty)
        #expect(try await root.receipt(id: bobs.id) == nil)

        // Retrying every failed receipt: a viewer leaves the group's; its owner retries hers.
        let failed = try await insert(store, Ownership(owner: "alice", group: "home"), status: .failed).receipt
        #expect(try await carol.requeueFailed(now: Date()).isEmpty)
        #expect(try await store.receipt(id: failed.id, in: .everyone)?.ocrStatus == .failed)
        #expect(try await alice.requeueFailed(now: Date()).map(\.id) == [failed.id])
    }

    // MARK: Users' webhooks

    @Test(arguments: StoreKind.available)
    func eachUsersWebhookGetsOnlyTheReceiptsItsUserMaySee(kind: StoreKind) async throws {
        let store = try await people(kind).store
        try await store.setMember(group: "home", user: "carol", role: .viewer)
        try await store.setWebhooksEnabled(true)
        var webhooks: [String: UUID] = [:]
        for (name, user, external) in [("alice", "alice", nil), ("bob", "bob", nil), ("carol", "carol", nil), ("root", "root", nil),
                                       ("svc", "svc", nil), ("svc/u-1", "svc", "u-1")] as [(String, String, String?)] {
            let subscription = WebhookSubscription(user: user, externalUser: external, url: URL(string: "https://hooks.example/\(name)")!,
                                                   secret: "s-\(name)", createdAt: Date())
            try await store.addWebhookSubscription(subscription)
            webhooks[name] = subscription.id
        }
        let mallorys = WebhookSubscription(user: "mallory", externalUser: nil, url: URL(string: "https://x.example")!, secret: "s",
                                           createdAt: Date())
        #expect(await failure { try await store.addWebhookSubscription(mallorys) }?.code == .notFound)
        #expect(Set(try await store.webhookSubscriptions(user: "svc").map(\.id)) == [webhooks["svc"]!, webhooks["svc/u-1"]!])
        #expect(try await store.webhookSubscriptions(user: nil).count == 6)

        let alices = try await insert(store, Ownership(owner: "alice", group: "home")).receipt
        _ = try await complete(store, alices)
        let u1 = try await insert(store, Ownership(owner: "svc", externalUser: "u-1", metadata: .object([("order", .string("A-1"))]))).receipt
        _ = try await complete(store, u1)
        let u2 = try await insert(store, Ownership(owner: "svc", externalUser: "u-2")).receipt
        guard case .claimed = try await store.claim(id: u2.id, Lease(holder: "w", duration: 60)) else { throw ReceiptError(.invalidState, "claim") }
        _ = try await store.fail(id: u2.id, holder: "w", error: "u2.jpg: not an image", retryAt: nil, now: Date())

        let names = Dictionary(uniqueKeysWithValues: webhooks.map { ($0.value, $0.key) })
        let events = try await store.webhookEvents(state: nil, limit: nil)
        func recipients(_ receipt: Receipt) -> Set<String> {
            Set(events.filter { $0.receiptId == receipt.id }.map { $0.subscriptionId.map { names[$0] ?? "?" } ?? "server-wide" })
        }
        #expect(recipients(alices) == ["server-wide", "alice", "carol", "root"], "owner, group member, administrator; not bob")
        #expect(recipients(u1) == ["server-wide", "svc", "svc/u-1", "root"])
        #expect(recipients(u2) == ["server-wide", "svc", "root"], "an end user's webhook gets only that end user's receipts")
        let u1Event = try #require(events.first { $0.receiptId == u1.id && $0.subscriptionId == webhooks["svc/u-1"] })
        let body = try JSONValue.parse(u1Event.body)
        #expect(body["owner"]?.stringValue == "svc" && body["externalUser"]?.stringValue == "u-1")
        #expect(body["metadata"]?.serialized() == #"{"order":"A-1"}"#)

        // A server without the server-wide webhook never claims its events, nor waits for them.
        let claimed = try await store.claimWebhookEvents(Lease(holder: "s", duration: 60), limit: 100, serverWide: false)
        #expect(claimed.count == events.count - 3 && claimed.allSatisfy { $0.subscriptionId != nil })
        #expect(try await store.nextWebhookAttempt(serverWide: false).map { $0 > Date() } == true, "only leased events are left")
        #expect(try await store.claimWebhookEvents(Lease(holder: "s", duration: 60), limit: 100, serverWide: true).count == 3)

        // A webhook is removed by its user (or an administrator, for anyone), its undelivered events with it.
        #expect(await failure { try await store.removeWebhookSubscription(id: webhooks["alice"]!, user: "bob") }?.code == .notFound)
        try await store.removeWebhookSubscription(id: webhooks["alice"]!, user: "alice")
        try await store.removeWebhookSubscription(id: webhooks["bob"]!, user: nil)
        #expect(try await store.webhookEvents(state: nil, limit: nil).filter { $0.subscriptionId == webhooks["alice"] }.isEmpty)
        #expect(try await store.webhookSubscriptions(user: nil).count == 4)
        // Removing a user removes their webhooks.
        _ = try await store.removeUser(name: "carol", reassignTo: nil)
        #expect(try await store.webhookSubscriptions(user: "carol").isEmpty)
        #expect(try await store.webhookEvents(state: .pending, limit: nil).filter { $0.subscriptionId == webhooks["carol"] }.isEmpty)
    }
}
