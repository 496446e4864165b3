import Foundation
import ReceiptModel

/// A secret API key. It prints, dumps and reflects as `<redacted>`, so it cannot leak through a
/// log line, an error message or a debug dump of a configuration; only the request code reads it.
public struct APIKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key itself. Put it only into a request header.
    public let secret: String

    /// Trims whitespace and a trailing newline (as key files have); nil when nothing is left.
    public init?(_ secret: String) {
        let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        self.secret = trimmed
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// `text` with every occurrence of the key replaced by `<redacted>`: applied to everything a
    /// server sends back before it goes into an error message.
    public func redact(_ text: String) -> String {
        text.replacingOccurrences(of: secret, with: "<redacted>")
    }
}
