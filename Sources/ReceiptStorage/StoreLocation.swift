import Foundation
import ReceiptModel

/// A store named the way users name one: a SQLite file path (or `sqlite:PATH`, `file:///PATH`), or a
/// PostgreSQL URL (`postgres://user:pass@host:5432/db`). `description` never shows a password.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    /// The URL schemes a store may be named with.
    public static let schemes = ["postgres", "postgresql", "file", "sqlite"]

    /// Parses a `--store` value. Throws a `ReceiptError` (`.invalidConfiguration`) for a PostgreSQL
    /// URL that does not parse, and for any other `scheme://` (a mistyped `postgress://` never
    /// becomes a SQLite file in a folder named after the URL). Messages never hold a password.
    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        if PostgresLocation.isPostgresURL(text) {
            self = .postgres(try PostgresLocation(url: text, environment: environment))
        } else if text.lowercased().hasPrefix("file://") {
            guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty, url.host == nil || url.host == "" || url.host == "localhost" else {
                throw ReceiptError(.invalidConfiguration, "not a file URL of this host; expected file:///path/to/receipts.sqlite",
                                   file: PostgresLocation.mask(text))
            }
            self = .sqlite(path: url.path)
        } else if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            self = .sqlite(path: path.hasPrefix("//") ? String(path.dropFirst(2)) : path)
        } else if let scheme = Self.scheme(of: text) {
            throw ReceiptError(.invalidConfiguration,
                               "'\(scheme)://' is not a kind of store: name a SQLite file (a path, sqlite:PATH or file:///PATH) or a PostgreSQL database (postgres:// or postgresql://)",
                               file: PostgresLocation.mask(text))
        } else {
            self = .sqlite(path: text)
        }
    }

    /// The scheme of `scheme://…` (RFC 3986 letters), or nil for a path.
    static func scheme(of text: String) -> String? {
        guard let end = text.range(of: "://") else { return nil }
        let scheme = text[..<end.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return String(scheme)
    }

    public var description: String {
        switch self {
        case let .sqlite(path): return path
        case let .postgres(location): return location.description
        }
    }
}
