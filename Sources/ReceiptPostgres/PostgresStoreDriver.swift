import Foundation
import Logging
import ReceiptStorage

/// Opens `postgres://` stores for `OpenedStore.open` and `ReceiptPipeline.open`: a program that
/// wants PostgreSQL links this library and passes `drivers: [PostgresStoreDriver()]`. Images go in
/// the database's `receipts.image` table unless a folder is given.
public struct PostgresStoreDriver: StoreDriver {
    public init() {}

    public func open(_ location: StoreLocation, images: ImageStore?, maximumConnections: Int, logger: Logger) async throws -> OpenedStore? {
        guard case let .postgres(postgres) = location else { return nil }
        let store = try await PostgresReceiptStore.open(postgres, maximumConnections: maximumConnections, logger: logger)
        return OpenedStore(store: store, images: images ?? PostgresImageRepository(store: store), administration: store,
                           close: { store.close() })
    }
}
