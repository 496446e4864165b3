import Foundation
import ReceiptKit

/// A mailbox to read: `imaps://USER@HOST[:PORT]/FOLDER` (or `imap://`, which upgrades with STARTTLS),
/// its password, and the CA to trust for a server with a private certificate.
public struct IMAPAccount: Sendable, Equatable {
    /// `imap` or `imaps`.
    public var scheme: String
    public var user: String
    public var host: String
    public var port: Int
    /// The folder read (`INBOX`, `Receipts/2025`).
    public var folder: String
    public var password: String
    /// PEM file of the CA that signed the server's certificate (nil: the system's).
    public var caFile: String?
    /// Seconds to connect, and for an answer to stall, before giving up.
    public var timeout: Int

    /// Parses `imaps://USER@HOST[:PORT]/FOLDER`; the folder defaults to INBOX, the port to 993 (imaps)
    /// or 143 (imap). A password in the URL is refused: it would show in `ps` and in logs.
    public init(url text: String, password: String, caFile: String? = nil, timeout: Int = 30) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "imap" || scheme == "imaps" else {
            throw ReceiptError(.invalidConfiguration, "\(text): not an IMAP URL; give imaps://USER@HOST[:PORT]/FOLDER")
        }
        guard components.password == nil else {
            throw ReceiptError(.invalidConfiguration, "\(scheme)://…: the URL holds a password; put it in --password-file instead")
        }
        guard let user = components.percentEncodedUser?.removingPercentEncoding, !user.isEmpty else {
            throw ReceiptError(.invalidConfiguration, "\(text): no user name; give imaps://USER@HOST/FOLDER")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ReceiptError(.invalidConfiguration, "\(text): no host; give imaps://USER@HOST/FOLDER")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw ReceiptError(.invalidConfiguration, "\(text): the port must be from 1 to 65535")
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.scheme = scheme
        self.user = user
        self.host = host
        self.port = components.port ?? (scheme == "imaps" ? 993 : 143)
        self.folder = path.isEmpty ? "INBOX" : path
        self.password = password
        self.caFile = caFile
        self.timeout = timeout
    }

    /// The mailbox as named in messages and in the store: `imaps://user@host:993/INBOX` (no password).
    public var name: String { name(folder: folder) }

    func name(folder: String) -> String {
        "\(scheme)://\(user)@\(bracketedHost):\(port)/\(folder)"
    }

    var bracketedHost: String { host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host }

    /// Whether the server is this machine (`imap://` is then plain: no STARTTLS).
    var isLoopback: Bool { host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]" }
}
