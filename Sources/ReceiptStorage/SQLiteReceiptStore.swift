import Foundation
import ReceiptModel
import GRDB

/// Settings of the SQLite store.
public struct StoreConfiguration: Sendable {
    /// How long to wait for another process's lock before giving up with `ReceiptError.locked`.
    public var busyTimeout: TimeInterval
    /// Open without writing (no migration, no WAL switch): for `list`, `show`, `export`… of a store
    /// another process writes to. The file must exist.
    public var readOnly: Bool

    public init(busyTimeout: TimeInterval = 10, readOnly: Bool = false) {
        self.busyTimeout = busyTimeout
        self.readOnly = readOnly
    }
}

/// The default store: one SQLite file in WAL mode (readers never block the writer), created with
/// its folder on first use and migrated to the current schema when opened.
///
/// Several processes may share one file (SQLite's locks serialize the writes; each queue step is one
/// short transaction).
public final class SQLiteReceiptStore: ReceiptStore {
    public let location: String
    /// `DatabasePool` is Sendable: it serializes writes and runs reads concurrently.
    let pool: DatabasePool

    /// Opens (or creates) the store at `path`. Throws `ReceiptError` with a message naming the file
    /// and saying what to do when it is not a database, is damaged, is locked or cannot be created.
    public init(path: String, configuration: StoreConfiguration = StoreConfiguration()) throws {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        location = url.path
        let exists = FileManager.default.fileExists(atPath: location)
        if configuration.readOnly, !exists {
            throw ReceiptError(.cannotOpen, "no store here yet", file: location, hint: .storeMissing)
        }
        if !exists {
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                        withIntermediateDirectories: true)
            } catch {
                throw ReceiptError(.cannotOpen, "cannot create the folder for the store; check permissions",
                                 file: location, cause: error.localizedDescription, hint: .storeFolder)
            }
        }
        var config = Configuration()
        config.busyMode = .timeout(configuration.busyTimeout)
        config.foreignKeysEnabled = true
        config.readonly = configuration.readOnly
        config.label = "receipts.store"
        let location = self.location
        do {
            pool = try DatabasePool(path: location, configuration: config)
            if !configuration.readOnly {
                try pool.write { db in try Self.checkIsReceiptsStore(db, file: location) }
                try Self.migrate(pool, file: location)
            } else {
                try pool.read { db in
                    try Self.checkIsReceiptsStore(db, file: location)
                    if try !StoreSchema.migrator.hasCompletedMigrations(db) {
                        throw ReceiptError(.migrationFailed,
                                         "store has an older schema; open it once without read-only to migrate it",
                                         file: location)
                    }
                }
            }
        } catch {
            throw Self.map(error, file: location)
        }
    }

    private static func checkIsReceiptsStore(_ db: Database, file: String) throws {
        let objects = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'") ?? 0
        guard objects > 0 else { return }   // a new, empty file
        let hasMigrations = try db.tableExists("grdb_migrations")
        let hasReceipts = try db.tableExists("receipt")
        if !(hasMigrations && hasReceipts) {
            throw ReceiptError(.notAReceiptsStore,
                             "this SQLite file belongs to another program", file: file, hint: .storeOfAnotherProgram)
        }
    }

    private static func migrate(_ pool: DatabasePool, file: String) throws {
        let migrator = StoreSchema.migrator
        let superseded = try pool.read { db in try migrator.hasBeenSuperseded(db) }
        if superseded {
            throw ReceiptError(.newerSchema,
                             "the store was written by a newer version of receipts; upgrade receipts to open it",
                             file: file)
        }
        do {
            try migrator.migrate(pool)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
            || error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            throw error
        } catch {
            throw ReceiptError(.migrationFailed,
                             "cannot upgrade the store to schema \(StoreSchema.latestVersion); restore a backup or move the file aside",
                             file: file, cause: String(describing: error))
        }
    }

    /// Maps SQLite's errors to `ReceiptError`s that say what to do.
    package static func map(_ error: Error, file: String) -> Error {
        if error is ReceiptError { return error }
        guard let dbError = error as? DatabaseError else {
            return ReceiptError(.database, "database error", file: file, cause: String(describing: error))
        }
        let cause = dbError.message ?? "\(dbError.resultCode)"
        switch dbError.resultCode.primaryResultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return ReceiptError(.corrupt,
                              "not a receipts store or the file is damaged; move it aside (the next run creates a new store) or restore a backup",
                              file: file, cause: cause)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return ReceiptError(.locked,
                              "the store is locked by another process; wait for it to finish, or stop it, then try again",
                              file: file, cause: cause)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return ReceiptError(.cannotOpen, "cannot open the store; check the path and its permissions",
                              file: file, cause: cause, hint: .storeUnopenable)
        case .SQLITE_READONLY:
            return ReceiptError(.cannotOpen, "the store is read-only; check the permissions of the file and its folder",
                              file: file, cause: cause)
        case .SQLITE_FULL, .SQLITE_IOERR:
            return ReceiptError(.database, "cannot write the store (disk full or I/O error); free space and try again",
                              file: file, cause: cause)
        default:
            return ReceiptError(.database, "database error", file: file, cause: cause)
        }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do { return try await pool.read(body) } catch { throw Self.map(error, file: location) }
    }

    package func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do { return try await pool.write(body) } catch { throw Self.map(error, file: location) }
    }
}
