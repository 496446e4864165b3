import Foundation

/// Whose memory of shops a receipt belongs to (issue 57): a user's receipts teach and consult the
/// user's own, a group's receipts the group's, and a backend's end user's receipts that end
/// user's. The books never meet: what alice confirmed never names a shop on bob's receipt.
public enum MemoryBook: Sendable, Hashable, CustomStringConvertible {
    case user(String)
    case group(String)
    /// A backend's end user (`externalUser`) of a service user (`of`).
    case endUser(String, of: String)

    /// The book a receipt's memory is in: its group's when it has one, its end user's for a
    /// backend's upload, else its owner's.
    public init(_ ownership: Ownership) {
        if let external = ownership.externalUser {
            self = .endUser(external, of: ownership.owner)
        } else if let group = ownership.group {
            self = .group(group)
        } else {
            self = .user(ownership.owner)
        }
    }

    /// How the stores keep it: a JSON array (`["user","alice"]`, `["end","svc","u-42"]`), so no
    /// name can be taken for another whatever it holds.
    public var key: String {
        switch self {
        case let .user(name): JSONValue.array([.string("user"), .string(name)]).serialized()
        case let .group(name): JSONValue.array([.string("group"), .string(name)]).serialized()
        case let .endUser(external, service): JSONValue.array([.string("end"), .string(service), .string(external)]).serialized()
        }
    }

    public init?(key: String) {
        guard let parts = (try? JSONValue.parse(key))?.arrayValue?.compactMap(\.stringValue) else { return nil }
        switch (parts.first, parts.count) {
        case ("user", 2): self = .user(parts[1])
        case ("group", 2): self = .group(parts[1])
        case ("end", 3): self = .endUser(parts[2], of: parts[1])
        default: return nil
        }
    }

    /// `user alice`, `group family`, `svc for u-42`.
    public var description: String {
        switch self {
        case let .user(name): "user \(name)"
        case let .group(name): "group \(name)"
        case let .endUser(external, service): "\(service) for \(external)"
        }
    }

    /// `{"kind": "user", "name": "alice"}` (an end user's: `"kind": "endUser", "name": "u-42", "of": "svc"`).
    public var json: JSONValue {
        switch self {
        case let .user(name): .object([("kind", .string("user")), ("name", .string(name))])
        case let .group(name): .object([("kind", .string("group")), ("name", .string(name))])
        case let .endUser(external, service): .object([("kind", .string("endUser")), ("name", .string(external)), ("of", .string(service))])
        }
    }
}
