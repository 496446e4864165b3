import ArgumentParser
import Foundation
import Logging
import ReceiptEvaluation
import ReceiptKit
import ReceiptServerStore

/// `receipts eval --replay`: each folder read in order as one person (alice) who confirms each
/// receipt with its truth, in a store of its own (a SQLite file in a temporary folder): the receipt
/// is submitted, read with alice's memory of shops, completed (its possible duplicates found as the
/// queue finds them), then confirmed — which teaches the memory as a person's confirmation does.
/// Each receipt is also read without the memory, and scored both ways (`ReplayReport`).
///
/// With `--rename SUFFIX`, alice confirms each shop as "<printed name> SUFFIX", and a second person
/// (bob) replays the folder in the same store under the printed names: none of alice's naming may
/// show on his receipts. With `--second-pictures N`, the first N receipts are photographed again
/// (cropped 3 %, turned 2°, saved again as JPEG) and submitted after their confirmation: each must
/// be caught as `possibleDuplicateOf` its first picture; bob's copies of them never are.
extension EvalCommand {
    func replay(_ sets: [(String, [LabelledReceipt])], with processor: ReceiptProcessor, logger: Logger) async throws {
        if let ocrCache { try FileManager.default.createDirectory(atPath: ocrCache, withIntermediateDirectories: true) }
        var reports: [ReplayReport] = []
        var dump = CandidateDump.header(readers: processor.readers) + "\n"
        let started = Date()
        var count = 0
        for (folder, receipts) in sets {
            let cacheDir = ocrCache.map { "\($0)/\(Self.cacheKey(folder))" }
            if let cacheDir {
                try? FileManager.default.createDirectory(atPath: cacheDir, withIntermediateDirectories: true)
                await prefetch(receipts, processor: processor, cacheDir: cacheDir)
            }
            var replayer = try await Replayer(folder: folder, processor: processor, suffix: rename, cacheDir: cacheDir)
            let progress = ProgressBar(total: receipts.count)
            for (index, receipt) in receipts.enumerated() {
                let on = try await replayer.replay(receipt, secondPicture: index < secondPictures)
                if dumpCandidates != nil, let on {
                    dump += CandidateDump.line(set: (folder as NSString).lastPathComponent, receipt: receipt, analysis: on) + "\n"
                }
                progress.advance(failed: on == nil)
            }
            progress.finish()
            count += receipts.count
            reports.append(replayer.report)
            try? FileManager.default.removeItem(at: replayer.dir)
        }
        if let dumpCandidates {
            do { try dump.write(toFile: dumpCandidates, atomically: true, encoding: .utf8) } catch {
                printError("\(dumpCandidates): cannot write the candidates (\(error.localizedDescription))")
                throw ExitCode(1)
            }
        }
        for report in reports {
            print(report.text)
            if misses {
                for miss in report.misses { print("  vendor\t\(miss.file)\t\(miss.kind)\texpected \(miss.expected)\tgot \(miss.got)") }
                for miss in report.identity.misses { print("  identity\t\(miss.file)\texpected \(miss.expected)\tgot \(miss.got)") }
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        FileHandle.standardError.write(Data(String(format: "%d receipts replayed in %.1f s\n", count, elapsed).utf8))
    }

    /// Reads every receipt's first readings into the cache beforehand, several at once (the replay
    /// itself goes one receipt after the other).
    private func prefetch(_ receipts: [LabelledReceipt], processor: ReceiptProcessor, cacheDir: String) async {
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func start() {
                guard next < receipts.count else { return }
                let receipt = receipts[next]
                next += 1
                group.addTask {
                    for url in receipt.pictures {
                        guard let data = try? ReceiptFile.read(url, file: url.lastPathComponent) else { continue }
                        _ = try? await Self.readings(of: data, name: receipt.pictures.count > 1 ? url.lastPathComponent : receipt.name,
                                                     processor: processor, cacheDir: cacheDir)
                    }
                }
            }
            for _ in 0..<max(1, pipeline.workers * 2) { start() }
            for await _ in group { start() }
        }
    }
}

/// One folder's replay: its store, its two people and what has been confirmed so far.
struct Replayer {
    let dir: URL
    let store: SQLiteReceiptStore
    let processor: ReceiptProcessor
    let cacheDir: String?
    let suffix: String?
    var report: ReplayReport
    /// The shops alice (and bob) confirmed so far, by their printed names.
    var confirmed = Set<String>(), bobConfirmed = Set<String>()
    static let alice = Principal(user: "alice"), bob = Principal(user: "bob")

    init(folder: String, processor: ReceiptProcessor, suffix: String?, cacheDir: String?) async throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        store = try SQLiteReceiptStore(path: dir.appendingPathComponent("replay.sqlite").path)
        for name in ["alice", "bob"] { _ = try await store.addUser(name: name, isAdmin: false, defaultGroup: nil, now: Date()) }
        self.processor = processor
        self.cacheDir = cacheDir
        self.suffix = suffix
        report = ReplayReport(folder: folder, suffix: suffix)
    }

    var taxonomy: Taxonomy { processor.options.taxonomy }

    /// Replays one receipt; returns its analysis with alice's memory (nil when it could not be read).
    mutating func replay(_ receipt: LabelledReceipt, secondPicture: Bool) async throws -> ReceiptAnalysis? {
        let shop = receipt.truth.vendor.map(NameMatching.normalized)
        let repeatShop = shop.map(confirmed.contains) ?? false
        let on = try? await EvalCommand.analyze(receipt, processor: processor.withMemory(store.memory(of: .user("alice"))), cacheDir: cacheDir)
        let off = try? await EvalCommand.analyze(receipt, processor: processor, cacheDir: cacheDir)
        report.add(file: receipt.name, truth: receipt.truth, on: on?.0, off: off?.0, repeatShop: repeatShop)
        guard let (analysis, ocr) = on else { return nil }
        let (_, expense) = try await submit(receipt.name, analysis: analysis, text: ocr.text, owner: "alice")
        if expense.possibleDuplicateOf != nil { report.firstFlagged.append(receipt.name) }
        try await confirm(expense, truth: receipt.truth, by: Self.alice, naming: suffix)
        if let shop { confirmed.insert(shop) }
        if secondPicture { try await retake(receipt, first: expense) }
        if suffix != nil { try await replayAsBob(receipt, shop: shop) }
        return analysis
    }

    /// Submits a read receipt for `owner` and completes it as the queue does; its drafted expense.
    func submit(_ name: String, analysis: ReceiptAnalysis, text: String, owner: String) async throws -> (Receipt, Expense) {
        let receipt = Receipt(filePath: name, contentHash: ContentHash.hex(of: Data((name + UUID().uuidString).utf8)),
                              ownership: Ownership(owner: owner))
        let stored = try await store.insert(receipt, imagePath: nil, deduplicate: false).receipt
        _ = try await store.claim(id: stored.id, Lease(holder: "replay", duration: 600))
        let work = CompletedWork(analysis: analysis, ocrText: text, expense: Expense.draft(from: analysis, receiptId: stored.id, taxonomy: taxonomy))
        guard let done = try await store.complete(id: stored.id, holder: "replay", work: work, now: Date()) else {
            throw ReceiptError(.invalidState, file: name, "the replay's store lost its hold on the receipt")
        }
        return done
    }

    /// Confirms the expense with the receipt's truth, as a person would (the vendor under the
    /// person's naming when a suffix is given).
    func confirm(_ expense: Expense, truth: GroundTruth, by who: Principal, naming suffix: String?) async throws {
        var correction = ExpenseCorrection()
        if let vendor = truth.vendor { correction.description = suffix.map { ReplayReport.named(vendor, suffix: $0) } ?? vendor }
        if let date = truth.date { correction.date = .some(date) }
        if let total = truth.total { correction.amount = .some(total) }
        if let tax = truth.tax { correction.taxAmount = .some(tax) }
        if let currency = truth.currency.flatMap(Currency.code) { correction.currency = .some(currency) }
        if let category = truth.category.flatMap({ taxonomy.category(named: $0)?.name }) { correction.category = category }
        correction.status = .confirmed
        try await store.scoped(to: who).correct(expenseId: expense.id, with: correction, taxonomy: taxonomy)
    }

    /// The receipt photographed again and submitted: it must be flagged as its first picture's duplicate.
    mutating func retake(_ receipt: LabelledReceipt, first: Expense) async throws {
        guard receipt.pictures.count == 1, let data = try? ReceiptFile.read(receipt.image, file: receipt.name),
              ImageFormat.sniff(data) != .pdf else { return }
        let again = try await processor.engine.retake(data, file: receipt.name)
        let name = "second-" + receipt.image.deletingPathExtension().lastPathComponent + ".jpg"
        let read = try await processor.withMemory(store.memory(of: .user("alice"))).process(imageData: again, displayPath: name)
        let (_, expense) = try await submit(name, analysis: read.analysis, text: read.ocr.text, owner: "alice")
        report.secondPictures += 1
        if expense.possibleDuplicateOf == first.id { report.secondCaught += 1 }
        // Bob's own copy of the first picture: his purchase, never alice's duplicate (with a naming,
        // bob replays every receipt anyway: `replayAsBob` counts them).
        if suffix == nil, let (analysis, ocr) = try? await EvalCommand.analyze(receipt, processor: processor.withMemory(store.memory(of: .user("bob"))),
                                                                 cacheDir: cacheDir) {
            let (_, bobs) = try await submit("bob-" + receipt.name, analysis: analysis, text: ocr.text, owner: "bob")
            report.otherOwnersCopies += 1
            if bobs.possibleDuplicateOf != nil { report.otherOwnersFlagged += 1 }
        }
    }

    /// Bob reads the receipt with his own memory and confirms it under the printed name: alice's
    /// naming must never show on his receipts.
    mutating func replayAsBob(_ receipt: LabelledReceipt, shop: String?) async throws {
        guard let suffix, let (analysis, ocr) = try? await EvalCommand.analyze(
            receipt, processor: processor.withMemory(store.memory(of: .user("bob"))), cacheDir: cacheDir) else { return }
        if let shop, bobConfirmed.contains(shop) {
            report.otherOwnerRepeats += 1
            if let vendor = analysis.vendor, vendor.hasSuffix(suffix.trimmingCharacters(in: .whitespaces)) { report.otherOwnerCarryingNaming += 1 }
        }
        let (_, expense) = try await submit("bob-" + receipt.name, analysis: analysis, text: ocr.text, owner: "bob")
        // Each of his receipts is another purchase of his: flagged only when taken for alice's.
        report.otherOwnersCopies += 1
        if expense.possibleDuplicateOf != nil { report.otherOwnersFlagged += 1 }
        try await confirm(expense, truth: receipt.truth, by: Self.bob, naming: nil)
        if let shop { bobConfirmed.insert(shop) }
    }
}
