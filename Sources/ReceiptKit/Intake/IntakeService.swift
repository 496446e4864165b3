import Foundation
import Synchronization
import Logging
import ServiceLifecycle

/// Turns a watched folder into receipts: each file that has stopped changing is submitted to a
/// `ReceiptPipeline`, and once it is completed or failed the image is moved to the processed
/// folder with a `<name>.json` sidecar (its NDJSON record), or to the failed folder with
/// `<name>.error.txt` (the one-line error).
///
/// ```swift
/// let pipeline = try ReceiptPipeline(storePath: store, processor: processor, logger: logger)
/// let intake = IntakeService(pipeline: pipeline, configuration: IntakeConfiguration(directory: "/srv/inbox"), logger: logger)
/// try await ServiceGroup(services: [processor.engine, pipeline, intake], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger).run()
/// ```
///
/// The OCR engine and the pipeline must be running (its workers do the reading); list them before the intake, so a
/// graceful shutdown stops the intake first and the workers finish what is in hand.
///
/// Exactly once across restarts: the store knows every image by content, so a file seen again
/// (left in place by a stop or a crash between "completed" and "moved") is not read again; it is
/// filed with the result the store has. With `keep`, a ledger in the processed folder remembers
/// the files handled, so a restart does not file them again either.
public final class IntakeService: Service, Sendable {
    public let configuration: IntakeConfiguration
    let pipeline: ReceiptPipeline
    let logger: Logger
    let counts = SummaryBox()
    let filer: IntakeFiler
    private let watcher: FolderWatcher

    public init(pipeline: ReceiptPipeline, configuration: IntakeConfiguration, logger: Logger) {
        self.pipeline = pipeline
        self.configuration = configuration
        self.logger = logger
        filer = IntakeFiler(processedDirectory: configuration.processedDirectory,
                            failedDirectory: configuration.failedDirectory, keep: configuration.keep)
        watcher = FolderWatcher(configuration: configuration.watcher, logger: logger)
    }

    /// What this service did so far (for `--once`'s exit status, or a health check).
    public var summary: IntakeSummary { counts.value }

    /// How far the folder's watcher has got, and the files it reported that are not handled yet
    /// (submitted, waited for and filed): for a program or a test that waits for the intake to
    /// settle rather than for time.
    public var progress: (watch: WatchProgress, unhandled: Int) {
        let watch = watcher.progress
        return (watch, watch.reported - counts.handled)
    }

    /// Watches until a graceful shutdown (or, with `once`, until what was there is handled).
    /// On shutdown no new file is taken; receipts in flight are waited for up to `shutdownGrace`,
    /// then left for the next start (their files stay where they are). Throws `ReceiptError` when
    /// the folder is missing or an output folder cannot be created.
    public func run() async throws {
        let configuration = self.configuration
        try await BlockingIO.run { try Self.prepareOutputFolders(configuration) }
        let ledger: KeepLedger? = configuration.keep
            ? try await BlockingIO.run { try KeepLedger(path: configuration.processedDirectory + "/.receipts-keep.ndjson") }
            : nil
        let watcher = self.watcher
        let files = Self.joined(try watcher.stableFiles(once: configuration.once), within: configuration.joinPictures)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Bool.self) { group in
                // Child results: true, a file handled; false, the shutdown grace ran out.
                group.addTask {
                    // Once a graceful shutdown starts, the receipts in flight get the grace to finish.
                    guard (try? await gracefulShutdown()) != nil else { return false }
                    try? await Task.sleep(for: .milliseconds(Int64(configuration.shutdownGrace * 1000)))
                    return false
                }
                var inFlight = 0
                for await work in files {
                    if Task.isShuttingDownGracefully { break }
                    while inFlight >= configuration.maxInFlight, let handled = await group.next() {
                        if handled { inFlight -= 1 } else { group.cancelAll() }
                    }
                    if Task.isShuttingDownGracefully { break }
                    switch work {
                    case let .file(file):
                        self.counts.started()
                        group.addTask {
                            await self.handle(file, ledger: ledger, watcher: watcher)
                            self.counts.ended()
                            return true
                        }
                    case let .pictures(pictures, name):
                        for _ in pictures { self.counts.started() }
                        group.addTask {
                            await self.handle(pictures: pictures, name: name, ledger: ledger, watcher: watcher)
                            for _ in pictures { self.counts.ended() }
                            return true
                        }
                    }
                    inFlight += 1
                }
                if Task.isShuttingDownGracefully, self.counts.inFlight > 0 {
                    self.logger.debug("Intake stopping; waiting for receipts in flight", metadata: [
                        "intake.inFlight": "\(self.counts.inFlight)", "intake.grace": "\(configuration.shutdownGrace)",
                    ])
                }
                // Wait for the files in hand; when the grace runs out, those still waiting for their
                // receipt are left for the next start (their files stay where they are).
                while inFlight > 0, let handled = await group.next() {
                    if handled { inFlight -= 1 } else { group.cancelAll() }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            watcher.stop()
        }
        watcher.stop()
        let summary = self.summary
        logger.debug("Intake stopped", metadata: [
            "intake.folder": "\(configuration.directory)", "intake.completed": "\(summary.completed)",
            "intake.duplicates": "\(summary.duplicates)", "intake.failed": "\(summary.failed)",
            "intake.notFiled": "\(summary.notFiled)",
        ])
    }

    private static func prepareOutputFolders(_ configuration: IntakeConfiguration) throws {
        for folder in [configuration.processedDirectory, configuration.failedDirectory] {
            let watched = FolderWatcher.absolute(configuration.directory), output = FolderWatcher.absolute(folder)
            if watched == output || watched.hasPrefix(output + "/") {
                throw ReceiptError(.outputFolder, file: folder,
                                  "an output folder cannot be the watched folder or hold it; name a folder inside it or elsewhere")
            }
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw ReceiptError(.outputFolder, file: folder, "cannot create the output folder; check permissions or name another",
                                  cause: error.localizedDescription)
            }
            guard FileManager.default.isWritableFile(atPath: folder) else {
                throw ReceiptError(.outputFolder, file: folder, "the output folder is not writable; check its permissions")
            }
        }
    }

    // MARK: One file

    /// The receipts this folder files: its user's (and end user's) own.
    var scope: Scope {
        let ownership = configuration.ownership
        return ownership.externalUser.map { .externalUser($0, of: ownership.owner) } ?? .owner(ownership.owner)
    }

    func handle(_ file: WatchedFile, ledger: KeepLedger?, watcher: FolderWatcher) async {
        let started = ContinuousClock.now
        var metadata: Logger.Metadata = ["intake.file": "\(file.relativePath)"]
        do {
            if let ledger, ledger.entry(for: file.path)?.signature == file.signature {
                logger.debug("File already handled", metadata: metadata)
                return
            }
            guard let (receipt, submittedAsDuplicate, hash) = try await submit(file, ledger: ledger) else { return }
            try await settle(file, receipt: receipt, isDuplicate: submittedAsDuplicate, hash: hash, ledger: ledger,
                             started: started, metadata: &metadata)
        } catch {
            notFiled(error, [file], metadata: &metadata, watcher: watcher)
        }
    }

    /// Waits for a file's receipt to be completed or failed, files the file with its sidecar,
    /// records it in the ledger (`keep`) and logs it.
    func settle(_ file: WatchedFile, receipt: Receipt, isDuplicate: Bool, hash: String?, ledger: KeepLedger?,
                started: ContinuousClock.Instant, metadata: inout Logger.Metadata) async throws {
        var done = receipt
        if done.ocrStatus != .completed && done.ocrStatus != .failed {
            done = try await pipeline.waitForCompletion(of: receipt.id, in: scope)
        }
        let expense = done.ocrStatus == .completed ? try await pipeline.expense(forReceipt: done.id, in: scope) : nil
        var outcome = ReceiptOutcome(source: file.path, receipt: done, expense: expense, isDuplicate: isDuplicate)
        let filer = self.filer
        if !outcome.isDuplicate {
            // Filed from this very path before: the same file dropped again, not one a stop left behind.
            let earlier = Self.filing(outcome, file: file)
            outcome.isDuplicate = try await BlockingIO.run { filer.wasFiledBefore(file, earlier) }
        }
        let filing = Self.filing(outcome, file: file)
        let destination = try await BlockingIO.run { try filer.file(file, filing) }
        if let ledger {
            try await BlockingIO.run { try ledger.record(file.path, hash: hash, signature: file.signature) }
        }
        logFiled(outcome, destination: destination, started: started, metadata: &metadata)
    }

    /// Reads, hashes and submits the file, or finds the receipt the store already has for these
    /// bytes. Nil when there is nothing to do (the file went away, or `keep` says it is handled).
    private func submit(_ file: WatchedFile, ledger: KeepLedger?) async throws -> (Receipt, Bool, String?)? {
        let read = try await BlockingIO.run { () -> (Result<(Data, String), ReceiptError>, Bool) in
            let read = BlockingIO.readImage(at: file.path).map { ($0, ContentHash.hex(of: $0)) }
            return (read, IntakeFiler.exists(file.path))
        }
        switch read.0 {
        case .failure:
            // Gone before it could be read (moved away or deleted): nothing to file.
            guard read.1 else { return nil }
            // Unreadable: the store records a failed receipt naming the file and the cause.
            return (try await pipeline.submit(imageAt: file.path, as: configuration.ownership), false, nil)
        case let .success((data, hash)):
            if let ledger, ledger.entry(for: file.path)?.hash == hash {
                // Same bytes as when it was handled (only touched): just remember the new mtime.
                try await BlockingIO.run { try ledger.record(file.path, hash: hash, signature: file.signature) }
                return nil
            }
            let receipt: Receipt
            let known = try await pipeline.receipt(contentHash: hash, in: scope)
            if let known, known.ocrStatus != .failed {
                receipt = known
            } else {
                // New bytes, or bytes whose receipt failed: submitting puts that one back in the
                // queue, to be tried again for this file (as `process` does).
                receipt = try await pipeline.submit(imageData: data, filename: file.path, as: configuration.ownership)
            }
            // The store's receipt for these bytes came from another file: a duplicate. The same
            // path means this file was submitted by an earlier run that stopped before filing it.
            // A failed receipt tried again is this file's own result, not a duplicate.
            return (receipt, known?.ocrStatus != .failed && receipt.filePath != file.path, hash)
        }
    }

    /// The sidecar of a completed receipt (its NDJSON record plus `duplicate`, and `duplicateOf`
    /// naming the file first seen with these bytes), or the one-line error of a failed one.
    static func filing(_ outcome: ReceiptOutcome, file: WatchedFile) -> IntakeFiler.Outcome {
        let receipt = outcome.receipt
        guard receipt.ocrStatus == .completed else {
            let cause = receipt.lastError ?? "\(receipt.filePath): failed"
            if outcome.isDuplicate {
                return .failed("\(file.path): same image as \(receipt.filePath), which failed: \(cause)")
            }
            return .failed(failure(cause, of: receipt, at: file.path))
        }
        guard case var .object(pairs) = outcome.record.json else { return .processed(outcome.record.json, receiptId: receipt.id) }
        pairs.append(("duplicate", .bool(outcome.isDuplicate)))
        if outcome.isDuplicate { pairs.append(("duplicateOf", .string(receipt.filePath))) }
        return .processed(.object(pairs), receiptId: receipt.id)
    }

    /// A failed receipt's error as this file's: naming this file once. The error names the file
    /// the receipt was first read from, when these bytes failed before elsewhere and were read
    /// again for this file (issue 56: `DIR/a.jpg: ELSEWHERE/a.jpg: truncated JPEG`).
    static func failure(_ cause: String, of receipt: Receipt, at path: String) -> String {
        let own = receipt.filePath + ": "
        let said = cause.hasPrefix(own) && receipt.filePath != path ? String(cause.dropFirst(own.count)) : cause
        return said.hasPrefix(path + ": ") ? said : "\(path): \(said)"
    }

    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.3f", value)
    }

    /// A receipt's files not filed: left in place for the next start (a stop cut the work short),
    /// or for the next rescan (the cause — a full disk, a locked store — may pass), logged and counted.
    func notFiled(_ error: any Error, _ files: [WatchedFile], metadata: inout Logger.Metadata, watcher: FolderWatcher) {
        if error is CancellationError || Task.isCancelled {
            logger.debug(files.count == 1 ? "File left for the next start" : "Files left for the next start", metadata: metadata)
            return
        }
        metadata["error.message"] = "\(error)"
        logger.warning("Receipt not filed; left in place", metadata: metadata)
        counts.update { $0.notFiled += 1 }
        for file in files { watcher.forget(file.path) }
    }

    /// Logs a receipt filed (one line: its status, id, vendor, total, time and where it went) and
    /// counts it: a file's and a long receipt's pictures alike.
    func logFiled(_ outcome: ReceiptOutcome, destination: String, started: ContinuousClock.Instant, metadata: inout Logger.Metadata) {
        let done = outcome.receipt
        let status = done.ocrStatus == .failed ? "failed" : outcome.isDuplicate ? "duplicate" : "completed"
        metadata["receipt.status"] = "\(status)"
        metadata["receipt.id"] = "\(done.id.uuidString.lowercased())"
        metadata["receipt.vendor"] = "\(done.analysis?.vendor ?? "")"
        // As every door prints money: the currency's minor units (`7.50`, not `7.5`).
        metadata["receipt.total"] = "\(done.analysis.flatMap { a in a.total.map { Money.format($0, currency: a.currency) } } ?? "")"
        metadata["receipt.elapsed"] = "\(Self.seconds(ContinuousClock.now - started))"
        metadata["intake.filedAs"] = "\(destination)"
        if let error = outcome.error {
            metadata["error.message"] = "\(outcome.isDuplicate ? error : Self.failure(error, of: done, at: outcome.source))"
        }
        logger.log(level: done.ocrStatus == .failed ? configuration.failureLogLevel : configuration.receiptLogLevel,
                   "Receipt filed", metadata: metadata)
        counts.update {
            if done.ocrStatus == .failed { $0.failed += 1 } else { $0.completed += 1 }
            if outcome.isDuplicate { $0.duplicates += 1 }
        }
    }
}

/// `IntakeSummary` and the number of files in hand, behind a lock, updated by concurrent file handlers.
final class SummaryBox: Sendable {
    private let state = Mutex((summary: IntakeSummary(), running: 0, handled: 0))

    var value: IntakeSummary { state.withLock { $0.summary } }

    /// Files being handled right now.
    var inFlight: Int { state.withLock { $0.running } }
    func started() { state.withLock { $0.running += 1 } }
    /// Files handled (taken from the watcher and done with), for `IntakeService.progress`.
    var handled: Int { state.withLock { $0.handled } }
    func ended() { state.withLock { $0.running -= 1; $0.handled += 1 } }

    func update(_ change: (inout IntakeSummary) -> Void) { state.withLock { change(&$0.summary) } }
}
