import Foundation
import Testing
@testable import ReceiptKit
import ReceiptPostgres
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// The memory of shops in every store (issue 57): a confirmation teaches its receipt's book and
/// nothing else; a draft never teaches; deleting the receipt or putting it back to draft takes
/// back what it taught; a key that led to two shops is ambiguous; people rename, merge, forget and
/// import shops of the books they may change; the same purchase twice is caught by its shop's keys.
@Suite struct ShopMemoryStoreTests {
    static let phone = ShopKey(.phone, "134960123")

    /// A completed receipt of `owner` (in `group`) whose analysis printed `keys`, drafted as `vendor`.
    func completed(_ test: TestStore, owner: String, group: String? = nil, vendor: String = "KESTREL FUEL LTD", keys: [ShopKey],
                   total: String = "30.00", date: String = "2024-03-12", time: String? = nil, text: String = "x") async throws -> (Receipt, Expense) {
        let receipt = Receipt(filePath: "\(UUID().uuidString).jpg", contentHash: UUID().uuidString, ownership: Ownership(owner: owner, group: group))
        let stored = try await test.store.insert(receipt, imagePath: nil, deduplicate: false).receipt
        _ = try await test.store.claim(id: stored.id, Lease(holder: "w", duration: 60))
        var analysis = ReceiptAnalysis(vendor: vendor, date: CalendarDate(iso: date), total: Decimal(string: total), analyzer: "t")
        analysis.shopKeys = ShopKeys(keys)
        analysis.identity.time = time.map { IdentityField(value: $0, confidence: 0.9) }
        let work = CompletedWork(analysis: analysis, ocrText: text, expense: Expense.draft(from: analysis, receiptId: stored.id, taxonomy: .default))
        return try #require(try await test.store.complete(id: stored.id, holder: "w", work: work, now: Date()))
    }

    /// `who` confirms the expense under `name` (in `category`).
    @discardableResult
    func confirm(_ test: TestStore, _ expense: Expense, as name: String, by who: Principal, category: String = "Fuel") async throws -> Expense {
        var correction = ExpenseCorrection()
        correction.description = name
        correction.category = category
        correction.status = .confirmed
        return try await test.store.scoped(to: who).correct(expenseId: expense.id, with: correction, taxonomy: .default)
    }

    func users(_ test: TestStore) async throws {
        for name in ["alice", "bob", "carol"] { _ = try await test.store.addUser(name: name, isAdmin: false, defaultGroup: nil, now: Date()) }
        _ = try await test.store.addGroup(name: "home", members: ["alice": .editor, "carol": .viewer], now: Date())
    }

    @Test(arguments: StoreKind.available)
    func aConfirmationTeachesItsOwnersBookAloneAndTakingItBackForgets(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        try await users(test)
        let alice = Principal(user: "alice", memberships: ["home": .editor])
        let (receipt, expense) = try await completed(test, owner: "alice", keys: [Self.phone, ShopKey(.name, "kestrelfuelltd")])
        // A draft teaches nothing.
        #expect(try await test.store.recall([Self.phone], in: .user("alice")).matches.isEmpty)
        try await confirm(test, expense, as: "Kestrel (mine)", by: alice)
        let recall = try await test.store.recall([Self.phone], in: .user("alice"))
        #expect(recall.best?.shop.name == "Kestrel (mine)")
        #expect(recall.best?.shop.confirmations == 1 && recall.best?.shop.category == "Fuel")
        #expect(recall.best?.keys == [.phone])
        // Never another's book: bob's, the group's.
        #expect(try await test.store.recall([Self.phone], in: .user("bob")).matches.isEmpty)
        #expect(try await test.store.recall([Self.phone], in: .group("home")).matches.isEmpty)
        // Back to draft: taken back, the shop gone with its last receipt.
        var draft = ExpenseCorrection()
        draft.status = .draft
        try await test.store.scoped(to: alice).correct(expenseId: expense.id, with: draft, taxonomy: .default)
        #expect(try await test.store.recall([Self.phone], in: .user("alice")).matches.isEmpty)
        #expect(try await test.store.scoped(to: alice).vendors().isEmpty)
        // Confirmed again, then the receipt deleted: taken back too.
        try await confirm(test, expense, as: "Kestrel (mine)", by: alice)
        #expect(try await test.store.scoped(to: alice).vendors().count == 1)
        _ = try await test.store.scoped(to: alice).deleteReceipt(id: receipt.id, force: true)
        #expect(try await test.store.recall([Self.phone], in: .user("alice")).matches.isEmpty)
        #expect(try await test.store.scoped(to: alice).vendors().isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func aGroupsReceiptsTeachTheGroupAndAKeyOfTwoShopsIsAmbiguous(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        try await users(test)
        let alice = Principal(user: "alice", memberships: ["home": .editor])
        let (_, a) = try await completed(test, owner: "alice", group: "home", keys: [Self.phone, ShopKey(.name, "alphacafe")])
        let (_, b) = try await completed(test, owner: "alice", group: "home", keys: [Self.phone, ShopKey(.name, "betabakery")])
        try await confirm(test, a, as: "Alpha", by: alice)
        try await confirm(test, b, as: "Beta", by: alice)
        let recall = try await test.store.recall([Self.phone, ShopKey(.name, "alphacafe")], in: .group("home"))
        #expect(Set(recall.matches.map(\.shop.name)) == ["Alpha", "Beta"])
        #expect(recall.best?.shop.name == "Alpha" && recall.best?.deciding == [.name] && recall.best?.ambiguous == [.phone])
        // The group's viewer sees its shops and may not change them; bob does not see them at all.
        let carol = Principal(user: "carol", memberships: ["home": .viewer])
        let seen = try await test.store.scoped(to: carol).vendors()
        #expect(seen.map(\.name) == ["Alpha", "Beta"])
        await #expect(throws: ReceiptError.self) { try await test.store.scoped(to: carol).changeVendor(id: seen[0].id, VendorChange(name: "A")) }
        #expect(try await test.store.scoped(to: Principal(user: "bob")).vendors().isEmpty)
        #expect(try await test.store.scoped(to: Principal(user: "bob")).vendor(id: seen[0].id) == nil)
    }

    @Test(arguments: StoreKind.available)
    func peopleRenameMergeForgetAndImport(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        try await users(test)
        let alice = Principal(user: "alice")
        let mine = test.store.scoped(to: alice)
        let (_, one) = try await completed(test, owner: "alice", keys: [Self.phone])
        let (_, two) = try await completed(test, owner: "alice", keys: [ShopKey(.name, "kestrelfuel")])
        try await confirm(test, one, as: "GARDENIA BAKERIES", by: alice)
        try await confirm(test, two, as: "Gardenia Bakery", by: alice)
        let shops = try await mine.vendors()
        #expect(shops.map(\.name) == ["GARDENIA BAKERIES", "Gardenia Bakery"])
        // Paged by name.
        let first = try await mine.vendors(limit: 1)
        #expect(try await mine.vendors(after: first[0].id, limit: 1).map(\.name) == ["Gardenia Bakery"])
        // A name another shop has is refused: merge them instead.
        await #expect(throws: ReceiptError.self) { try await mine.changeVendor(id: shops[0].id, VendorChange(name: "gardenia bakery")) }
        let renamed = try await mine.changeVendor(id: shops[0].id, VendorChange(name: "Gardenia", category: .some("Other")))
        #expect(renamed.name == "Gardenia" && renamed.category == "Other" && renamed.categorySet)
        #expect(try await test.store.recall([Self.phone], in: .user("alice")).best?.shop.name == "Gardenia")
        // Re-correcting the receipt (same name it was taught under) keeps it the renamed shop's.
        var amount = ExpenseCorrection()
        amount.amount = .some(Decimal(31))
        try await mine.correct(expenseId: one.id, with: amount, taxonomy: .default)
        #expect(try await mine.vendors().map(\.name) == ["Gardenia", "Gardenia Bakery"])
        // Merged: one shop with both receipts and both keys.
        let merged = try await mine.mergeVendor(id: shops[1].id, into: shops[0].id)
        #expect(merged.receipts == 2 && Set(merged.keys.map(\.kind)) == [.phone, .name])
        #expect(try await mine.vendors().count == 1)
        // Imported merchants, their keys normalized as a receipt's are.
        let imported = try await mine.importMerchants([KnownMerchant(name: "Shell", phone: "+44 20 7946 0018", web: "https://www.shell.co.uk/", category: "Fuel")])
        #expect(imported.count == 1 && imported[0].imported && imported[0].category == "Fuel")
        let recall = try await test.store.recall([ShopKey(.web, "shell.co.uk")], in: .user("alice"))
        #expect(recall.best?.shop.name == "Shell" && recall.best?.shop.confirmations == 1)
        #expect(try await test.store.recall([ShopKey(.phone, "079460018")], in: .user("alice")).best?.shop.name == "Shell")
        // Forgotten: its keys with it; the receipts stay.
        try await mine.forgetVendor(id: merged.id)
        #expect(try await test.store.recall([Self.phone], in: .user("alice")).matches.isEmpty)
        #expect(try await mine.expense(id: one.id) != nil)
        // Another user's shop: not found.
        await #expect(throws: ReceiptError.self) { try await test.store.scoped(to: Principal(user: "bob")).forgetVendor(id: imported[0].id) }
    }

    @Test(arguments: StoreKind.available)
    func theSamePurchaseTwiceIsFlaggedByItsShopsKeysNotAcrossOwners(kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        try await users(test)
        let (_, first) = try await completed(test, owner: "alice", vendor: "KESTREL FUEL LTD", keys: [Self.phone], time: "14:05")
        // Another picture: the name misread, the phone read alike.
        let (_, second) = try await completed(test, owner: "alice", vendor: "KESTPEL FUFL", keys: [Self.phone], time: "14:05")
        #expect(second.possibleDuplicateOf == first.id)
        // Another purchase at the same shop, the same total that day, another time: not the same.
        let (_, later) = try await completed(test, owner: "alice", vendor: "KESTREL FUEL LTD", keys: [Self.phone], time: "17:40")
        #expect(later.possibleDuplicateOf == nil)
        // Another shop entirely with the same date and total.
        let (_, other) = try await completed(test, owner: "alice", vendor: "BLUE MESA DINER", keys: [ShopKey(.phone, "555010142")])
        #expect(other.possibleDuplicateOf == nil)
        // Bob's copy of the same receipt is his purchase, never alice's duplicate.
        let (_, bobs) = try await completed(test, owner: "bob", vendor: "KESTREL FUEL LTD", keys: [Self.phone], time: "14:05")
        #expect(bobs.possibleDuplicateOf == nil)
    }
}
