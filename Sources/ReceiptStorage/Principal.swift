import Foundation
import ReceiptModel

/// Who is asking: the one identity of the project. Built once per HTTP request (from its token
/// or sign-in, and `Receipts-External-User`) or once per command (`--user`), and handed to the
/// store as `store.scoped(to: principal)` (or `pipeline.scoped(to: principal)`): what it may see
/// is its `scope`, what it may change `mayChange` / `mayDelete`, who a change is by its `author`,
/// and whose idempotency keys it uses is itself (`user`, `externalUser`).
///
/// The rule of who may see a receipt is written once per place it is evaluated: `Scope.contains`
/// (in memory), and one condition per SQL dialect (see docs/architecture.md, "Who may see what").
public struct Principal: Sendable, Equatable, Hashable {
    /// The user of the store who asks (a service user for a backend).
    public var user: String
    /// An administrator sees and changes every receipt.
    public var isAdmin: Bool
    /// The name of the API token the request came with (nil: the command line, a sign-in, or a
    /// server without tokens).
    public var token: String?
    /// A backend's end user the service user acts for (`Receipts-External-User`): then only that
    /// end user's receipts are seen.
    public var externalUser: String?
    /// The user's groups and their role in each.
    public var memberships: [String: GroupRole]
    /// Where the user's uploads go when they name no group.
    public var defaultGroup: String?

    public init(user: String, isAdmin: Bool = false, token: String? = nil, externalUser: String? = nil,
                memberships: [String: GroupRole] = [:], defaultGroup: String? = nil) {
        self.user = user
        self.isAdmin = isAdmin
        self.token = token
        self.externalUser = externalUser
        self.memberships = memberships
        self.defaultGroup = defaultGroup
    }

    /// An administrator named `name` (the command line without `--user` acts as the store's
    /// first administrator; the queue's workers file results for everyone).
    public static func administrator(_ name: String = Ownership.defaultAdmin) -> Principal {
        Principal(user: name, isAdmin: true)
    }

    /// Who files receipts as `ownership` (the command line's `--user`, a mailbox's user): its owner,
    /// for its end user if any, with no memberships (it reads back what it filed).
    public init(filing ownership: Ownership) {
        self.init(user: ownership.owner, externalUser: ownership.externalUser)
    }

    /// Whose receipts it may see.
    public var scope: Scope {
        if let externalUser { return .externalUser(externalUser, of: user) }
        return isAdmin ? .everyone : .user(user)
    }

    /// Whether it may see `receipt`: the in-memory form of `scope` (the store answers the same
    /// rule from its tables).
    public func maySee(_ receipt: Receipt) -> Bool {
        scope.contains(receipt.ownership, groupsOfUser: Set(memberships.keys))
    }

    /// Whether a user's webhook (of `user`, for one end user with `externalUser`) is told of
    /// `receipt`: whether that principal's `scope` contains it (`Scope.contains`, the one rule). `memberOfItsGroup`:
    /// whether `user` belongs to the receipt's group. The stores' fan-out asks this of each webhook.
    public static func webhookSees(_ receipt: Receipt, user: String, isAdmin: Bool, externalUser: String?,
                                   memberOfItsGroup: Bool) -> Bool {
        let groups: Set<String> = memberOfItsGroup ? Set(receipt.ownership.group.map { [$0] } ?? []) : []
        return Principal(user: user, isAdmin: isAdmin, externalUser: externalUser).scope.contains(receipt.ownership, groupsOfUser: groups)
    }

    /// Whether it may correct, confirm or retry `receipt` (one it may see): its owner, an
    /// administrator, an editor of its group, or the service acting for its end user.
    public func mayChange(_ receipt: Receipt) -> Bool {
        if isAdmin || receipt.ownership.owner == user { return true }
        return receipt.ownership.group.map { memberships[$0] == .editor } ?? false
    }

    /// Whether it may delete `receipt` (one it may see): its owner or an administrator (a group's
    /// editors correct its receipts; they do not remove them).
    public func mayDelete(_ receipt: Receipt) -> Bool {
        isAdmin || receipt.ownership.owner == user
    }

    /// Who a change it makes is by, as the expense's history keeps it.
    public var author: ChangeAuthor { ChangeAuthor(user: user, token: token) }

    /// `alice`, or `svc for u-42`: for messages.
    public var name: String { externalUser.map { "\(user) for \($0)" } ?? user }

    /// Throws `.invalidState` naming why unless it may change `receipt` (`deleting`: remove it).
    public func checkMayChange(_ receipt: Receipt, deleting: Bool = false) throws {
        guard !(deleting ? mayDelete(receipt) : mayChange(receipt)) else { return }
        let role = receipt.ownership.group.flatMap { memberships[$0] }
        throw ReceiptError(.invalidState, "\(name) may \(role == nil ? "not change" : "view, not \(deleting ? "delete" : "change"),") "
                           + "receipt \(receipt.id.uuidString.lowercased()) (\(receipt.ownership.owner)'s)")
    }
}

/// What a member may do with a group's receipts.
public enum GroupRole: String, Sendable, CaseIterable, Comparable {
    /// See them: receipts, images, expenses, exports.
    case viewer
    /// Also correct and confirm their expenses, and retry them.
    case editor

    public static func < (a: GroupRole, b: GroupRole) -> Bool { a == .viewer && b == .editor }

    /// `alice` (an editor) or `carol:viewer`, as `receipts group add --member` takes it.
    public static func member(_ text: String) throws -> (user: String, role: GroupRole) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        try Ownership.checkName(name, "user")
        guard parts.count == 2 else { return (name, .editor) }
        guard let role = GroupRole(rawValue: parts[1].lowercased()) else {
            throw ReceiptError(.invalidInput, "'\(text)': the role is viewer or editor (carol:viewer)")
        }
        return (name, role)
    }
}

