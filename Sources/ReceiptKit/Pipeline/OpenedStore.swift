import Foundation
import Logging


/// A store named the way users name one: a SQLite file path (or `sqlite:PATH`), or a PostgreSQL URL
/// (`postgres://user:pass@host:5432/db`). `description` never shows a password.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    /// Parses a `--store` value. Throws a `ReceiptError` for a PostgreSQL URL that does not parse.
    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        if PostgresLocation.isPostgresURL(text) {
            self = .postgres(try PostgresLocation(url: text, environment: environment))
        } else if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            self = .sqlite(path: path.hasPrefix("//") ? String(path.dropFirst(2)) : path)
        } else {
            self = .sqlite(path: text)
        }
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
