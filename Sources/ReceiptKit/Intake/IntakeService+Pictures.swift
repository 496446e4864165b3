import Foundation
import Logging
import Synchronization

/// What the intake takes next: a file, or the pictures of one long receipt.
enum IntakeWork: Sendable {
    case file(WatchedFile)
    /// `NAME-1.jpg`, `NAME-2.jpg`… in number order, and NAME.
    case pictures([WatchedFile], name: String)
}

/// The watched folder's long receipts: pictures named `NAME-1.jpg`, `NAME-2.jpg`… (in one folder)
/// that arrive within `joinPictures` seconds of each other are candidates to be one receipt of
/// several pictures: they are read together, and are one receipt, filed together with one sidecar
/// (`NAME.json`), when the join finds that each overlaps the one before as parts of one receipt.
/// A number in a name is no evidence of that (`scan-1.jpg`, `scan-2.jpg` may be two receipts):
/// pictures that share no row with the one before are receipts of their own, each filed with
/// its own sidecar, as `receipts process` reads them. A name ending in a date never joins
/// (`PictureGroup.member`).
extension IntakeService {
    /// The watcher's files as work: with `window`, a file named `NAME-<n>` waits until no other
    /// picture of NAME has arrived for `window` seconds, then goes with them (or alone, when it is
    /// the only one). When the watcher's stream ends (`--once`), the pictures waiting go at once.
    static func joined(_ files: AsyncStream<WatchedFile>, within window: TimeInterval?) -> AsyncStream<IntakeWork> {
        AsyncStream { continuation in
            guard let window else {
                let task = Task {
                    for await file in files { continuation.yield(.file(file)) }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
                return
            }
            let waiting = WaitingPictures()
            let limit = Duration.milliseconds(Int64(window * 1000))
            let timer = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(Int64(min(250, max(20, window * 250)))))
                    for work in waiting.take(dueBy: .now) { continuation.yield(work) }
                }
            }
            let feeder = Task {
                for await file in files {
                    let name = (file.relativePath as NSString).lastPathComponent
                    guard let (base, number) = PictureGroup.member((name as NSString).deletingPathExtension) else {
                        continuation.yield(.file(file))
                        continue
                    }
                    waiting.add(file, base: base, number: number, due: .now + limit)
                }
                timer.cancel()
                for work in waiting.take(dueBy: nil) { continuation.yield(work) }
                continuation.finish()
            }
            continuation.onTermination = { _ in
                feeder.cancel()
                timer.cancel()
            }
        }
    }

    /// Candidate pictures of one long receipt: read together, then filed together with one
    /// sidecar named for the receipt when they were joined; otherwise split into receipts of the
    /// pictures that overlap (`ScopedPipeline.split`), each filed on its own.
    func handle(pictures files: [WatchedFile], name: String, ledger: KeepLedger?, watcher: FolderWatcher) async {
        let started = ContinuousClock.now
        var metadata: Logger.Metadata = ["intake.file": "\(files.map(\.relativePath).joined(separator: " + "))"]
        do {
            if let ledger, files.allSatisfy({ ledger.entry(for: $0.path)?.signature == $0.signature }) {
                logger.debug("Files already handled", metadata: metadata)
                return
            }
            let read = try await BlockingIO.run { files.map { file in BlockingIO.readImage(at: file.path).map { ($0, ContentHash.hex(of: $0)) } } }
            var pictures: [ReceiptPicture] = [], hashes: [String] = [], hashOf: [String: String] = [:]
            var present: [WatchedFile] = []
            var unreadable = false
            for (file, result) in zip(files, read) {
                switch result {
                case let .success((data, hash)):
                    pictures.append(ReceiptPicture(data: data, name: file.path))
                    hashes.append(hash)
                    hashOf[file.path] = hash
                    present.append(file)
                case .failure:
                    // Gone (moved away or deleted): left out. Still there but unreadable: read
                    // alone, it fails naming itself.
                    if IntakeFiler.exists(file.path) {
                        present.append(file)
                        unreadable = true
                    }
                }
            }
            // One picture left, or one that cannot be read: each is a receipt of its own.
            if present.count < 2 || unreadable {
                for file in present { await handle(file, ledger: ledger, watcher: watcher) }
                return
            }
            let hash = ContentHash.hex(ofPictures: hashes)
            let receipt: Receipt
            var duplicate = false
            if let known = try await pipeline.receipt(contentHash: hash, in: scope), known.ocrStatus != .failed {
                receipt = known
                duplicate = known.filePath != present[0].path
            } else if try await knownAlone(hashes) {
                // Each picture is a receipt of its own already (these pictures were split before):
                // found by its bytes, not read again.
                for file in present { await handle(file, ledger: ledger, watcher: watcher) }
                return
            } else {
                receipt = try await pipeline.submit(pictures: pictures, as: configuration.ownership)
            }
            var done = receipt
            if done.ocrStatus != .completed && done.ocrStatus != .failed {
                done = try await pipeline.waitForCompletion(of: receipt.id, in: scope)
            }
            // This folder's own reading (a receipt of these pictures made elsewhere, read as one on
            // purpose, is left as it is): split when they are not one receipt.
            if !duplicate, let parts = Self.parts(of: done, pictures: present.count),
               let made = try await split(done, into: parts, metadata: metadata) {
                try await file(made, parts: parts, present, hashOf: hashOf, name: name, ledger: ledger)
                return
            }
            try await file(done, pictures: present, isDuplicate: duplicate, hashOf: hashOf, name: name, ledger: ledger,
                           started: started, metadata: &metadata)
        } catch {
            notFiled(error, files, metadata: &metadata, watcher: watcher)
        }
    }

    /// How candidate pictures read together are to be split: the runs of pictures that overlap
    /// (positions from 1) when some picture shares no row with the one before, one picture each
    /// when they could not be read together; nil when they are one receipt.
    static func parts(of receipt: Receipt, pictures count: Int) -> [[Int]]? {
        if receipt.ocrStatus == .failed { return (1...count).map { [$0] } }
        guard let runs = receipt.analysis?.pictureRuns, runs.count > 1, runs.flatMap({ $0 }) == Array(1...count) else { return nil }
        return runs
    }

    /// Whether the owner has each of these pictures as a receipt of its own, read or being read.
    private func knownAlone(_ hashes: [String]) async throws -> Bool {
        for hash in hashes {
            guard let known = try await pipeline.receipt(contentHash: hash, in: scope), known.ocrStatus != .failed else { return false }
        }
        return true
    }

    /// Splits candidate pictures that are not one receipt into the receipts `parts` says; nil when
    /// the receipt cannot be split (its expense was confirmed meanwhile: a person's record).
    private func split(_ receipt: Receipt, into parts: [[Int]], metadata: Logger.Metadata) async throws -> [(receipt: Receipt, isNew: Bool)]? {
        logger.debug("Pictures are not one receipt; read apart", metadata: metadata.merging([
            "receipt.id": "\(receipt.id.uuidString.lowercased())", "receipt.parts": "\(parts)",
        ]) { $1 })
        do {
            return try await pipeline.scoped(to: Principal(filing: configuration.ownership)).split(receipt.id, into: parts)
        } catch let error as ReceiptError where error.code == .invalidState {
            return nil
        }
    }

    /// Each receipt a split made, read and filed on its own (a picture alone as any file, pictures
    /// that overlap together).
    private func file(_ split: [(receipt: Receipt, isNew: Bool)], parts: [[Int]], _ files: [WatchedFile], hashOf: [String: String],
                      name: String, ledger: KeepLedger?) async throws {
        for (part, made) in zip(parts, split) {
            let own = part.map { files[$0 - 1] }
            let started = ContinuousClock.now
            var metadata: Logger.Metadata = ["intake.file": "\(own.map(\.relativePath).joined(separator: " + "))"]
            let duplicate = !made.isNew && made.receipt.filePath != own[0].path
            if own.count == 1 {
                try await settle(own[0], receipt: made.receipt, isDuplicate: duplicate, hash: hashOf[own[0].path], ledger: ledger,
                                 started: started, metadata: &metadata)
            } else {
                var done = made.receipt
                if done.ocrStatus != .completed && done.ocrStatus != .failed {
                    done = try await pipeline.waitForCompletion(of: done.id, in: scope)
                }
                try await file(done, pictures: own, isDuplicate: duplicate, hashOf: hashOf, name: name, ledger: ledger,
                               started: started, metadata: &metadata)
            }
        }
    }

    /// Files the pictures of one receipt together with one sidecar named `name`.
    private func file(_ done: Receipt, pictures present: [WatchedFile], isDuplicate: Bool, hashOf: [String: String], name: String,
                      ledger: KeepLedger?, started: ContinuousClock.Instant, metadata: inout Logger.Metadata) async throws {
        let expense = done.ocrStatus == .completed ? try await pipeline.expense(forReceipt: done.id, in: scope) : nil
        let outcome = ReceiptOutcome(source: present[0].path, receipt: done, expense: expense, isDuplicate: isDuplicate)
        var filing = Self.filing(outcome, file: present[0])
        if case let .processed(.object(pairs), id) = filing {
            filing = .processed(.object(pairs + [("pictures", .array(present.map { .string($0.path) }))]), receiptId: id)
        }
        let filer = self.filer
        let (filed, sidecar) = (present, filing)
        let destination = try await BlockingIO.run { try filer.file(pictures: filed, sidecar, stem: name) }
        if let ledger {
            let recorded = present.map { ($0.path, hashOf[$0.path], $0.signature) }
            try await BlockingIO.run { for (path, hash, signature) in recorded { try ledger.record(path, hash: hash, signature: signature) } }
        }
        metadata["receipt.pictures"] = "\(present.count)"
        logFiled(outcome, destination: destination, started: started, metadata: &metadata)
    }
}

/// Pictures of long receipts waiting for their others, by folder and NAME.
final class WaitingPictures: Sendable {
    private struct Group: Sendable {
        var name: String
        var members: [Member]
        var due: ContinuousClock.Instant
    }

    private struct Member: Sendable {
        var number: Int
        var file: WatchedFile
    }

    private let groups = Mutex<[String: Group]>([:])

    func add(_ file: WatchedFile, base: String, number: Int, due: ContinuousClock.Instant) {
        let key = ((file.relativePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent(base)
        groups.withLock { groups in
            var group = groups[key] ?? Group(name: base, members: [], due: due)
            // The same picture seen again (it changed): the newer one.
            group.members.removeAll { $0.file.path == file.path }
            group.members.append(Member(number: number, file: file))
            group.due = due
            groups[key] = group
        }
    }

    /// The groups due by `time` (nil: all), taken out: a lone picture as a file, several as one receipt.
    func take(dueBy time: ContinuousClock.Instant?) -> [IntakeWork] {
        let due = groups.withLock { groups in
            let keys = groups.filter { time == nil || $0.value.due <= time! }.map(\.key).sorted()
            return keys.compactMap { groups.removeValue(forKey: $0) }
        }
        return due.map { group in
            let files = group.members.sorted { $0.number < $1.number }.map(\.file)
            return files.count == 1 ? .file(files[0]) : .pictures(files, name: group.name)
        }
    }
}
