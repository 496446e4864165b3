import ArgumentParser
import Foundation
import Logging
import ReceiptKit
import ReceiptPostgres
import ReceiptServerStore

/// `--store PATH|URL` and `--images DIR`, shared by every command that uses the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The receipts store: a SQLite file (created on first use, images kept in images/ beside it) or a PostgreSQL URL.",
        discussion: """
            A path, sqlite:PATH or file:///PATH is SQLite, the default. postgres://user:password@host:5432/database\
            (?sslmode=disable|prefer|require) is a PostgreSQL database that worker hosts share; the \
            password may instead come from $PGPASSWORD, and it is never printed. Precedence: --store, \
            else $RECEIPTS_STORE, else $XDG_DATA_HOME/receipts/receipts.sqlite, else \
            ~/.local/share/receipts/receipts.sqlite. Any other scheme:// is refused (exit 2).
            """,
        valueName: "path-or-url"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp(
        "Keep receipt images in this folder instead of the store's default (SQLite: images/ beside the file; PostgreSQL: its image table).",
        discussion: "With PostgreSQL and several hosts, the folder must be shared and mounted at the same path on every host.",
        valueName: "dir"))
    var images: String?

    /// A store named with an unknown scheme (`postgress://`, `mysql://`) is a usage error.
    func validate() throws {
        do {
            _ = try location()
        } catch let error as ReceiptError {
            throw ValidationError(error.advised.description)
        }
    }

    /// The store as given, by the precedence above (may hold a password: never print it).
    func resolvedPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let store, !store.isEmpty { return store }
        if let fromEnvironment = environment["RECEIPTS_STORE"], !fromEnvironment.isEmpty { return fromEnvironment }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/receipts/receipts.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/receipts/receipts.sqlite"
    }

    /// The store, parsed (a PostgreSQL URL's password masked in its description).
    func location() throws -> StoreLocation {
        try StoreLocation(resolvedPath())
    }

    /// The kinds of store this executable opens besides SQLite (which ReceiptKit opens itself), for
    /// `ReceiptPipeline.open`: PostgreSQL.
    static let drivers: [any StoreDriver] = [PostgresStoreDriver()]

    /// A store as this executable opens it: both kinds, SQLite and PostgreSQL, keep what `serve`
    /// and `token` need, so the store comes typed as a `ServerStore` (never cast).
    struct Opened: Sendable {
        var store: any ServerStore
        var images: any ImageRepository
        /// Backup, export and restore (`receipts store`), held apart from `store`.
        var administration: any StoreAdministration
        var close: @Sendable () -> Void = {}
    }

    /// Opens the store (and where its images are): a SQLite file, or a PostgreSQL database
    /// (ReceiptPostgres) with a pool of up to `maximumConnections`.
    func open(maximumConnections: Int = 8, logger: Logger = Logger(label: "receipts.store")) async throws -> Opened {
        let folder = images.map { ImageStore(directory: URL(fileURLWithPath: $0).standardizedFileURL) }
        switch try location() {
        case let .sqlite(path):
            let store = try SQLiteReceiptStore(path: path)
            return Opened(store: store, images: folder ?? ImageStore(besideDatabase: store.location), administration: store)
        case let .postgres(postgres):
            let store = try await PostgresReceiptStore.open(postgres, maximumConnections: maximumConnections, logger: logger)
            return Opened(store: store, images: folder ?? PostgresImageRepository(store: store), administration: store,
                          close: { store.close() })
        }
    }

    /// The store, for commands that only read and change records; its errors name `--store`.
    func openStore() async throws -> any ServerStore {
        do {
            return try await open().store
        } catch let error as ReceiptError {
            throw error.advised
        }
    }
}

extension StoreOptions {
    /// Parses `YYYY-MM-DD` for `--from` / `--to`.
    static func date(_ text: String?, option: String) throws -> CalendarDate? {
        guard let text else { return nil }
        guard let date = CalendarDate(iso: text) else {
            throw ValidationError("\(option) expects a date as YYYY-MM-DD, got '\(text)'")
        }
        return date
    }
}
