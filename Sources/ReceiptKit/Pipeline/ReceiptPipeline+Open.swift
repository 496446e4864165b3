import Foundation
import Logging

extension ReceiptPipeline {
    /// Opens the store at `location` (see `OpenedStore.open`: SQLite here, other kinds through
    /// `drivers`) and a pipeline on it.
    public static func open(_ location: StoreLocation, imagesDirectory: String? = nil, drivers: [any StoreDriver] = [],
                            processor: any ReceiptProcessing, configuration: Configuration = Configuration(),
                            logger: Logger) async throws -> ReceiptPipeline {
        let opened = try await OpenedStore.open(location, imagesDirectory: imagesDirectory, configuration: configuration.store,
                                                drivers: drivers, maximumConnections: configuration.workers + 4, logger: logger)
        return ReceiptPipeline(store: opened.store, images: opened.images, processor: processor,
                               configuration: configuration, logger: logger)
    }
}
