import Foundation
import Logging
import ServiceLifecycle

/// The entry point for using receipts from a program: submit receipt images, let workers read
/// them, get receipts and their drafted expenses back.
///
/// ```swift
/// let pipeline = try ReceiptPipeline(storePath: "/var/lib/myapp/receipts.sqlite",
///                                    processor: processor, logger: logger)
/// let receipt = try await pipeline.submit(imageData: upload, filename: "IMG_0042.jpg",
///                                          as: Ownership(owner: "admin", externalUser: "u-42"))
/// // in a ServiceGroup: pipeline.run() runs the workers until shutdown
/// let u42 = pipeline.scoped(to: Principal(user: "admin", externalUser: "u-42"))
/// let done = try await u42.waitForCompletion(of: receipt.id)
/// let expense = try await u42.expense(forReceipt: done.id)
/// ```
///
/// Every receipt has an owner (a user of the store; a new store has one, `admin`), and every read
/// and change goes through who asks (`scoped(to:)`, a `ScopedPipeline`).
///
/// State lives in the store: a pending receipt survives a crash and is processed on the next run.
/// Image bytes are kept in `images/` beside the database, so the caller's file or buffer may go away
/// once `submit` returns.
public final class ReceiptPipeline: Service, Sendable {
    public struct Configuration: Sendable {
        /// Expense categories; the drafted expense's deductibility comes from its category's rule.
        public var taxonomy: Taxonomy
        /// Receipts processed at once (the processor runs OCR on its own threads).
        public var workers: Int
        public var retry: RetryPolicy
        /// How long a worker's hold on a receipt lasts without renewal (renewed every third of it).
        /// A receipt held by a process that died is taken again after this, or at once when the
        /// process was on this host.
        public var leaseDuration: TimeInterval
        /// How often to look for work done or submitted by other processes.
        public var pollInterval: TimeInterval
        public var store: StoreConfiguration
        /// Called by this process's workers when a receipt is completed or has failed for good
        /// (not when it will be retried). It must return at once (hand the outcome on): a worker
        /// waits for it. Webhooks use it.
        public var onFinished: (@Sendable (ReceiptOutcome) -> Void)?
        /// What the program adds to a failed receipt's error before it is stored in the record
        /// (its `lastError`): the `receipts` CLI names its flags (see `ErrorAdvice`).
        public var advice: ErrorAdvice = .none

        public init(taxonomy: Taxonomy = .default, workers: Int = ProcessInfo.processInfo.activeProcessorCount,
                    retry: RetryPolicy = RetryPolicy(), leaseDuration: TimeInterval = 60, pollInterval: TimeInterval = 1,
                    store: StoreConfiguration = StoreConfiguration()) {
            self.taxonomy = taxonomy
            self.workers = max(1, workers)
            self.retry = retry
            self.leaseDuration = max(0.05, leaseDuration)
            self.pollInterval = max(0.01, pollInterval)
            self.store = store
        }
    }

    /// The store. Not public: a library's user (a backend) reaches receipts only through the
    /// pipeline's methods, each of which takes the scope it may see; the queue's unscoped
    /// methods (`claim(id:)`…) stay inside the package.
    package let store: any ReceiptStore
    /// Where submitted bytes are kept (a folder, or the PostgreSQL database).
    package let images: any ImageRepository
    public let configuration: Configuration
    let queue: ReceiptQueue
    let logger: Logger

    /// Opens (or creates) the SQLite store at `storePath` with its `images/` folder beside it.
    /// Throws `ReceiptError` when the file cannot be opened, is damaged or is locked.
    public convenience init(storePath: String, processor: any ReceiptProcessing,
                            configuration: Configuration = Configuration(), logger: Logger) throws {
        let store = try SQLiteReceiptStore(path: storePath, configuration: configuration.store)
        self.init(store: store, images: ImageStore(besideDatabase: store.location), processor: processor,
                  configuration: configuration, logger: logger)
    }

    /// Uses any store; `images` is where submitted bytes are kept.
    public init(store: any ReceiptStore, images: any ImageRepository, processor: any ReceiptProcessing,
                configuration: Configuration = Configuration(), logger: Logger) {
        self.store = store
        self.images = images
        self.configuration = configuration
        self.logger = logger
        let identity = WorkerIdentity()
        WorkerIdentity.register(identity.instance)
        queue = ReceiptQueue(store: store, images: images, processor: processor, configuration: configuration,
                             identity: identity, logger: logger)
    }

    deinit {
        WorkerIdentity.unregister(queue.identity.instance)
    }

    // MARK: Submitting

    /// Submits an image file for `ownership` (its owner must be a user of the store); returns the
    /// pending receipt. The same bytes submitted before by the same owner (and end user) return
    /// the existing receipt (not processed again) unless `force`; when that receipt failed, it is
    /// put back in the queue (attempts reset) and processed again. A file that cannot be read
    /// becomes a `failed` receipt whose `lastError` names the file and the cause.
    @discardableResult
    public func submit(imageAt path: String, as ownership: Ownership, force: Bool = false) async throws -> Receipt {
        try await queue.submit(path: path, as: ownership, force: force).receipt
    }

    /// Submits image bytes held in memory (kept durably before this returns); `filename` names the
    /// receipt in `filePath` and errors. Known bytes are handled as in `submit(imageAt:as:force:)`.
    /// `source` says where the bytes came from (the e-mail message), kept in the new receipt's record.
    @discardableResult
    public func submit(imageData: Data, filename: String, as ownership: Ownership, force: Bool = false,
                       source: ReceiptSource? = nil) async throws -> Receipt {
        try await queue.submit(data: imageData, displayPath: filename, as: ownership, force: force, source: source).receipt
    }

    /// `submit(imageData:filename:as:force:source:)`, saying whether the receipt is new: false when
    /// the owner (and end user) had these bytes already, and this is that receipt, with the group
    /// and metadata it was first given. `contentHash` is the bytes' `ContentHash.hex` when the
    /// caller computed it (an upload's bytes are hashed once).
    public func submitReporting(imageData: Data, filename: String, as ownership: Ownership, force: Bool = false,
                                source: ReceiptSource? = nil, contentHash: String? = nil) async throws -> (receipt: Receipt, isNew: Bool) {
        try await queue.submit(data: imageData, displayPath: filename, as: ownership, force: force, source: source, contentHash: contentHash)
    }

    /// Returns the receipt in `scope` once it is completed or failed (processed by this process's
    /// workers or any other process's). Throws `ReceiptError.notFound` for an id unknown in
    /// `scope`, `CancellationError` when the task is cancelled.
    func waitForCompletion(of id: UUID, in scope: Scope) async throws -> Receipt {
        let poll = Duration.milliseconds(Int64(configuration.pollInterval * 1000))
        while true {
            try Task.checkCancellation()
            let generation = queue.finished.generation
            guard let receipt = try await store.receipt(id: id, in: scope) else {
                throw ReceiptError(.notFound, "no receipt with id \(id.uuidString.lowercased())", file: store.location)
            }
            if receipt.ocrStatus == .completed || receipt.ocrStatus == .failed { return receipt }
            await queue.finished.wait(since: generation, timeout: poll)
        }
    }

    // MARK: Queries

    /// How many receipts of everyone wait to be read (pending or processing): the queue's length,
    /// for a server's back-pressure and readiness. No receipt is read.
    public func waitingCount() async throws -> Int { try await store.waitingCount() }

    /// How many receipts of everyone are in each status: for metrics. No receipt is read.
    public func queueStatusCounts() async throws -> [OCRStatus: Int] { try await store.statusCounts(in: .everyone) }

    func expense(forReceipt id: UUID, in scope: Scope) async throws -> Expense? { try await store.expense(receiptId: id, in: scope) }

    /// The receipt in `scope` of bytes with this `ContentHash.hex`, if any.
    func receipt(contentHash: String, in scope: Scope) async throws -> Receipt? {
        try await store.receipt(contentHash: contentHash, in: scope)
    }


    // MARK: Running

    /// Runs the workers on every pending receipt of the store until a graceful shutdown (SIGTERM
    /// through a `ServiceGroup`): then no new receipt is taken and those in hand are finished. When
    /// the task is cancelled instead, receipts in hand go back to pending. Expired leases are
    /// reclaimed on start and periodically.
    public func run() async throws {
        logger.debug("Queue workers starting", metadata: ["queue.workers": "\(configuration.workers)",
                                                         "store.path": "\(store.location)"])
        try await queue.reclaim()
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<configuration.workers {
                    group.addTask { await self.queue.serviceWorker(index) }
                }
                group.addTask { await cancelWhenGracefulShutdown { await self.queue.reclaimLoop() } }
                group.addTask { await cancelWhenGracefulShutdown { await self.queue.relayStoreChanges() } }
            }
        } onGracefulShutdown: {
            // Idle workers wake and see the shutdown; busy ones finish the receipt in hand.
            self.queue.workAvailable.notifyAll()
        }
        logger.debug("Queue workers stopped", metadata: ["store.path": "\(store.location)"])
    }

    /// Processes a batch filed as `ownership` and reports each receipt as soon as it is completed
    /// or failed, in the order they finish. Receipts already completed (same bytes, same owner)
    /// are reported at once, unless `force`; failed ones are processed again (and not reported as
    /// duplicates). Files that cannot be read are reported as failed. The stream ends when every
    /// item is reported; it throws a `ReceiptError` when the store cannot be used. Ending the
    /// iteration early cancels the batch (receipts in hand go back to pending).
    public func process(_ items: [BatchItem], as ownership: Ownership, force: Bool = false) -> AsyncThrowingStream<ReceiptOutcome, Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await self.process(items, as: ownership, force: force) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// `process(_:as:force:)` for image files (paths as given).
    public func process(files: [String], as ownership: Ownership, force: Bool = false) -> AsyncThrowingStream<ReceiptOutcome, Error> {
        process(files.map(BatchItem.file), as: ownership, force: force)
    }

    /// Processes a batch, calling `onOutcome` for each receipt as soon as it is completed or failed.
    /// `.receipt(id)` items must be `ownership.owner`'s.
    public func process(_ items: [BatchItem], as ownership: Ownership, force: Bool = false,
                        onOutcome: @escaping @Sendable (ReceiptOutcome) async -> Void) async throws {
        let scope = Scope.owner(ownership.owner)
        try await queue.reclaim()
        let tracker = BatchTracker()
        let queue = self.queue
        let store = self.store
        // Candidate pictures, once read together: reported as one receipt, or split apart and
        // their receipts added to the batch (ReceiptPipeline+Candidates.swift).
        let emit: @Sendable (ReceiptOutcome) async -> Void = { outcome in
            guard let paths = await tracker.takeCandidate(outcome.receipt.id) else { return await onOutcome(outcome) }
            await self.resolve(outcome, candidates: paths, as: ownership, tracker: tracker, onOutcome: onOutcome)
            await tracker.resolved(outcome.receipt.id)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for item in items {
                    try Task.checkCancellation()
                    var name = item.displayName
                    let receipt: Receipt
                    let isNew: Bool
                    switch item {
                    case let .file(path):
                        (receipt, isNew) = try await queue.submit(path: path, as: ownership, force: force)
                    case let .candidates(paths):
                        switch try await queue.submit(candidates: paths, as: ownership, force: force) {
                        case .apart:
                            for path in paths {
                                let (receipt, isNew) = try await queue.submit(path: path, as: ownership, force: force)
                                try await self.report(receipt, name: path, isNew: isNew, scope: scope, tracker: tracker, onOutcome: onOutcome)
                            }
                            continue
                        case let .together(receipt, isNew):
                            if receipt.ocrStatus == .completed || receipt.ocrStatus == .failed {
                                let expense = try await store.expense(receiptId: receipt.id, in: scope)
                                await self.resolve(ReceiptOutcome(source: name, receipt: receipt, expense: expense, isDuplicate: !isNew),
                                                   candidates: paths, as: ownership, tracker: tracker, onOutcome: onOutcome)
                            } else {
                                await tracker.add(candidate: receipt.id, paths: paths, source: .init(name: name, isDuplicate: !isNew))
                            }
                            continue
                        }
                    case let .data(data, filename):
                        (receipt, isNew) = try await queue.submit(data: data, displayPath: filename, as: ownership, force: force)
                    case let .pictures(paths):
                        (receipt, isNew) = try await queue.submit(paths: paths, as: ownership, force: force)
                    case let .receipt(id):
                        guard let found = try await store.receipt(id: id, in: scope) else {
                            throw ReceiptError(.notFound, "no receipt with id \(id.uuidString.lowercased())", file: store.location)
                        }
                        // A stored receipt is named as it was filed (`IMG_2041.jpg in "Fwd: receipt" from …`), not by its id.
                        (receipt, isNew, name) = (found, true, found.filePath)
                    }
                    try await self.report(receipt, name: name, isNew: isNew, scope: scope, tracker: tracker, onOutcome: onOutcome)
                }
                await tracker.closeSubmissions()
            }
            for index in 0..<configuration.workers {
                group.addTask { try await queue.batchWorker(index, tracker: tracker, emit: emit) }
            }
            group.addTask { await queue.reclaimLoop() }
            if store.announcesChanges {
                group.addTask { await queue.relayStoreChanges() }
            }
            // The submissions and the workers end when the batch is done; then stop the reclaim
            // loop and the listener.
            for _ in 0...configuration.workers { try await group.next() }
            group.cancelAll()
            try await group.waitForAll()
        }
    }
}
