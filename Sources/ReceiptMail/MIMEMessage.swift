import CGMime
import Foundation
import ReceiptKit

/// An e-mail message as GMime parses it: its headers, and every leaf part of its body in order,
/// forwarded messages (`message/rfc822`) walked into as well. Only Swift values leave this file.
public struct MIMEMessage: Sendable {
    /// Message-ID, without angle brackets.
    public var messageId: String?
    /// The From header as written (`Shell Recharge <receipts@shell.example>`).
    public var from: String?
    /// The sender's address alone (`receipts@shell.example`), lowercased.
    public var fromAddress: String?
    /// The sender's display name (`Shell Recharge`).
    public var fromName: String?
    public var subject: String?
    /// The Date header, ISO 8601 with its offset, when readable.
    public var date: String?
    public var dateValue: Date?
    /// The leaf parts, in the order a reader meets them.
    public var parts: [MIMEPart]

    public var source: ReceiptSource { ReceiptSource(from: from, subject: subject, messageId: messageId) }

    /// `"Subject" from sender`, for one-line messages.
    public var described: String { source.described }

    /// Parses a raw RFC 822 message. Throws `.badMessage` when GMime finds no message in the bytes.
    public init(_ raw: Data) throws {
        _ = Self.initialized
        guard !raw.isEmpty else { throw ReceiptError(.badMessage, "the message is empty (0 bytes)") }
        let message: UnsafeMutablePointer<GMimeMessage>? = raw.withUnsafeBytes { bytes in
            receipts_gmime_parse(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
        }
        guard let message else { throw ReceiptError(.badMessage, "not an e-mail message (no headers GMime can read)") }
        defer { receipts_g_object_unref(message) }
        (messageId, from, fromAddress, fromName, subject, date, dateValue) = Self.headers(of: message)
        var parts: [MIMEPart] = []
        if let body = g_mime_message_get_mime_part(message) {
            Self.walk(body, forwarded: 0, into: &parts)
        }
        self.parts = parts
        // A message with neither headers nor a body is not one (GMime reads any bytes as a body).
        if messageId == nil, from == nil, subject == nil, date == nil, parts.allSatisfy({ $0.data.isEmpty }) {
            throw ReceiptError(.badMessage, "not an e-mail message (no From, Subject, Date or Message-ID header and no body)")
        }
    }

    private static let initialized: Bool = {
        g_mime_init()
        return true
    }()

    private static func headers(of message: UnsafeMutablePointer<GMimeMessage>)
        -> (String?, String?, String?, String?, String?, String?, Date?) {
        let messageId = string(g_mime_message_get_message_id(message))
        let subject = string(g_mime_message_get_subject(message))
        var from: String?, address: String?, name: String?
        if let list = g_mime_message_get_from(message), internet_address_list_length(list) > 0 {
            if let text = internet_address_list_to_string(list, nil, 0) {
                from = string(text)
                g_free(text)
            }
            if let first = internet_address_list_get_address(list, 0) {
                name = string(internet_address_get_name(first))
                if receipts_internet_address_is_mailbox(first) != 0 {
                    address = string(internet_address_mailbox_get_addr(receipts_internet_address_as_mailbox(first)))?.lowercased()
                }
            }
        }
        var date: String?, value: Date?
        if let when = g_mime_message_get_date(message) {
            if let text = g_date_time_format_iso8601(when) {
                date = String(cString: text)
                g_free(text)
            }
            value = Date(timeIntervalSince1970: TimeInterval(g_date_time_to_unix(when)))
        }
        return (messageId, from, address, name, subject, date, value)
    }

    private static func string(_ text: UnsafePointer<CChar>?) -> String? {
        guard let text else { return nil }
        let value = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    private static func string(_ text: UnsafeMutablePointer<CChar>?) -> String? {
        string(UnsafePointer(text))
    }

    /// Appends the leaf parts of `object`: a multipart's parts in order, a forwarded message's body.
    private static func walk(_ object: UnsafeMutablePointer<GMimeObject>, forwarded: Int, into parts: inout [MIMEPart]) {
        // A message nested deeper than this is not a forward of a forward: a bomb.
        guard forwarded <= 8, parts.count < 500 else { return }
        if receipts_gmime_is_multipart(object) != 0 {
            let multipart = receipts_gmime_as_multipart(object)
            for index in 0..<g_mime_multipart_get_count(multipart) {
                if let part = g_mime_multipart_get_part(multipart, index) { walk(part, forwarded: forwarded, into: &parts) }
            }
        } else if receipts_gmime_is_message_part(object) != 0 {
            if let inner = g_mime_message_part_get_message(receipts_gmime_as_message_part(object)),
               let body = g_mime_message_get_mime_part(inner) {
                walk(body, forwarded: forwarded + 1, into: &parts)
            }
        } else if receipts_gmime_is_part(object) != 0 {
            parts.append(part(object, forwarded: forwarded))
        }
    }

    private static func part(_ object: UnsafeMutablePointer<GMimeObject>, forwarded: Int) -> MIMEPart {
        var type = "application/octet-stream"
        if let contentType = g_mime_object_get_content_type(object), let text = g_mime_content_type_get_mime_type(contentType) {
            type = String(cString: text).lowercased()
            g_free(text)
        }
        let gpart = receipts_gmime_as_part(object)
        let filename = string(g_mime_part_get_filename(gpart))
        let disposition = string(g_mime_object_get_disposition(object))?.lowercased()
        var text: String?
        if receipts_gmime_is_text_part(object) != 0, let converted = g_mime_text_part_get_text(receipts_gmime_as_text_part(object)) {
            text = String(cString: converted)
            g_free(converted)
        }
        var length = 0
        var data = Data()
        if let bytes = receipts_gmime_part_bytes(gpart, &length) {
            data = Data(bytes: bytes, count: length)
            free(bytes)
        }
        return MIMEPart(contentType: type, filename: filename, disposition: disposition,
                        contentId: string(g_mime_object_get_content_id(object)), data: data, text: text, forwarded: forwarded)
    }
}

/// One leaf part of a message, transfer-decoded.
public struct MIMEPart: Sendable {
    /// As declared (`image/jpeg`); what the bytes are is sniffed apart (`ImageFormat.sniff`).
    public var contentType: String
    public var filename: String?
    /// `attachment`, `inline`, or nil.
    public var disposition: String?
    public var contentId: String?
    public var data: Data
    /// A text part's content as UTF-8 (converted from its charset).
    public var text: String?
    /// How many forwarded messages deep the part is (0: in the message itself).
    public var forwarded: Int

    public var isAttachment: Bool { disposition == "attachment" }
}

extension ReceiptError.Code {
    /// The bytes are not an e-mail message GMime can read.
    public static let badMessage = Self("badMessage")
}
