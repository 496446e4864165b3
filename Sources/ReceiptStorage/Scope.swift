import Foundation
import ReceiptModel

/// Whose receipts (and their expenses, images and corrections) a read or a change may touch.
/// Every query of the store that returns or changes a receipt takes one: there is no read "of
/// everything" by default, only `.everyone`, said on purpose (administrators, the queue's workers,
/// the command line run by the store's owner).
public enum Scope: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Every receipt.
    case everyone
    /// The receipts a user owns.
    case owner(String)
    /// What a user may see: the receipts they own and those of the groups they belong to.
    case user(String)
    /// The receipts a service user (`of`) uploaded for one of its backend's end users.
    case externalUser(String, of: String)

    public var description: String {
        switch self {
        case .everyone: "everyone"
        case let .owner(name): "owned by \(name)"
        case let .user(name): "seen by \(name)"
        case let .externalUser(external, service): "external user \(external) of \(service)"
        }
    }

    /// Whether the scope is a backend's end user's.
    public var isEndUser: Bool {
        if case .externalUser = self { return true }
        return false
    }

    /// Whether `receipt` is in this scope, given the groups the scope's user belongs to (for
    /// `.user`; the store answers from its tables, this is the same rule for what is in memory).
    public func contains(_ ownership: Ownership, groupsOfUser groups: Set<String> = []) -> Bool {
        switch self {
        case .everyone: true
        case let .owner(name): ownership.owner == name
        case let .user(name): ownership.owner == name || ownership.group.map(groups.contains) == true
        case let .externalUser(external, service): ownership.owner == service && ownership.externalUser == external
        }
    }

    /// The ownership a receipt stored for this scope's user gets by default (the service user and
    /// its end user for `.externalUser`); nil for `.everyone`, which names no one.
    public var defaultOwnership: Ownership? {
        switch self {
        case .everyone: nil
        case let .owner(name), let .user(name): Ownership(owner: name)
        case let .externalUser(external, service): Ownership(owner: service, externalUser: external)
        }
    }
}

/// Who made a change (a correction, a confirmation): a user, and the API token they used (nil on
/// the command line).
public struct ChangeAuthor: Sendable, Equatable {
    public var user: String
    public var token: String?

    public init(user: String, token: String? = nil) {
        self.user = user
        self.token = token
    }
}

/// One person's change to an expense, as kept in its history.
public struct ExpenseChange: Sendable, Equatable {
    public var at: Date
    public var author: ChangeAuthor
    /// The fields changed (their names in the expense's JSON).
    public var fields: [String]
    /// Whether this change confirmed the expense.
    public var confirmed: Bool

    public init(at: Date, author: ChangeAuthor, fields: [String], confirmed: Bool) {
        self.at = at
        self.author = author
        self.fields = fields
        self.confirmed = confirmed
    }

    /// `{"at", "user", "token", "fields", "confirmed"}`.
    public var json: JSONValue {
        .object([
            ("at", .string(at.iso8601)),
            ("user", .string(author.user)),
            ("token", .optionalString(author.token)),
            ("fields", .array(fields.map(JSONValue.string))),
            ("confirmed", .bool(confirmed)),
        ])
    }
}
