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
        var seen = Set<String>()
        if let repeated = pairs.first(where: { !seen.insert($0.0).inserted }) {
            // JSON leaves a repeated key's meaning open (one reader keeps the first, another the last).
            throw ReceiptError(.invalidInput, "metadata has the key \(JSONValue.string(String(repeated.0.prefix(40))).serialized()) "
                               + "more than once; give each key once")
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
    /// (Spaces inside are allowed: `Smith family`; a shell needs the name quoted.)
    public static func isValidName(_ name: String) -> Bool {
        nameProblem(name) == nil
    }

    /// Why `name` is not a valid name (`it holds the control character \x01`), or nil when it is.
    public static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.count > 64 { return "it is \(name.count) characters long (at most 64)" }
        if let control = name.unicodeScalars.first(where: { CharacterSet.controlCharacters.contains($0) }) {
            return "it holds the control character \(visible(String(control)))"
        }
        if let mark = name.unicodeScalars.first(where: { "/:,".unicodeScalars.contains($0) }) { return "it holds '\(mark)'" }
        if name.trimmingCharacters(in: .whitespaces) != name { return "it starts or ends with a space" }
        return nil
    }

    /// Throws `.invalidInput` unless `name` is a valid name (see `isValidName`) for `what` ("user"),
    /// naming the name as it was given (control characters written `\x01`) and what is wrong.
    public static func checkName(_ name: String, _ what: String) throws {
        if let problem = nameProblem(name) {
            throw ReceiptError(.invalidInput, "\(quotedForMessage(name)) is not a valid \(what) name: \(problem) (a name is 1 to 64 "
                               + "characters, without control characters, slashes, colons or commas, nor spaces at its ends)")
        }
    }

    /// `text` with each control character written as `\x01` (`\u{85}` beyond ASCII), so a message
    /// shows what was given instead of letting a terminal act on it.
    public static func visible(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if CharacterSet.controlCharacters.contains(scalar) {
                out += scalar.value < 0x100 ? String(format: "\\x%02x", scalar.value) : String(format: "\\u{%x}", scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `'name'` for a message, its control characters made visible (`visible`).
    public static func quotedForMessage(_ name: String) -> String {
        "'" + visible(name) + "'"
    }

    /// `name` as a POSIX shell reads it back as one word: as it is when it is only letters, digits
    /// and `-_.@+`, else in single quotes (a quote inside written `'\''`). For the commands a
    /// message suggests (`receipts token create --user 'Smith family'`).
    public static func shellQuoted(_ name: String) -> String {
        let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_.@+"))
        if !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && plain.contains($0) }) { return name }
        return "'" + name.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
