import Foundation
import Logging

/// The queue's work: submitting receipts, and what a worker does with one it claimed. The loops
/// that drive workers are in `ReceiptQueue+Workers.swift`.
final class ReceiptQueue: Sendable {
    let store: any ReceiptStore
    let images: any ImageRepository
    let processor: any ReceiptProcessing
    let configuration: ReceiptPipeline.Configuration
    let identity: WorkerIdentity
    let logger: Logger
    /// Notified when a receipt is submitted or returned to pending.
    let workAvailable = WakeSignal()
    /// Notified when a receipt reaches completed or failed (or a retry is scheduled).
    let finished = WakeSignal()

    init(store: any ReceiptStore, images: any ImageRepository, processor: any ReceiptProcessing,
         configuration: ReceiptPipeline.Configuration, identity: WorkerIdentity, logger: Logger) {
        self.store = store
        self.images = images
        self.processor = processor
        self.configuration = configuration
        self.identity = identity
        self.logger = logger
    }

    var leaseDuration: TimeInterval { configuration.leaseDuration }

    // MARK: Submitting

    /// Stores the bytes, then a pending receipt (or returns the receipt that has these bytes).
    ///
    /// Bytes whose receipt failed are tried again: that receipt goes back to pending (attempts
    /// reset) and counts as new. Submitting them again is how a user says the cause is fixed (the
    /// API key, the quota, the network); a completed receipt is returned as it is. `process`,
    /// `watch` and the library all submit through here, so they agree on this.
    /// `contentHash`: the bytes' `ContentHash.hex`, when the caller has it already (they are hashed
    /// once per upload).
    func submit(data: Data, displayPath: String, as ownership: Ownership, force: Bool,
                source: ReceiptSource? = nil, contentHash: String? = nil) async throws -> (receipt: Receipt, isNew: Bool) {
        let hash: String
        if let contentHash { hash = contentHash } else { hash = try await BlockingIO.run { ContentHash.hex(of: data) } }
        let imagePath = try await images.store(data, hash: hash)
        let now = Date()
        let receipt = Receipt(filePath: displayPath, contentHash: hash, uploadTimestamp: now, createdAt: now, updatedAt: now,
                              ownership: ownership, source: source)
        return try await settle(try await store.insert(receipt, imagePath: imagePath, deduplicate: !force), as: ownership,
                                displayPath: displayPath, now: now)
    }

    /// A receipt just inserted (or found by its bytes): a failed one found again goes back to the
    /// queue, and a new one wakes a worker.
    func settle(_ inserted: (receipt: Receipt, isNew: Bool), as ownership: Ownership, displayPath: String,
                now: Date) async throws -> (receipt: Receipt, isNew: Bool) {
        var result = inserted
        let metadata: Logger.Metadata = ["receipt.id": "\(result.receipt.id.uuidString.lowercased())", "receipt.file": "\(displayPath)"]
        if !result.isNew, result.receipt.ocrStatus == .failed {
            do {
                result = (try await store.requeue(id: result.receipt.id, in: .owner(ownership.owner), now: now), true)
                logger.info("Failed receipt submitted again; back in the queue", metadata: metadata)
            } catch let error as ReceiptError where error.code == .invalidState {
                // Put back (or finished) by someone else since the insert: take it as it is now.
                result.receipt = try await store.receipt(id: result.receipt.id, in: .owner(ownership.owner)) ?? result.receipt
            }
        } else if result.isNew {
            logger.debug("Receipt submitted", metadata: metadata)
        } else {
            logger.debug("Receipt already known", metadata: metadata)
        }
        if result.isNew { workAvailable.notifyOne() }
        return result
    }

    /// Reads and submits a file. A file that cannot be read becomes a `failed` receipt naming the cause.
    func submit(path: String, as ownership: Ownership, force: Bool) async throws -> (receipt: Receipt, isNew: Bool) {
        switch try await BlockingIO.run({ BlockingIO.readImage(at: path) }) {
        case let .success(data):
            return try await submit(data: data, displayPath: path, as: ownership, force: force)
        case let .failure(error):
            let now = Date()
            let error = configuration.advice.apply(to: error)
            let receipt = Receipt(filePath: path, uploadTimestamp: now, ocrStatus: .failed, lastError: error.description,
                                  createdAt: now, updatedAt: now, ownership: ownership)
            let result = try await store.insert(receipt, imagePath: nil, deduplicate: false)
            logger.debug("Receipt failed", metadata: ["receipt.id": "\(receipt.id.uuidString.lowercased())", "receipt.file": "\(path)",
                                                     "error.message": "\(error.description)"])
            finished.notifyAll()
            return result
        }
    }

    // MARK: Reclaiming

    /// Returns abandoned and expired `processing` receipts to pending (or fails them after too many
    /// interrupted attempts).
    @discardableResult
    func reclaim() async throws -> [Receipt] {
        let identity = self.identity
        let changed = try await store.reclaim(now: Date(), maxAttempts: configuration.retry.maxAttempts,
                                              isAbandoned: { identity.isAbandoned($0) })
        if !changed.isEmpty {
            logger.info("Reclaimed interrupted receipts", metadata: [
                "queue.reclaimed": "\(changed.count)",
                "queue.failed": "\(changed.filter { $0.ocrStatus == .failed }.count)",
            ])
            workAvailable.notifyAll()
            finished.notifyAll()
        }
        return changed
    }

    // MARK: Processing one receipt

    /// What became of a claimed receipt.
    enum Result: Sendable {
        case completed(Receipt, Expense)
        case failed(Receipt)
        /// A transient failure: pending again, due at this time.
        case retry(Receipt, at: Date)
        /// Handed back (shutdown), or the lease was lost, or the store could not be written: the
        /// receipt is not ours any more; it is (or will be, once the lease expires) pending again.
        case released
    }

    func process(_ job: ClaimedJob, holder: String) async -> Result {
        let receipt = job.receipt
        let started = ContinuousClock.now
        var metadata: Logger.Metadata = ["receipt.id": "\(receipt.id.uuidString.lowercased())", "receipt.file": "\(receipt.filePath)",
                                         "receipt.attempt": "\(receipt.attempts)"]
        logger.debug("Receipt claimed", metadata: metadata)

        let outcome: Swift.Result<ProcessedReceipt, Error>
        switch await readPictures(of: job) {
        case let .success(pictures):
            outcome = await processKeepingLease(pictures, receipt: receipt, holder: holder)
        case let .failure(error):
            outcome = .failure(error)
        }

        let now = Date()
        do {
            switch outcome {
            case let .success(processed):
                let expense = Expense.draft(from: processed.analysis, receiptId: receipt.id,
                                            taxonomy: configuration.taxonomy, now: now)
                let work = CompletedWork(analysis: processed.analysis, ocrText: processed.ocr.text, expense: expense)
                let store = self.store
                guard let (done, stored) = try await Self.uncancelled({
                    try await store.complete(id: receipt.id, holder: holder, work: work, now: now)
                }) else {
                    logger.debug("Receipt lease lost", metadata: metadata)
                    return .released
                }
                metadata["receipt.elapsed"] = "\(ContinuousClock.now - started)"
                metadata["receipt.analyzer"] = "\(processed.analysis.analyzer)"
                if let duplicate = stored.possibleDuplicateOf { metadata["expense.possibleDuplicateOf"] = "\(duplicate.uuidString.lowercased())" }
                logger.debug("Receipt completed", metadata: metadata)
                finished.notifyAll()
                configuration.onFinished?(ReceiptOutcome(source: done.filePath, receipt: done, expense: stored, isDuplicate: false))
                return .completed(done, stored)

            case let .failure(error):
                if error is CancellationError || Task.isCancelled {
                    let store = self.store
                    try await Self.uncancelled { try await store.release(id: receipt.id, holder: holder, now: now) }
                    logger.debug("Receipt returned to the queue", metadata: metadata)
                    workAvailable.notifyAll()
                    return .released
                }
                // Whether to try again is the thrower's call (the remote client knows a rejected key
                // from a timeout); an error that gives no advice is permanent.
                let failure = configuration.advice.apply(to: ReceiptError.from(error, file: receipt.filePath))
                let message = failure.description
                let retryAt = failure.retry == .later
                    ? configuration.retry.retryDate(afterAttempts: receipt.attempts, now: now) : nil
                let store = self.store
                guard let failed = try await Self.uncancelled({
                    try await store.fail(id: receipt.id, holder: holder, error: message, retryAt: retryAt, now: now)
                }) else {
                    logger.debug("Receipt lease lost", metadata: metadata)
                    return .released
                }
                metadata["error.message"] = "\(message)"
                finished.notifyAll()
                if let retryAt {
                    metadata["retry.at"] = "\(retryAt)"
                    logger.debug("Receipt will be retried", metadata: metadata)
                    workAvailable.notifyAll()
                    return .retry(failed, at: retryAt)
                }
                logger.debug("Receipt failed", metadata: metadata)
                configuration.onFinished?(ReceiptOutcome(source: failed.filePath, receipt: failed, expense: nil, isDuplicate: false))
                return .failed(failed)
            }
        } catch {
            // The store could not be written; the lease expires and the receipt is taken again.
            metadata["error.message"] = "\(error)"
            logger.warning("Receipt result not stored", metadata: metadata)
            return .released
        }
    }

    /// The bytes of a claimed receipt: its stored copy, else the file it was submitted from.
    func readImage(of job: ClaimedJob) async -> Swift.Result<Data, ReceiptError> {
        let file = job.receipt.filePath
        guard let reference = job.imagePath else {
            return (try? await BlockingIO.run({ BlockingIO.readImage(at: file) }))
                ?? .failure(ReceiptError(.unreadable, file: file, "cannot read the image"))
        }
        do {
            return .success(try await images.load(reference))
        } catch let error as ReceiptError where error.isTransient {
            // The database is unreachable for a moment: try again later.
            return .failure(ReceiptError(error.code, file: file, error.message, cause: error.cause, retry: .later))
        } catch {
            let message = (error as? ReceiptError)?.message ?? "\(error)"
            return .failure(ReceiptError(.unreadable, file: file, "the stored copy of the image is missing or unreadable (\(message))"))
        }
    }

    /// Runs a store write to its end even when the worker's task is being cancelled: the result of
    /// work already done (or the hand-back of a receipt) must be recorded, and GRDB's async accesses
    /// stop at cancellation. The detached task is awaited, so it never outlives the worker. A
    /// transient failure (the database restarting, a connection cut) is tried again for up to
    /// `patience` seconds, so a receipt's OCR is not thrown away for a moment's outage; a write that
    /// did land before its answer was lost finds the receipt no longer leased and answers nil.
    static func uncancelled<T: Sendable>(patience: TimeInterval = 30,
                                         _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task.detached {
            let deadline = Date().addingTimeInterval(patience)
            var delay = 0.2
            while true {
                do {
                    return try await body()
                } catch let error as ReceiptError where error.isTransient && Date().addingTimeInterval(delay) < deadline {
                    try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
                    delay = min(delay * 2, 5)
                }
            }
        }.value
    }

    /// Runs the processor while renewing the lease every third of its duration.
    private func processKeepingLease(_ pictures: [ReceiptPicture], receipt: Receipt, holder: String) async -> Swift.Result<ProcessedReceipt, Error> {
        // The receipt is read with what its book remembers of shops (its owner's, group's or end user's).
        let processor = self.processor.remembering(store.memory(of: MemoryBook(receipt.ownership)))
        return await withTaskGroup(of: Swift.Result<ProcessedReceipt, Error>?.self) { group in
            group.addTask {
                do {
                    // A receipt of several pictures is read as one (ReceiptProcessor+Pictures.swift).
                    if pictures.count > 1 { return .success(try await processor.process(pictures: pictures, displayPath: receipt.filePath)) }
                    return .success(try await processor.process(imageData: pictures[0].data, displayPath: receipt.filePath))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                await self.keepLeased(receipt.id, holder: holder)
                return nil
            }
            while let result = await group.next() {
                if let result {
                    group.cancelAll()
                    return result
                }
            }
            return .failure(CancellationError())
        }
    }

    private func keepLeased(_ id: UUID, holder: String) async {
        let interval = Duration.milliseconds(Int64(max(0.01, leaseDuration / 3) * 1000))
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            do {
                guard try await store.renew(id: id, Lease(holder: holder, duration: leaseDuration)) else {
                    logger.debug("Receipt lease lost", metadata: ["receipt.id": "\(id.uuidString.lowercased())"])
                    return
                }
            } catch {
                logger.debug("Receipt lease not renewed", metadata: ["receipt.id": "\(id.uuidString.lowercased())", "error.message": "\(error)"])
            }
        }
    }
}
