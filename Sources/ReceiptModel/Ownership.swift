import Foundation

/// Whose a receipt is: one owner (a user of the store), at most one group whose members see it
/// with their role, and, for a backend that serves its own users through one service user, the
/// end user it was uploaded for (`externalUser`) and the backend's own `metadata` (a JSON object,
/// returned verbatim in records and webhooks).
public struct Ownership: Sendable, Equatable {
    /// The user who owns the receipt (a name of `receipts user list`).
    public var owner: String
    /// The group (household, team) that shares it, if any.
    public var group: String?
    /// A backend's end user, as the backend names it (`Receipts-External-User`).
    public var externalUser: String?
    /// The backend's own data about the upload: a JSON object of at most `maxMetadataBytes`.
    public var metadata: JSONValue?

    public init(owner: String, group: String? = nil, externalUser: String? = nil, metadata: JSONValue? = nil) {
        self.owner = owner
        self.group = group
        self.externalUser = externalUser
        self.metadata = metadata
    }

    /// The user every store has from the start (and who owns what a store held before users
    /// existed): an administrator.
    public static let defaultAdmin = "admin"
    /// Receipts owned by the store's first administrator, `admin`.
    public static let admin = Ownership(owner: defaultAdmin)

    /// The most bytes `metadata` may take, serialized.
    public static let maxMetadataBytes = 4096
    /// What `metadata` may hold (as payment APIs keep theirs: flat keys and values): at most this
    /// many keys, each of 1 to `maxMetadataKey` characters, each value a string of at most
    /// `maxMetadataString` characters, a number within ±`maxMetadataNumber`, true, false or null.
    /// Together they never pass `maxMetadataBytes`.
    public static let maxMetadataKeys = 20
    public static let maxMetadataKey = 40
    public static let maxMetadataString = 150
    public static let maxMetadataNumber: Decimal = 1_000_000_000_000_000

    /// Checks `metadata` as given by a client (see `maxMetadataKeys`). Throws `.invalidInput`
    /// naming what is wrong.
    public static func checkMetadata(_ value: JSONValue) throws {
        guard case let .object(pairs) = value else {
            throw ReceiptError(.invalidInput, "metadata must be a JSON object, e.g. {\"order\": \"A-1\"}")
        }
        guard pairs.count <= maxMetadataKeys else {
            throw ReceiptError(.invalidInput, "metadata has \(pairs.count) keys; at most \(maxMetadataKeys) are kept")
        }
        for (key, field) in pairs {
            guard (1...maxMetadataKey).contains(key.unicodeScalars.count) else {
                throw ReceiptError(.invalidInput, "metadata keys are 1 to \(maxMetadataKey) characters")
            }
            switch field {
            case .null, .bool: continue
            case let .string(text) where text.unicodeScalars.count <= maxMetadataString: continue
            case let .number(text) where Double(text).map { abs($0) <= NSDecimalNumber(decimal: maxMetadataNumber).doubleValue } == true: continue
            default:
                throw ReceiptError(.invalidInput, "metadata value of \(JSONValue.string(String(key.prefix(40))).serialized()) must be a string of at most \(maxMetadataString) "
                                   + "characters, a number within ±10^15, true, false or null")
            }
        }
        let size = value.serialized().utf8.count
        guard size <= maxMetadataBytes else {
            throw ReceiptError(.invalidInput, "metadata is \(size) bytes; at most \(maxMetadataBytes) are kept")
        }
    }

    /// Whether `name` may name a user, a group or an external user: 1 to 64 characters, none of
    /// them a control character, a slash, a colon or a comma, not starting or ending with a space.
    public static func isValidName(_ name: String) -> Bool {
        guard (1...64).contains(name.count), name.trimmingCharacters(in: .whitespaces) == name else { return false }
        return !name.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) || "/:,".unicodeScalars.contains($0) }
    }

    /// Throws `.invalidInput` unless `name` is a valid name (see `isValidName`) for `what` ("user").
    public static func checkName(_ name: String, _ what: String) throws {
        guard isValidName(name) else {
            throw ReceiptError(.invalidInput, "'\(name)' is not a valid \(what) name: 1 to 64 characters, no control characters, "
                               + "slashes, colons or commas, no leading or trailing spaces")
        }
    }
}
