import Foundation
import Logging


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

/// An open store and where it keeps image bytes.
public struct OpenedStore: Sendable {
    public var store: any ServerStore
    public var images: any ImageRepository

    public init(store: any ServerStore, images: any ImageRepository) {
        self.store = store
        self.images = images
    }

    /// Opens (creating or migrating) the store. Images go in `images/` beside a SQLite file, in the
    /// PostgreSQL database's `receipts.image` table, or in `imagesDirectory` when given (a folder
    /// every host mounts at the same path).
    public static func open(_ location: StoreLocation, imagesDirectory: String? = nil,
                            configuration: StoreConfiguration = StoreConfiguration(),
                            maximumConnections: Int = 8, logger: Logger = Logger(label: "receipts.store")) async throws -> OpenedStore {
        let folder = imagesDirectory.map { ImageStore(directory: URL(fileURLWithPath: $0).standardizedFileURL) }
        switch location {
        case let .sqlite(path):
            let store = try SQLiteReceiptStore(path: path, configuration: configuration)
            return OpenedStore(store: store, images: folder ?? ImageStore(besideDatabase: store.location))
        case let .postgres(postgres):
            let store = try await PostgresReceiptStore.open(postgres, maximumConnections: maximumConnections, logger: logger)
            return OpenedStore(store: store, images: folder ?? PostgresImageRepository(store: store))
        }
    }

    /// Closes a PostgreSQL store's connections (nothing to do for SQLite).
    public func close() {
        (store as? PostgresReceiptStore)?.close()
    }
}

extension ReceiptPipeline {
    /// Opens the store at `location` (see `OpenedStore.open`) and a pipeline on it.
    public static func open(_ location: StoreLocation, imagesDirectory: String? = nil, processor: any ReceiptProcessing,
                            configuration: Configuration = Configuration(), logger: Logger) async throws -> ReceiptPipeline {
        let opened = try await OpenedStore.open(location, imagesDirectory: imagesDirectory, configuration: configuration.store,
                                                maximumConnections: configuration.workers + 4, logger: logger)
        return ReceiptPipeline(store: opened.store, images: opened.images, processor: processor,
                               configuration: configuration, logger: logger)
    }
}
