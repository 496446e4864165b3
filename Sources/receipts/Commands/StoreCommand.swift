import ArgumentParser
import Foundation
import Logging
import ReceiptKit
import ReceiptPostgres

struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Manage the store: back it up, export and restore everything, copy a SQLite store into PostgreSQL.",
        discussion: """
            What to back up, how often, and how to restore on a new machine: docs/backup.md.
              receipts store backup /mnt/backup/receipts            a snapshot (safe while serve, watch and workers run)
              receipts store export --archive receipts.tar          everything, as one portable file
              receipts store restore /mnt/backup/receipts --to ~/.local/share/receipts/receipts.sqlite
            """,
        subcommands: [Backup.self, Export.self, Restore.self, Migrate.self])

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Copy a SQLite store (users, groups, tokens, receipts, statuses, expenses, images) into a PostgreSQL store.",
            discussion: """
                For a user who outgrows one machine: afterwards `receipts worker`, `process`, `watch` \
                and `serve` with --store postgres://… carry on where the SQLite store left off. \
                Receipts keep their ids, statuses, attempts, times, drafted expenses and corrections; \
                their images go into the database (or --images DIR). A receipt that was processing \
                comes in pending. Users, groups and their members, API tokens (they keep working: their \
                hashes are copied) and users' webhooks come along; each receipt stays its owner's.

                Idempotent: receipts already in the target are skipped, so an interrupted copy is \
                finished by running it again. The source is only read. Into a store that has receipts \
                of its own, the same bytes stay one receipt: a receipt whose image the target has \
                already is not copied (each is named on stderr; the target's receipt and expense stay).

                Example:
                  receipts store migrate --from ~/.local/share/receipts/receipts.sqlite --to postgres://me@db/receipts
                """)

        @Option(help: ArgumentHelp("The SQLite store to copy.", valueName: "path"))
        var from: String

        @Option(help: ArgumentHelp("The PostgreSQL store to copy into (postgres://user:password@host:5432/db; the password may come from $PGPASSWORD).",
                                   valueName: "url"))
        var to: String

        @Option(help: ArgumentHelp("Put the images in this folder (shared by the hosts) instead of the database.", valueName: "dir"))
        var images: String?

        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = logging.bootstrap()
            do {
                guard case .sqlite = try StoreLocation(from) else {
                    throw ValidationError("--from must be a SQLite store (a path), not a URL")
                }
                guard FileManager.default.fileExists(atPath: from) else {
                    throw ReceiptError(.cannotOpen, "no store here; give the path of an existing SQLite store", file: from)
                }
                guard case let .postgres(postgres) = try StoreLocation(to) else {
                    throw ValidationError("--to must be a PostgreSQL URL (postgres://user@host:5432/db)")
                }
                let sourceStore = try SQLiteReceiptStore(path: from, configuration: StoreConfiguration(readOnly: true))
                let source = (store: sourceStore, images: ImageStore(besideDatabase: sourceStore.location))
                let targetStore = try await PostgresReceiptStore.open(postgres, logger: logger)
                defer { targetStore.close() }
                let targetImages: any ImageRepository = images.map { ImageStore(directory: URL(fileURLWithPath: $0).standardizedFileURL) }
                    ?? PostgresImageRepository(store: targetStore)
                let quiet = logging.quiet
                let summary = try await StoreCopier(from: source.store, images: source.images, to: targetStore, images: targetImages)
                    .copy { done, total in
                        if !quiet, done % 100 == 0 || done == total {
                            FileHandle.standardError.write(Data("\rcopied \(done)/\(total)".utf8))
                        }
                    }
                if !quiet, summary.copied + summary.alreadyThere > 0 { FileHandle.standardError.write(Data("\n".utf8)) }
                for file in summary.missingImages {
                    printError("\(file): its stored image was missing from \(source.images.location); copied without it")
                }
                if !quiet {
                    for (file, receipt) in summary.sameImage {
                        FileHandle.standardError.write(Data("""
                            \(file): not copied: the same image is receipt \(receipt.uuidString.lowercased()) in \(targetStore.location) already (kept as it is)

                            """.utf8))
                    }
                }
                let same = summary.sameImage.isEmpty ? "" : ", \(summary.sameImage.count) with the same image as a receipt already there"
                let accounts = summary.accounts
                FileHandle.standardError.write(Data("""
                    \(summary.copied) receipts copied into \(targetStore.location), \(summary.alreadyThere) already there\(same), \
                    \(summary.images) images; \(accounts.users) users, \(accounts.groups) groups, \(accounts.tokens) tokens, \
                    \(accounts.webhooks) webhooks

                    """.utf8))
            } catch let error as ReceiptError {
                printError(error)
                throw ExitCode(1)
            }
        }
    }
}
