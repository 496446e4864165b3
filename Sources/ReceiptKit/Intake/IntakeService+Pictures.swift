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
/// that arrive within `joinPictures` seconds of each other are read as one receipt of several
/// pictures, and filed together with one sidecar (`NAME.json`).
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

    /// One long receipt's pictures: read together (or found by all their bytes together), then
    /// filed together with one sidecar named for the receipt.
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
                    // Gone (moved away or deleted): left out. Still there but unreadable: the
                    // receipt fails naming it.
                    if IntakeFiler.exists(file.path) {
                        present.append(file)
                        unreadable = true
                    }
                }
            }
            guard !present.isEmpty else { return }
            let receipt: Receipt
            var duplicate = false
            if unreadable {
                receipt = try await pipeline.submit(picturesAt: present.map(\.path), as: configuration.ownership)
            } else {
                let hash = pictures.count == 1 ? hashes[0] : ContentHash.hex(ofPictures: hashes)
                let known = try await pipeline.receipt(contentHash: hash, in: scope)
                if let known, known.ocrStatus != .failed {
                    receipt = known
                    duplicate = known.filePath != present[0].path
                } else if pictures.count == 1 {
                    receipt = try await pipeline.submit(imageData: pictures[0].data, filename: present[0].path, as: configuration.ownership)
                } else {
                    receipt = try await pipeline.submit(pictures: pictures, as: configuration.ownership)
                }
            }
            var done = receipt
            if done.ocrStatus != .completed && done.ocrStatus != .failed {
                done = try await pipeline.waitForCompletion(of: receipt.id, in: scope)
            }
            let expense = done.ocrStatus == .completed ? try await pipeline.expense(forReceipt: done.id, in: scope) : nil
            let outcome = ReceiptOutcome(source: present[0].path, receipt: done, expense: expense, isDuplicate: duplicate)
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
        } catch {
            notFiled(error, files, metadata: &metadata, watcher: watcher)
        }
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
