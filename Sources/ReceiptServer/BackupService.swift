import Foundation
import Logging
import ReceiptKit
import ServiceLifecycle

/// `receipts serve --backup-dir DIR --backup-every 24h --keep 7`: a snapshot of the store into the
/// backup folder on a schedule (`StoreArchive.backup`), the oldest beyond `keep` removed. The
/// schedule counts from the newest snapshot in the folder, so a restart neither skips a backup nor
/// takes one too soon. `/metrics` says when the last one finished (`HTTPMetrics.backupFinished`);
/// a failure is logged at error level and tried again at the next turn.
public struct BackupService: Service {
    public struct Configuration: Sendable {
        public var directory: String
        public var interval: Duration
        public var keep: Int?

        public init(directory: String, interval: Duration, keep: Int?) {
            self.directory = directory
            self.interval = interval
            self.keep = keep
        }
    }

    let configuration: Configuration
    let store: any StoreAdministration
    let images: any ImageRepository
    let metrics: HTTPMetrics
    let logger: Logger

    public init(configuration: Configuration, store: any StoreAdministration, images: any ImageRepository, metrics: HTTPMetrics,
                logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.images = images
        self.metrics = metrics
        self.logger = logger
    }

    /// When the newest complete snapshot in the folder was made, if any.
    func lastBackup() -> Date? {
        guard let newest = StoreArchive.snapshots(in: configuration.directory).last,
              let attributes = try? FileManager.default.attributesOfItem(atPath: configuration.directory + "/" + newest + "/manifest.json")
        else { return nil }
        return attributes[.modificationDate] as? Date
    }

    public func run() async throws {
        let interval = Double(configuration.interval.components.seconds)
        var next = Date()
        if let last = lastBackup() {
            metrics.backupFinished(at: last, seconds: nil, succeeded: true)
            next = last.addingTimeInterval(interval)
        }
        while !Task.isCancelled {
            let wait = next.timeIntervalSinceNow
            if wait > 0 {
                // Ends at once on shutdown: a backup not yet begun is not waited for.
                do { try await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(Int64(wait * 1000))) } } catch { return }
                if Task.isShuttingDownGracefully || Task.isCancelled { return }
            }
            let started = Date()
            do {
                // A stop does not wait for it: an interrupted backup leaves the ones before it as they were.
                let summary = try await cancelWhenGracefulShutdown { [configuration, store, images] in
                    try await StoreArchive.backup(from: store, images: images, to: configuration.directory, keep: configuration.keep)
                }
                let seconds = Date().timeIntervalSince(started)
                metrics.backupFinished(at: Date(), seconds: seconds, succeeded: true)
                logger.info("Backed up", metadata: [
                    "backup.path": "\(summary.path)", "backup.images_copied": "\(summary.imagesCopied)",
                    "backup.seconds": "\(String(format: "%.1f", seconds))", "backup.removed": "\(summary.removed.count)",
                ])
                for hash in summary.missingImages {
                    logger.warning("An image was gone when the backup copied it (its receipt deleted meanwhile?)", metadata: ["image.sha256": "\(hash)"])
                }
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                metrics.backupFinished(at: Date(), seconds: Date().timeIntervalSince(started), succeeded: false)
                logger.error("Backup failed; trying again at the next turn", metadata: [
                    "backup.directory": "\(configuration.directory)", "error": "\(ReceiptError.from(error, file: configuration.directory).description)",
                ])
            }
            next = started.addingTimeInterval(interval)
        }
    }
}
