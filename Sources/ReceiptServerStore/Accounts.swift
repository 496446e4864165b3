import Foundation
import ReceiptModel
import ReceiptStorage

/// A person (or a backend's service) the store keeps receipts for. Tokens belong to a user and
/// carry only that user's access; an administrator sees and changes every receipt.
public struct User: Sendable, Equatable {
    public var name: String
    public var isAdmin: Bool
    /// Where the user's uploads go when they name no group (nil: they are the user's alone).
    public var defaultGroup: String?
    public var createdAt: Date

    public init(name: String, isAdmin: Bool, defaultGroup: String? = nil, createdAt: Date) {
        self.name = name
        self.isAdmin = isAdmin
        self.defaultGroup = defaultGroup
        self.createdAt = createdAt
    }
}

/// A household or a team: its members see its receipts with their role.
public struct UserGroup: Sendable, Equatable {
    public var name: String
    public var createdAt: Date
    /// Members by user name.
    public var members: [String: GroupRole]

    public init(name: String, createdAt: Date, members: [String: GroupRole]) {
        self.name = name
        self.createdAt = createdAt
        self.members = members
    }

    /// `alice (editor), carol (viewer)`, by name.
    public var memberText: String {
        members.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value.rawValue))" }.joined(separator: ", ")
    }
}

/// A user's own webhook: each finished receipt the user may see (or, with `externalUser`, each of
/// that end user's receipts) is POSTed to `url`, signed with `secret`.
public struct WebhookSubscription: Sendable, Equatable {
    public var id: UUID
    public var user: String
    public var externalUser: String?
    public var url: URL
    /// The HMAC key of `Receipts-Signature`.
    public var secret: String
    public var createdAt: Date

    public init(id: UUID = UUID(), user: String, externalUser: String?, url: URL, secret: String, createdAt: Date) {
        self.id = id
        self.user = user
        self.externalUser = externalUser
        self.url = url
        self.secret = secret
        self.createdAt = createdAt
    }

    /// `{"id", "url", "externalUser", "createdAt"}`: never the secret.
    public var json: JSONValue {
        .object([
            ("id", .string(id.uuidString.lowercased())),
            ("url", .string(url.absoluteString)),
            ("user", .string(user)),
            ("externalUser", .optionalString(externalUser)),
            ("createdAt", .string(createdAt.iso8601)),
        ])
    }
}
