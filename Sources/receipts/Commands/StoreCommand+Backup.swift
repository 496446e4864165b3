import ArgumentParser
import Foundation
import Logging
import ReceiptKit
import ReceiptPostgres

extension StoreCommand {
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup",
            abstract: "Take a consistent snapshot of the store and its images into a backup folder.",
            discussion: """
                Safe while `serve`, `watch`, `mail` or workers write to the store: a SQLite store is \
                copied with SQLite's online backup API, a PostgreSQL store's rows are read in one \
                REPEATABLE READ transaction. Every receipt in the snapshot has its image; a receipt \
                accepted while the backup runs is in it whole or not at all.

                DEST holds images/ (by content: a second backup to the same folder copies only new \
                images) and one folder per snapshot, receipts-<UTC time>/. The backup checks itself \
                (PRAGMA integrity_check on the copy, the SHA-256 of every image it names) and writes \
                its manifest.json last, then puts the snapshot in place: an interrupted backup is \
                never taken for a complete one, and the snapshots before it stay usable. The next \
                backup clears what an interrupted one left.

                Restore with `receipts store restore DEST --to STORE` (the newest snapshot) or name a \
                snapshot's folder. On a schedule: `receipts serve --backup-dir DEST --backup-every 24h --keep 7`.

                The snapshot's path is printed on stdout, a summary on stderr.

                Example:
                  receipts store backup /mnt/backup/receipts --keep 7
                """)

        @Argument(help: ArgumentHelp("The backup folder (created when new).", valueName: "dest"))
        var destination: String

        @Option(help: ArgumentHelp("Keep only the newest N snapshots (and the images they name); default: all.", valueName: "n"))
        var keep: Int?

        @Option(name: .customLong("pause-at"), help: ArgumentHelp("Stop at this point and wait (for tests that kill a backup).",
                                                                   visibility: .hidden))
        var pauseAt: String?

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            if let keep, keep < 1 { throw ValidationError("--keep must be 1 or more.") }
            if let pauseAt, StoreArchive.Pause(rawValue: pauseAt) == nil { throw ValidationError("--pause-at images|manifest") }
        }

        func run() async throws {
            let logger = logging.bootstrap()
            let started = Date()
            try await Self.naming {
                let opened = try await storeOptions.open(logger: logger)
                defer { opened.close() }
                let summary = try await StoreArchive.backup(
                    from: opened.administration, images: opened.images, to: destination, keep: keep,
                    pause: pauseAt.flatMap(StoreArchive.Pause.init(rawValue:)),
                    paused: { FileHandle.standardError.write(Data("receipts store backup: paused at \(pauseAt ?? "")\n".utf8)) })
                print(summary.path)
                for hash in summary.missingImages {
                    printError("image \(hash) was gone when it was copied (its receipt was deleted while the backup ran?); the snapshot lacks it")
                }
                if !logging.quiet {
                    let removed = summary.removed.isEmpty ? "" : "; removed \(summary.removed.count) old snapshots and \(summary.imagesRemoved) images no snapshot names"
                    FileHandle.standardError.write(Data("""
                        backed up \(opened.administration.location) to \(summary.path): \(summary.kind == "sqlite" ? "database copy" : "\(summary.rows) rows") \
                        \(Self.size(summary.snapshotBytes)), \(summary.imagesCopied) images copied (\(Self.size(summary.bytesCopied))), \
                        \(summary.imagesKept) already there; checked (integrity, every image's SHA-256) in \
                        \(String(format: "%.1f", Date().timeIntervalSince(started))) s\(removed)

                        """.utf8))
                }
            }
        }

        static func size(_ bytes: Int) -> String {
            bytes >= 1 << 20 ? String(format: "%.1f MB", Double(bytes) / 1_048_576) : String(format: "%.0f kB", Double(bytes) / 1024)
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write everything in the store to one portable archive file.",
            discussion: """
                Users, groups and their members, API tokens (the SHA-256 of their secret only: they \
                sign in again after a restore), users' webhooks (with their signing secrets), receipts \
                with their records, expenses with their corrections and who made them, possible-duplicate \
                links, idempotency keys, the webhook outbox, e-mail messages and mailbox watermarks, and \
                every image. One tar file: data/<entity>.jsonl (documented JSON lines), images/ab/<sha256>, \
                and manifest.json (format version, counts, the SHA-256 of every file). Read from one \
                consistent snapshot while other processes go on. The file is written under a temporary \
                name and put in place when whole; it is readable by you only (it holds webhook secrets). \
                An existing file is not replaced unless --force.

                Restore it on any machine, into SQLite or PostgreSQL: receipts store restore FILE --to STORE.

                Example:
                  receipts store export --archive receipts-2024-05-01.tar
                """)

        @Option(help: ArgumentHelp("The archive file to write.", valueName: "file"))
        var archive: String

        @Flag(help: "Replace the archive file when it exists.")
        var force = false

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: archive, isDirectory: &isFolder) else { return }
            if isFolder.boolValue { throw ValidationError("--archive \(archive) is a folder: give the archive file's name.") }
            if !force { throw ValidationError("--archive \(archive) exists: give a new name, or --force to replace it.") }
        }

        func run() async throws {
            let logger = logging.bootstrap()
            let started = Date()
            try await Self.naming {
                let opened = try await storeOptions.open(logger: logger)
                defer { opened.close() }
                let summary = try await StoreArchive.export(from: opened.administration, images: opened.images, to: archive)
                for hash in summary.missingImages {
                    printError("image \(hash) is missing from the store (or damaged); the archive lacks it")
                }
                if !logging.quiet {
                    let rows = ["receipts", "expenses", "users", "tokens"].map { "\(summary.rows[$0] ?? 0) \($0)" }.joined(separator: ", ")
                    FileHandle.standardError.write(Data("""
                        exported \(opened.administration.location) to \(summary.path): \(rows), \(summary.images) images; \
                        \(Backup.size(summary.bytes)) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s

                        """.utf8))
                }
            }
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Restore an archive or a backup into an empty store (SQLite or PostgreSQL).",
            discussion: """
                SOURCE is an archive (`store export --archive`), a backup folder (its newest complete \
                snapshot) or one snapshot's folder. It is checked whole first — every file's and every \
                image's SHA-256 against its manifest — and a damaged, incomplete or cut-short one is \
                refused with one line naming what is wrong; nothing is written then.

                The store must be empty (a new SQLite file is made; a new PostgreSQL database gets its \
                schema): a store with records is refused unless --merge, which adds what it lacks and \
                skips what it has (by id, and a receipt whose image its owner has already). Rows are \
                written in one transaction. A newer receipts restores an older archive.

                A receipt that was being read comes back pending: a worker reads it again.

                Example (a new machine):
                  receipts store restore /mnt/backup/receipts --to ~/.local/share/receipts/receipts.sqlite
                  receipts store restore receipts.tar --to postgres://me@db/receipts
                """)

        @Argument(help: ArgumentHelp("The archive file, backup folder or snapshot folder.", valueName: "source"))
        var source: String

        @Option(help: ArgumentHelp("The store to restore into: a SQLite path or a PostgreSQL URL.", valueName: "path-or-url"))
        var to: String

        @Option(help: ArgumentHelp("Put the images in this folder instead of the store's default place.", valueName: "dir"))
        var images: String?

        @Flag(help: "Restore into a store that has records: skip what it has (by id and by image), add the rest.")
        var merge = false

        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = logging.bootstrap()
            let started = Date()
            try await Self.naming {
                // Checked whole before the store is even opened: a damaged source writes nothing.
                let archive = try StoreArchive.Source.open(source)
                var options = StoreOptions()
                options.store = to
                options.images = images
                let opened = try await options.open(logger: logger)
                defer { opened.close() }
                let summary = try await StoreArchive.restore(archive, into: opened.administration, images: opened.images, merge: merge)
                if !logging.quiet {
                    let rows = ["receipts", "expenses", "users", "tokens"].map { "\(summary.written[$0] ?? 0) \($0)" }.joined(separator: ", ")
                    let skipped = summary.skipped.values.reduce(0, +)
                    let skip = merge ? ", \(skipped) rows there already (skipped)" : ""
                    FileHandle.standardError.write(Data("""
                        restored \(summary.source) (made \(archive.createdAt)) into \(opened.administration.location): \(rows), \
                        \(summary.images) images\(skip) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s

                        """.utf8))
                }
            }
        }
    }
}

extension AsyncParsableCommand {
    /// Runs the command's work; a `ReceiptError` is printed on one line naming its file (the
    /// archive, the store) and the command exits 1.
    static func naming(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ReceiptError {
            printError(error)
            throw ExitCode(1)
        }
    }
}
