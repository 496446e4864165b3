import Foundation
import Logging
import ReceiptModel

/// An open store, where it keeps image bytes, and how to close it.
public struct OpenedStore: Sendable {
    public var store: any ReceiptStore
    public var images: any ImageRepository
    /// Backup, export and restore (`StoreArchive`): for a program that administers the store, apart
    /// from `store` (nil when the driver offers none).
    public var administration: (any StoreAdministration)?
    private let closing: @Sendable () -> Void

    /// `close` ends what the store holds open (a PostgreSQL pool's connections); nothing for a file.
    public init(store: any ReceiptStore, images: any ImageRepository, administration: (any StoreAdministration)? = nil,
                close: @escaping @Sendable () -> Void = {}) {
        self.store = store
        self.images = images
        self.administration = administration
        closing = close
    }

    /// Opens (creating or migrating) the store at `location`. A SQLite file is opened here, its
    /// images in `images/` beside it; any other kind of store by the first of `drivers` that opens
    /// it (ReceiptPostgres's `PostgresStoreDriver` for `postgres://`). `imagesDirectory`, when
    /// given, is where images go instead (a folder every host mounts at the same path). Throws
    /// `.invalidConfiguration` for a location no driver opens.
    public static func open(_ location: StoreLocation, imagesDirectory: String? = nil,
                            configuration: StoreConfiguration = StoreConfiguration(), drivers: [any StoreDriver] = [],
                            maximumConnections: Int = 8, logger: Logger = Logger(label: "receipts.store")) async throws -> OpenedStore {
        let folder = imagesDirectory.map { ImageStore(directory: URL(fileURLWithPath: $0).standardizedFileURL) }
        if case let .sqlite(path) = location {
            let store = try SQLiteReceiptStore(path: path, configuration: configuration)
            return OpenedStore(store: store, images: folder ?? ImageStore(besideDatabase: store.location), administration: store)
        }
        for driver in drivers {
            if let opened = try await driver.open(location, images: folder, maximumConnections: maximumConnections, logger: logger) {
                return opened
            }
        }
        throw ReceiptError(.invalidConfiguration,
                           "this program opens SQLite stores only; a PostgreSQL store needs the ReceiptPostgres library (its PostgresStoreDriver)",
                           file: location.description)
    }

    /// Closes what the store holds open (a PostgreSQL pool's connections; nothing for SQLite).
    public func close() {
        closing()
    }
}

/// Opens the stores of a kind this library does not open itself (it opens SQLite files): a
/// program that wants PostgreSQL links ReceiptPostgres and passes its `PostgresStoreDriver`.
public protocol StoreDriver: Sendable {
    /// The store at `location` with its images in `images` (or the store's own default place), or
    /// nil when `location` is not of this driver's kind. `maximumConnections` bounds a networked
    /// store's connection pool.
    func open(_ location: StoreLocation, images: ImageStore?, maximumConnections: Int, logger: Logger) async throws -> OpenedStore?
}
