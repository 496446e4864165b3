import Crypto
import Foundation
import ReceiptModel

extension Expense {
    /// A strong HTTP entity tag of the expense as the API shows it (`"…"`, 16 hex digits of the
    /// SHA-256 of its JSON): it changes whenever any field does. `If-Match` compares with it.
    public var etag: String {
        let digest = SHA256.hash(data: Data(json.serialized().utf8))
        return "\"" + digest.prefix(8).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// Whether an `If-Match` value (`*`, or a comma-separated list of entity tags) names this
    /// version. A weak tag (`W/"…"`) never matches (RFC 9110's strong comparison).
    public func matches(ifMatch: String) -> Bool {
        let value = ifMatch.trimmingCharacters(in: .whitespaces)
        if value == "*" { return true }
        let tag = etag
        return value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == tag }
    }
}
