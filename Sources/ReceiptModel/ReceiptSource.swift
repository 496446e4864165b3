import Foundation

/// Where a receipt came from, when it did not come from a file or an upload: for now the e-mail
/// message it was found in (`receipts mail`, `POST /v1/inbound-email`). The record's `source`
/// object: `{"kind": "email", "from": …, "subject": …, "messageId": …}`.
public struct ReceiptSource: Sendable, Equatable {
    /// `email`.
    public var kind: String
    /// The sender as written in the message's From (`Shell Recharge <receipts@shell.example>`).
    public var from: String?
    public var subject: String?
    /// The message's Message-ID, without angle brackets.
    public var messageId: String?

    public init(kind: String = "email", from: String?, subject: String?, messageId: String?) {
        self.kind = kind
        self.from = from
        self.subject = subject
        self.messageId = messageId
    }

    public var json: JSONValue {
        .object([
            ("kind", .string(kind)),
            ("from", .optionalString(from)),
            ("subject", .optionalString(subject)),
            ("messageId", .optionalString(messageId)),
        ])
    }

    /// Reads a `source` object; nil when it is not one (no `kind`).
    public init?(json: JSONValue) {
        guard let kind = json["kind"]?.stringValue else { return nil }
        self.init(kind: kind, from: json["from"]?.stringValue, subject: json["subject"]?.stringValue,
                  messageId: json["messageId"]?.stringValue)
    }

    /// As kept in the store (a JSON object), and back.
    public var stored: String { json.serialized() }

    public init?(stored: String?) {
        guard let stored, let json = try? JSONValue.parse(stored) else { return nil }
        self.init(json: json)
    }

    /// `"Subject" from sender`, for one-line messages.
    public var described: String {
        "\"\(subject ?? "(no subject)")\" from \(from ?? "(unknown sender)")"
    }
}
