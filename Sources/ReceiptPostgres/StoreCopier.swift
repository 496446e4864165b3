import Foundation
import ReceiptModel
import ReceiptServerStore
import ReceiptStorage

/// Copies a SQLite store into PostgreSQL — users, groups and their members, API tokens (with the
/// hash of their secret: they keep working), users' webhooks, then receipts with their statuses
/// and ownership, drafted expenses (with corrections, who confirmed them and their history of
/// changes), image bytes (every picture of a receipt photographed in several), the memory of shops — for a user who outgrows one machine. Idempotent: what was copied
/// before is skipped, so an interrupted copy is finished by running it again.
public struct StoreCopier: Sendable {
    public struct Summary: Sendable, Equatable {
        public var copied = 0
        public var alreadyThere = 0
        public var images = 0
        /// Users, groups (and memberships), tokens and webhooks copied (not those there already).
        public var accounts = ImportedAccounts()
        /// Receipts whose image copy was missing from the source (copied without it).
        public var missingImages: [String] = []
        /// Receipts not copied because the target has a receipt of the same bytes (of the same
        /// owner) already: the source's file and the target's receipt, which stays as it is.
        public var sameImage: [(file: String, receipt: UUID)] = []

        public static func == (a: Summary, b: Summary) -> Bool {
            (a.copied, a.alreadyThere, a.images, a.missingImages) == (b.copied, b.alreadyThere, b.images, b.missingImages)
                && a.accounts == b.accounts
                && a.sameImage.map(\.receipt) == b.sameImage.map(\.receipt) && a.sameImage.map(\.file) == b.sameImage.map(\.file)
        }
    }

    /// The source as a server (its users, groups, tokens…) and as what an archive reads (the
    /// tokens' hashes, which no server or command shows).
    let source: any ServerStore & StoreAdministration
    let sourceImages: any ImageRepository
    let target: PostgresReceiptStore
    let targetImages: any ImageRepository

    public init(from source: any ServerStore & StoreAdministration, images sourceImages: any ImageRepository,
                to target: PostgresReceiptStore, images targetImages: any ImageRepository) {
        self.source = source
        self.sourceImages = sourceImages
        self.target = target
        self.targetImages = targetImages
    }

    /// Copies the users and what is theirs, then every receipt, oldest first, calling `progress`
    /// after each.
    public func copy(progress: @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> Summary {
        var summary = Summary()
        // Receipts name their owner and group, tokens and webhooks their user: those come first.
        summary.accounts = try await target.importAccounts(
            users: try await source.users(), groups: try await source.groups(), tokens: try await source.tokens(),
            secretHashes: try await tokenSecretHashes(), webhooks: try await source.webhookSubscriptions(user: nil))
        try await copySignIn(source)
        let receipts = try await source.receipts(ReceiptQuery(), in: .everyone).reversed()
        var duplicates: [(UUID, UUID)] = []
        // The bytes seen so far, per owner and end user (each has its own first copy).
        var seenHashes = Set<[String]>()
        // A source expense that stays out (its bytes are a target receipt already) → the target's expense.
        var expenseInTarget: [UUID: UUID] = [:]
        for (index, receipt) in receipts.enumerated() {
            // A receipt photographed in several: each picture's bytes under its own hash, the
            // first being the receipt's image (its `contentHash` names all of them together).
            var pictures: [StoredPicture] = []
            for picture in try await source.pictures(ofReceipt: receipt.id, in: .everyone) {
                guard let data = try? await sourceImages.load(picture.imagePath) else {
                    summary.missingImages.append(picture.name)
                    continue
                }
                var copied = picture
                copied.imagePath = try await targetImages.store(data, hash: picture.contentHash)
                pictures.append(copied)
                summary.images += 1
            }
            var imageRef = pictures.first?.imagePath
            if imageRef == nil, let reference = try await source.imagePath(ofReceipt: receipt.id, in: .everyone) {
                if let hash = receipt.contentHash, let data = try? await sourceImages.load(reference) {
                    imageRef = try await targetImages.store(data, hash: hash)
                    summary.images += 1
                } else {
                    summary.missingImages.append(receipt.filePath)
                }
            }
            let expense = try await source.expense(receiptId: receipt.id, in: .everyone)
            var corrections: JSONValue?
            var history: [ExpenseChange] = []
            if let expense {
                let stored = try await source.corrections(ofExpense: expense.id, in: .everyone)
                if stored != JSONValue.object([]) { corrections = stored }
                history = try await source.history(ofExpense: expense.id, in: .everyone)
            }
            if let expense, let original = expense.possibleDuplicateOf { duplicates.append((expense.id, original)) }
            // The oldest receipt of some bytes (of one owner and end user) is their first copy;
            // later ones were forced re-reads.
            let o = receipt.ownership
            let isFirstCopy = receipt.contentHash.map { seenHashes.insert([o.owner, o.externalUser ?? "", $0]).inserted } ?? true
            switch try await target.importReceipt(receipt, imageRef: imageRef, pictures: pictures, expense: expense, corrections: corrections,
                                                  history: history, isFirstCopy: isFirstCopy) {
            case .copied:
                summary.copied += 1
            case .alreadyThere:
                summary.alreadyThere += 1
            case let .sameImage(existing):
                summary.sameImage.append((receipt.filePath, existing))
                if let expense, let kept = try await target.expense(receiptId: existing, in: .everyone) { expenseInTarget[expense.id] = kept.id }
            }
            progress(index + 1, receipts.count)
        }
        for (expense, original) in duplicates {
            try await target.linkPossibleDuplicate(expense: expenseInTarget[expense] ?? expense, original: expenseInTarget[original] ?? original)
        }
        try await copyShopMemory()
        return summary
    }

    /// The memory of shops: every book's shops, the lessons of the receipts copied and the keys
    /// (read as an archive reads them). A shop the target remembers under the same name in the
    /// same book takes in the source's lessons and keys.
    private func copyShopMemory() async throws {
        guard let vendors = ArchiveEntities.named("shop_vendors"), let lessons = ArchiveEntities.named("shop_lessons"),
              let keys = ArchiveEntities.named("shop_keys") else { return }
        try await target.importShopMemory(
            vendors: try await source.values(of: vendors, fields: vendors.fields.map(\.name)),
            lessons: try await source.values(of: lessons, fields: lessons.fields.map(\.name)),
            keys: try await source.values(of: keys, fields: keys.fields.map(\.name)))
    }

    /// Each token's name and the SHA-256 of its secret (all that is kept of it), read as an
    /// archive reads them: a token copied with its hash keeps working with the secret its holder has.
    private func tokenSecretHashes() async throws -> [String: String] {
        guard let tokens = ArchiveEntities.named("tokens") else { return [:] }
        var hashes: [String: String] = [:]
        for row in try await source.values(of: tokens, fields: ["name", "secretHash"]) {
            if case let .string(name) = row[0], case let .string(hash) = row[1] { hashes[name] = hash }
        }
        return hashes
    }

    /// Passkeys and password hashes go with their users, and the public URL with the store; sessions
    /// and invitations do not (people sign in again, and are invited again).
    private func copySignIn(_ server: any ServerStore) async throws {
        for user in try await server.users() {
            for passkey in try await server.passkeys(user: user.name) where try await target.passkey(id: passkey.id) == nil {
                try await target.addPasskey(passkey)
            }
            if let hash = try await server.passwordHash(user: user.name), try await target.passwordHash(user: user.name) == nil {
                try await target.setPasswordHash(user: user.name, hash: hash, now: Date())
            }
        }
        if let url = try await server.publicURL(), try await target.publicURL() == nil { try await target.setPublicURL(url) }
    }
}
