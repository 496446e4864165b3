import Foundation
import Synchronization
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import ReceiptModel
import ReceiptStorage

/// The store for several hosts: one PostgreSQL database holds the queue, the receipts, their
/// expenses and (by default) the image bytes, so worker processes on any number of machines share
/// the work. Same contract as `SQLiteReceiptStore` (one test suite runs against both).
///
/// - Claims take the oldest due receipt with `FOR UPDATE SKIP LOCKED`: concurrent workers never
///   wait for each other nor take the same receipt.
/// - Completion (analysis, OCR text, drafted expense) is one transaction, guarded by the lease.
/// - Deduplication by content is a unique index, not a check-then-insert.
/// - A new or returned receipt is announced with `NOTIFY receipts_work`, a finished one with
///   `NOTIFY receipts_finished`; `watchChanges` listens (and reconnects after a restart).
///
/// Leases and retry times are compared with the times the queue passes (the hosts' clocks): keep
/// the hosts' clocks synchronized (NTP), as any lease-based queue needs.
public final class PostgresReceiptStore: ReceiptStore, Sendable {
    public let location: String
    public let postgres: PostgresLocation
    let logger: Logger
    private let configuration: PostgresClient.Configuration
    /// The pool in use and the task running it; replaced when it stops answering (see `answered`),
    /// stopped for good by `close`.
    private let pool: Mutex<Pool>
    /// Whether PostgreSQL is known to be unreachable, so requests fail at once instead of waiting
    /// (see `PostgresReceiptStore+Reachability.swift`).
    let reachability = Mutex(Reachability())

    private struct Pool {
        var client: PostgresClient
        var run: Task<Void, Never>
        var closed = false

        init(_ configuration: PostgresClient.Configuration, logger: Logger) {
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            self.client = client
            run = Task { await client.run() }
        }
    }

    static let workChannel = "receipts_work"
    static let finishedChannel = "receipts_finished"

    private init(location: PostgresLocation, configuration: PostgresClient.Configuration, logger: Logger) {
        self.postgres = location
        self.location = location.description
        self.configuration = configuration
        self.logger = logger
        pool = Mutex(Pool(configuration, logger: logger))
    }

    /// The pool in use (after `close`, the stopped one: its requests fail with `poolClosed`).
    var client: PostgresClient { pool.withLock { $0.client } }

    /// Puts a new pool in place of `stuck` (when it is still the one in use) and stops the old one;
    /// requests still waiting in it are abandoned.
    func replacePool(_ stuck: PostgresClient, reason: String = "PostgreSQL pool stopped answering; replaced by a new one") {
        let old: Task<Void, Never>? = pool.withLock { current in
            guard !current.closed, current.client === stuck else { return nil }
            let stopped = current.run
            current = Pool(configuration, logger: logger)
            return stopped
        }
        if let old {
            logger.warning("\(reason)", metadata: ["store.path": "\(location)"])
            old.cancel()
        }
    }

    /// Connects (a pool of up to `maximumConnections`), creates the schema or migrates it (once,
    /// under an advisory lock, whichever host comes first). Throws a `ReceiptError` naming the
    /// store (password masked) when the server cannot be reached, refuses the login, or holds a
    /// newer schema. The URL's `connect_timeout` takes the place of `connectTimeout`.
    public static func open(_ location: PostgresLocation, maximumConnections: Int = 8, connectTimeout: Duration = .seconds(10),
                            logger: Logger = Logger(label: "receipts.postgres")) async throws -> PostgresReceiptStore {
        let connectTimeout = location.connectTimeout ?? connectTimeout
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: tls(location.tls))
        configuration.options.maximumConnections = max(2, maximumConnections)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.keepAliveBehavior = .init(frequency: .seconds(30))
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        let store = PostgresReceiptStore(location: location, configuration: configuration, logger: quiet)
        do {
            try await store.migrate(reachWithin: connectTimeout + .seconds(5))
        } catch {
            store.close()
            throw store.map(error)
        }
        return store
    }

    private static func tls(_ mode: PostgresLocation.TLSMode) -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: return .disable
        case .prefer:
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            return .prefer(tls)
        case .require: return .require(.makeClientConfiguration())
        }
    }

    /// Closes the pool's connections.
    public func close() {
        let run = pool.withLock { current in
            current.closed = true
            return current.run
        }
        run.cancel()
    }

    deinit { close() }

    // MARK: Migrations

    /// How long creating or upgrading the schema may take once the server answered, waiting for
    /// another host's migration included: a loaded server takes seconds, not minutes.
    static let migrationLimit: Duration = .seconds(120)

    /// Migrates on a connection of its own, opened directly rather than from the pool, so a wrong
    /// password, a missing database or an unreachable host is reported at once with its cause.
    /// `reachWithin` bounds connecting and logging in only: a migration slowed by a loaded server
    /// is not an unreachable one (it has `migrationLimit`, and says so when it runs out).
    private func migrate(reachWithin limit: Duration) async throws {
        let connection = try await withTimeout(limit, orElse: ReceiptError(.cannotOpen,
            "cannot reach PostgreSQL at \(postgres.host):\(postgres.port) within \(limit); check that it runs and that this host may connect",
            file: location, retry: .later)) { try await self.connectDirectly(id: 0) }
        do {
            try await withTimeout(Self.migrationLimit, orElse: ReceiptError(.database,
                "PostgreSQL answered but the schema was not ready within \(Self.migrationLimit) (another host may be migrating it, or the server is overloaded); try again",
                file: location, retry: .later)) { [location, logger] in
                try await connection.query("SELECT pg_advisory_lock(\(PostgresSchema.migrationLock))", logger: logger)
                do {
                    try await Self.migrate(connection, location: location, logger: logger)
                } catch {
                    _ = try? await connection.query("SELECT pg_advisory_unlock(\(PostgresSchema.migrationLock))", logger: logger)
                    throw error
                }
                try await connection.query("SELECT pg_advisory_unlock(\(PostgresSchema.migrationLock))", logger: logger)
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }

    /// A connection of its own, outside the pool (the caller closes it): for migrations and for
    /// LISTEN, which holds its connection for as long as the store is watched.
    /// `connectTimeout` nil: the pool's (the URL's `connect_timeout` or the store's default).
    func connectDirectly(id: Int, connectTimeout: TimeAmount? = nil) async throws -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(
            host: postgres.host, port: postgres.port, username: postgres.username, password: postgres.password,
            database: postgres.database, tls: try Self.connectionTLS(postgres.tls))
        configuration.options.connectTimeout = connectTimeout ?? Self.timeAmount(self.configuration.options.connectTimeout)
        return try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
    }

    /// A `Duration` as NIO's `TimeAmount` (whole seconds: every limit here is).
    static func timeAmount(_ duration: Duration) -> TimeAmount { .seconds(duration.components.seconds) }

    private static func connectionTLS(_ mode: PostgresLocation.TLSMode) throws -> PostgresConnection.Configuration.TLS {
        switch mode {
        case .disable: return .disable
        case .prefer:
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            return .prefer(try NIOSSLContext(configuration: tls))
        case .require: return .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }

    private static func migrate(_ connection: PostgresConnection, location: String, logger: Logger) async throws {
        try await connection.query("CREATE SCHEMA IF NOT EXISTS receipts", logger: logger)
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS receipts.schema_migrations (
                version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
            """, logger: logger)
        var applied = Set<String>()
        for try await version in try await connection.query("SELECT version FROM receipts.schema_migrations", logger: logger)
            .decode(String.self) {
            applied.insert(version)
        }
        let known = Set(PostgresSchema.migrations.map(\.version))
        if !applied.subtracting(known).isEmpty {
            throw ReceiptError(.newerSchema, "the store was written by a newer version of receipts (schema \(applied.subtracting(known).sorted().joined(separator: ", "))); upgrade receipts on this host",
                               file: location)
        }
        if applied.isEmpty {
            let exists = try await connection.query("SELECT to_regclass('receipts.receipt') IS NOT NULL", logger: logger)
                .collect().first?.decode(Bool.self) ?? false
            if exists {
                throw ReceiptError(.notAReceiptsStore, "the schema 'receipts' of this database holds tables of another program; use another database",
                                   file: location)
            }
        }
        for (version, sql) in PostgresSchema.migrations where !applied.contains(version) {
            do {
                try await connection.query("BEGIN", logger: logger)
                do {
                    for statement in PostgresSchema.statements(sql) {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("INSERT INTO receipts.schema_migrations (version) VALUES (\(version))", logger: logger)
                    try await connection.query("COMMIT", logger: logger)
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            } catch {
                throw ReceiptError(.migrationFailed, "cannot upgrade the store to schema \(version)", file: location,
                                   cause: Self.describe(error))
            }
            logger.info("Store migrated", metadata: ["store.location": "\(location)", "store.schema": "\(version)"])
        }
    }

    /// The schema versions applied (for tests and `receipts store`), in the order they apply (a
    /// version this build does not know last). Versions are names, not numbers: `lists-as-queries`
    /// comes after `v6`.
    public func schemaVersions() async throws -> [String] {
        let applied = try await rows("SELECT version FROM receipts.schema_migrations ORDER BY version").map { try $0.decode(String.self) }
        let order = Dictionary(uniqueKeysWithValues: PostgresSchema.migrations.enumerated().map { ($0.element.version, $0.offset) })
        return applied.sorted { (order[$0] ?? Int.max, $0) < (order[$1] ?? Int.max, $1) }
    }

    // MARK: Running queries

    /// How long one statement or transaction may wait for its answer. A request queued in the pool
    /// while PostgreSQL restarted was seen never to be answered afterwards (postgres-nio 1.33):
    /// past this limit it is given up as a transient failure, and tried again by its caller.
    static let answerLimit: Duration = .seconds(20)

    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await answered { [logger] client in try await client.query(query, logger: logger).collect() }
    }

    func execute(_ query: PostgresQuery) async throws {
        try await answered { [logger] client in _ = try await client.query(query, logger: logger) }
    }

    /// Runs `body` on the pool, its errors mapped to `ReceiptError`s. While PostgreSQL is known to
    /// be unreachable it fails at once (`ensureReachable`). Without an answer within
    /// `suspicionDelay` the server is probed on a connection of its own: when it does not answer
    /// either, the request is given up at once as a transient failure. Without an answer within
    /// `answerLimit` the request is abandoned too. An abandoned request is not awaited (a request
    /// stuck in the pool does not heed cancellation); the pool is replaced.
    private func answered<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        try await ensureReachable()
        let client = self.client
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Answer<T>, Never>) in
            let answered = Mutex(false)
            let timers = Mutex<[Task<Void, Never>]>([])
            let claim: @Sendable () -> Bool = { answered.withLock { done in defer { done = true }; return !done } }
            let work = Task {
                let result: Result<T, Error>
                do { result = .success(try await body(client)) } catch { result = .failure(error) }
                if claim() {
                    timers.withLock { $0.forEach { $0.cancel() } }
                    continuation.resume(returning: .answered(result))
                }
            }
            let deadline = Task {
                do { try await Task.sleep(for: Self.answerLimit) } catch { return }
                if claim() {
                    work.cancel()
                    continuation.resume(returning: .noAnswer)
                }
            }
            let suspicion = Task {
                do { try await Task.sleep(for: Self.suspicionDelay) } catch { return }
                guard let cause = await self.probe(), !Task.isCancelled else { return }
                if claim() {
                    work.cancel()
                    deadline.cancel()
                    continuation.resume(returning: .unreachable(cause))
                }
            }
            timers.withLock { $0 = [deadline, suspicion] }
        }
        switch outcome {
        case let .answered(.success(value)):
            return value
        case let .answered(.failure(error)):
            let mapped = map(error)
            if let failure = mapped as? ReceiptError, failure.isTransient { markUnreachable(cause: failure.cause ?? failure.message) }
            throw mapped
        case .noAnswer:
            replacePool(client)
            throw ReceiptError(.database, "no answer from PostgreSQL within \(Self.answerLimit); try again", file: location, retry: .later)
        case let .unreachable(cause):
            markUnreachable(cause: cause)
            replacePool(client, reason: "PostgreSQL does not answer; requests fail at once until it does")
            throw unreachable(cause: cause)
        }
    }

    private enum Answer<T: Sendable>: Sendable {
        case answered(Result<T, Error>)
        case noAnswer
        case unreachable(String)
    }

    /// Runs `body` in one transaction (committed when it returns, rolled back when it throws).
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await answered { [logger] client in
            try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    let result = try await body(connection)
                    try await connection.query("COMMIT", logger: logger)
                    return result
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
    }

    /// `body`'s result, or `failure` thrown when `limit` passes first (`body` is cancelled).
    private func withTimeout<T: Sendable>(_ limit: Duration, orElse failure: ReceiptError,
                                          _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let result = try await group.next()! else { throw failure }
            return result
        }
    }

    // MARK: Errors

    /// Maps postgres-nio's errors to `ReceiptError`s that name the store (password masked) and say what to do.
    func map(_ error: Error) -> Error {
        if error is ReceiptError || error is CancellationError { return error }
        let cause = Self.describe(error)
        if let psql = error as? PSQLError {
            switch psql.code {
            case .server:
                let state = psql.serverInfo?[.sqlState] ?? ""
                switch state {
                case "28P01", "28000":
                    return ReceiptError(.cannotOpen, "PostgreSQL refused the login; check the user and password in the URL (or $PGPASSWORD)",
                                        file: location, cause: cause)
                case "3D000":
                    return ReceiptError(.cannotOpen, "the database does not exist; create it (createdb) or fix the URL",
                                        file: location, cause: cause)
                case "42501":
                    return ReceiptError(.cannotOpen, "the user may not create or use the schema 'receipts'; grant it CREATE on the database",
                                        file: location, cause: cause)
                case "57P01", "57P02", "57P03", "08006", "08003", "08001":
                    return ReceiptError(.database, "PostgreSQL is restarting or unreachable; try again", file: location,
                                        cause: cause, retry: .later)
                case "53100":
                    return ReceiptError(.database, "PostgreSQL's disk is full; free space and try again", file: location, cause: cause)
                default:
                    return ReceiptError(.database, "database error", file: location, cause: cause)
                }
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
                return ReceiptError(.database, "cannot reach PostgreSQL at \(postgres.host):\(postgres.port); check that it runs and accepts connections",
                                    file: location, cause: cause, retry: .later)
            case .sslUnsupported:
                return ReceiptError(.cannotOpen, "the server does not offer TLS; add ?sslmode=disable to the URL to connect without it",
                                    file: location, cause: cause)
            case .authMechanismRequiresPassword:
                return ReceiptError(.cannotOpen, "PostgreSQL asks for a password; put it in the URL or in $PGPASSWORD",
                                    file: location, cause: cause)
            default:
                return ReceiptError(.database, "database error", file: location, cause: cause)
            }
        }
        return ReceiptError(.database, "database error", file: location, cause: cause)
    }

    /// One line: the server's message, or the connection error's cause. Never the URL.
    static func describe(_ error: Error) -> String {
        if let psql = error as? PSQLError {
            if let message = psql.serverInfo?[.message] {
                let state = psql.serverInfo?[.sqlState].map { " [\($0)]" } ?? ""
                return message + state
            }
            if let underlying = psql.underlying { return String(describing: underlying) }
            return psql.code.description
        }
        if let receipt = error as? ReceiptError { return receipt.description }
        return String(describing: error)
    }
}
