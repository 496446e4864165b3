import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// `receipts store backup`, `export --archive` and `restore` as a user runs them: a backup taken
/// while `serve` accepts 200 uploads restores to a store where each accepted upload is whole or
/// came after the snapshot; a backup killed with SIGKILL leaves the one before it intact and
/// usable; a damaged archive is refused with one line and nothing is written; `serve --backup-dir`
/// backs up on its own and says so on /metrics.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: ReceiptsCLI.binary.path)))
struct BackupCommandsTests {
    /// A SQLite store with `count` receipts (each with its image), made through the library: OCR is not what is tested.
    static func addReceipts(_ count: Int, from start: Int, to path: String) async throws -> [UUID] {
        let store = try SQLiteReceiptStore(path: path)
        let images = ImageStore(besideDatabase: store.location)
        var ids: [UUID] = []
        for n in start..<start + count {
            let data = Data("receipt \(n) ".utf8) + Data(repeating: UInt8(n % 251), count: 2048)
            let hash = ContentHash.hex(of: data)
            let reference = try await images.store(data, hash: hash)
            ids.append(try await store.insert(Receipt(filePath: "r\(n).jpg", contentHash: hash, ownership: .admin), imagePath: reference,
                                              deduplicate: true).receipt.id)
        }
        return ids
    }

    /// Each receipt of the SQLite store at `path`, with whether its image is there whole (its bytes hash to its content hash).
    static func wholeReceipts(_ path: String) async throws -> [UUID: Bool] {
        let store = try SQLiteReceiptStore(path: path)
        let images = ImageStore(besideDatabase: store.location)
        var whole: [UUID: Bool] = [:]
        for receipt in try await store.receipts(ReceiptQuery(), in: .everyone) {
            let reference = try await store.imagePath(ofReceipt: receipt.id, in: .everyone)
            var data: Data?
            if let reference { data = try? await images.load(reference) }
            whole[receipt.id] = data.map { ContentHash.hex(of: $0) } == receipt.contentHash
        }
        return whole
    }

    @Test func aBackupKilledMidwayLeavesThePreviousOneIntactAndUsable() async throws {
        let dir = try TemporaryDirectory()
        let store = dir.storePath
        let first = try await Self.addReceipts(20, from: 0, to: store)
        let backups = dir.path("backups")
        let done = try await ReceiptsCLI.run(["store", "backup", backups, "--store", store])
        #expect(done.status == 0, "\(done.err)")
        let snapshot = done.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(FileManager.default.fileExists(atPath: snapshot + "/manifest.json"))
        let later = try await Self.addReceipts(20, from: 20, to: store)

        for stage in ["images", "manifest"] {
            let process = Process()
            let errors = try CapturedOutput()
            process.executableURL = ReceiptsCLI.binary
            process.arguments = ["store", "backup", backups, "--store", store, "--pause-at", stage]
            process.environment = ReceiptsCLI.environment()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors.handle
            try process.run()
            #expect(try await eventually(timeout: 60) { errors.text.contains("paused at \(stage)") }, "\(errors.text)")
            kill(process.processIdentifier, SIGKILL)
            try await OffPool.run { process.waitUntilExit() }
            // The killed one left its unfinished snapshot; the complete one is as it was.
            let names = try FileManager.default.contentsOfDirectory(atPath: backups)
            #expect(names.contains { $0.hasPrefix(".partial-") }, "\(stage): \(names)")
            #expect(StoreArchive.snapshots(in: backups) == [(snapshot as NSString).lastPathComponent], "\(stage)")

            let restored = dir.path("restored-\(stage)/receipts.sqlite")
            let restore = try await ReceiptsCLI.run(["store", "restore", backups, "--to", restored])
            #expect(restore.status == 0, "\(restore.err)")
            let whole = try await Self.wholeReceipts(restored)
            #expect(Set(whole.keys) == Set(first) && whole.values.allSatisfy { $0 }, "\(stage): the earlier backup, whole")
        }

        // The next backup clears what the killed ones left and has everything.
        let next = try await ReceiptsCLI.run(["store", "backup", backups, "--store", store, "--keep", "1"])
        #expect(next.status == 0, "\(next.err)")
        #expect(next.err.contains("20 images copied") || next.err.contains("images copied"), "\(next.err)")
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: backups)).contains { $0.hasPrefix(".partial-") })
        let restored = dir.path("restored-last/receipts.sqlite")
        #expect(try await ReceiptsCLI.run(["store", "restore", backups, "--to", restored]).status == 0)
        let whole = try await Self.wholeReceipts(restored)
        #expect(Set(whole.keys) == Set(first + later) && whole.values.allSatisfy { $0 })
        // Into a store with records: refused without --merge, nothing written; with it, nothing new.
        let again = try await ReceiptsCLI.run(["store", "restore", backups, "--to", restored])
        #expect(again.status == 1 && again.err.contains("is not empty") && again.err.contains("--merge"), "\(again.err)")
        let merged = try await ReceiptsCLI.run(["store", "restore", backups, "--to", restored, "--merge"])
        #expect(merged.status == 0 && merged.err.contains("0 receipts"), "\(merged.err)")
    }

    @Test func aDamagedArchiveIsRefusedWithOneLineAndNothingIsWritten() async throws {
        let dir = try TemporaryDirectory()
        let store = dir.storePath
        _ = try await Self.addReceipts(5, from: 0, to: store)
        let archive = dir.path("receipts.tar")
        let exported = try await ReceiptsCLI.run(["store", "export", "--archive", archive, "--store", store])
        #expect(exported.status == 0 && exported.err.contains("5 receipts"), "\(exported.err)")
        let attributes = try FileManager.default.attributesOfItem(atPath: archive)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "an archive holds secrets: readable by its owner only")

        var data = try Data(contentsOf: URL(fileURLWithPath: archive))
        // A byte of the first image (after the rows: the data files come first), flipped.
        let text = String(decoding: data, as: UTF8.self)
        let imageHeader = try #require(text.range(of: "images/")).lowerBound.utf16Offset(in: text)
        data[imageHeader + 512 + 10] ^= 0xFF
        let damaged = try dir.write("damaged.tar", data)
        let target = dir.path("new/receipts.sqlite")
        let refused = try await ReceiptsCLI.run(["store", "restore", damaged, "--to", target])
        #expect(refused.status == 1)
        let lines = refused.err.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(damaged) && lines[0].contains("is damaged"), "\(refused.err)")
        #expect(!FileManager.default.fileExists(atPath: target) && !FileManager.default.fileExists(atPath: dir.path("new")), "nothing written")

        let cut = try dir.write("cut.tar", data.prefix(data.count - 3000))
        let truncated = try await ReceiptsCLI.run(["store", "restore", cut, "--to", target])
        #expect(truncated.status == 1 && truncated.err.contains("truncated") && truncated.err.split(separator: "\n").count == 1, "\(truncated.err)")
        #expect(!FileManager.default.fileExists(atPath: target))

        let good = try await ReceiptsCLI.run(["store", "restore", archive, "--to", target])
        #expect(good.status == 0 && good.err.contains("5 receipts"), "\(good.err)")
        #expect(try await Self.wholeReceipts(target).values.filter { $0 }.count == 5)
    }

    /// 200 uploads to `receipts serve --workers 0` while `receipts store backup` runs twice: every
    /// upload answered before a backup began is in its snapshot with its image, every receipt in a
    /// snapshot is whole, and nothing is there that was not accepted.
    @Test func aBackupWhileUploadsArriveHoldsEachAcceptedUploadWholeOrNotAtAll() async throws {
        let dir = try TemporaryDirectory()
        let store = dir.storePath
        let scheduled = dir.path("scheduled")
        let server = try await ServeCommandTests.Server(store: store, arguments: ["--workers", "0", "--backup-dir", scheduled,
                                                                                 "--backup-every", "1h", "--keep", "2"])
        // The scheduled backup runs at start (the folder has none yet) and /metrics says when it finished.
        #expect(try await eventuallyAsync(timeout: 60) {
            let metrics = String(decoding: try await server.send("GET", "/metrics").body, as: UTF8.self)
            return metrics.contains("receipts_backup_last_success_timestamp_seconds") && metrics.contains(#"receipts_backups_total{outcome="success"} 1"#)
        })
        #expect(StoreArchive.snapshots(in: scheduled).count == 1)

        let base = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("photo-lowres-carwash.jpg")))
        let accepted = Accepted()
        let backups = dir.path("backups")
        var starts: [Date] = []
        var snapshots: [String] = []
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withThrowingTaskGroup(of: Void.self) { uploads in
                    for lane in 0..<8 {
                        uploads.addTask {
                            for n in stride(from: lane, to: 200, by: 8) {
                                // The same picture with other bytes after its end: 200 distinct uploads.
                                let body = base + Data("upload-\(n)".utf8)
                                let (status, json) = try await server.json("POST", "/v1/receipts?filename=u\(n).jpg", body: body,
                                                                           headers: ["Content-Type": "image/jpeg"])
                                if status == 201 || status == 202, let id = json["receiptId"]?.stringValue.flatMap(UUID.init(uuidString:)) {
                                    accepted.add(id, at: Date())
                                }
                            }
                        }
                    }
                    try await uploads.waitForAll()
                }
            }
            for after in [40, 120] {
                _ = try await eventually(timeout: 120) { accepted.count >= after }
                starts.append(Date())
                let backup = try await ReceiptsCLI.run(["store", "backup", backups, "--store", store])
                #expect(backup.status == 0, "\(backup.err)")
                snapshots.append(backup.out.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            try await group.waitForAll()
        }
        #expect(accepted.count == 200)
        for (snapshot, start) in zip(snapshots, starts) {
            let restored = dir.path("restored-\((snapshot as NSString).lastPathComponent)/receipts.sqlite")
            let restore = try await ReceiptsCLI.run(["store", "restore", snapshot, "--to", restored])
            #expect(restore.status == 0, "\(restore.err)")
            let whole = try await Self.wholeReceipts(restored)
            #expect(whole.values.allSatisfy { $0 }, "a receipt without its image")
            let before = accepted.ids(before: start)
            #expect(before.isSubset(of: Set(whole.keys)), "\(before.subtracting(whole.keys).count) uploads accepted before the backup are missing")
            #expect(Set(whole.keys).isSubset(of: accepted.all), "a receipt that was never accepted")
            #expect(whole.count >= before.count && !before.isEmpty)
        }
        #expect(try await server.stop())
    }

    final class Accepted: @unchecked Sendable {
        private let lock = NSLock()
        private var answered: [(UUID, Date)] = []

        func add(_ id: UUID, at date: Date) { lock.withLock { answered.append((id, date)) } }
        var count: Int { lock.withLock { answered.count } }
        var all: Set<UUID> { lock.withLock { Set(answered.map(\.0)) } }
        func ids(before date: Date) -> Set<UUID> { lock.withLock { Set(answered.filter { $0.1 < date }.map(\.0)) } }
    }
}
