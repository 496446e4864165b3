import Foundation
import ReceiptModel

/// A PostgreSQL store named by URL: `postgres://user:pass@host:5432/db?sslmode=disable`.
/// `connect_timeout=S` (seconds, as libpq reads it) bounds connecting and opening the store.
///
/// The password comes from the URL or `$PGPASSWORD`; it is never part of `description`
/// (`postgres://user:***@host:5432/db`), which is what messages, logs and errors show.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable {
        /// Plain connection.
        case disable
        /// TLS when the server offers it (the default).
        case prefer
        /// TLS or no connection.
        case require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// How long connecting may take (`connect_timeout` in the URL); nil: the store's default.
    public var connectTimeout: Duration?

    public init(host: String, port: Int = 5432, username: String, password: String?, database: String, tls: TLSMode = .prefer,
                connectTimeout: Duration? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
        self.connectTimeout = connectTimeout
    }

    /// Whether `text` names a PostgreSQL store (`postgres://` or `postgresql://`).
    public static func isPostgresURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// Parses a `postgres://` URL. Throws a `ReceiptError` (`.cannotOpen`) saying what is wrong;
    /// the message never holds the password.
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let masked = Self.mask(text)
        func invalid(_ why: String) -> ReceiptError {
            ReceiptError(.cannotOpen, "not a PostgreSQL URL: \(why); expected postgres://user:password@host:5432/database",
                         file: masked)
        }
        guard Self.isPostgresURL(text), let components = URLComponents(string: text) else {
            throw invalid("cannot parse it")
        }
        guard let host = components.host, !host.isEmpty else { throw invalid("no host") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw invalid("no database name after the host") }
        var tls = TLSMode.prefer
        var connectTimeout: Duration?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                switch item.value ?? "" {
                case "disable": tls = .disable
                case "allow", "prefer": tls = .prefer
                case "require", "verify-ca", "verify-full": tls = .require
                default: throw invalid("sslmode must be disable, prefer or require")
                }
            case "connect_timeout":
                // Whole seconds, at least 2, as libpq reads it; 0 (libpq: no limit) keeps the store's default.
                guard let seconds = Int(item.value ?? "") else { throw invalid("connect_timeout must be a whole number of seconds") }
                connectTimeout = seconds <= 0 ? nil : .seconds(max(2, seconds))
            case "application_name":
                continue
            default:
                throw invalid("unknown parameter '\(item.name)' (sslmode, connect_timeout and application_name are understood)")
            }
        }
        let user = components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        let password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding } ?? environment["PGPASSWORD"]
        self.init(host: host, port: components.port ?? 5432, username: user, password: password, database: database, tls: tls,
                  connectTimeout: connectTimeout)
    }

    /// `postgres://user:***@host:port/db`: what is shown wherever the store is named.
    public var description: String {
        let credentials = password == nil ? username : "\(username):***"
        var parameters: [String] = []
        if tls != .prefer { parameters.append("sslmode=\(tls.rawValue)") }
        if let connectTimeout { parameters.append("connect_timeout=\(connectTimeout.components.seconds)") }
        let query = parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&")
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(credentials)@\(shownHost):\(port)/\(database)\(query)"
    }

    /// `text` with any password in it replaced by `***` (for messages about URLs that do not parse).
    public static func mask(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let rest = text[scheme.upperBound...]
        guard let at = rest.lastIndex(of: "@") else { return text }
        let userInfo = rest[..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return text }
        return String(text[..<scheme.upperBound]) + userInfo[..<colon] + ":***" + rest[at...]
    }
}
