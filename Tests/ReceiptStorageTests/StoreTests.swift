import Foundation
import GRDB
import Testing
import ReceiptModel
import ReceiptStorage
@testable import TestHelpers

@Suite struct StoreTests {
    @Test func createsTheStoreWithItsFolderOnFirstUse() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("deep/er/receipts.sqlite")
        _ = try SQLiteReceiptStore(path: path)
        #expect(FileManager.default.fileExists(atPath: path))
        let db = try DatabaseQueue(path: path)
        let (versions, tables, mode) = try db.read { db in
            (try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid"),
             try db.tableExists("receipt") && db.tableExists("expense"),
             try String.fetchOne(db, sql: "PRAGMA journal_mode"))
        }
        #expect(versions == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10-sign-in", "lists-as-queries", "pictures", "shop-memory"])
        #expect(tables)
        #expect(mode == "wal")
    }

    /// Every submission asks whether its owner already has these bytes: by the bytes' index, not
    /// by walking the owner's receipts (which made each submission slower as the store grew).
    @Test func theDuplicateLookupOfASubmissionUsesTheBytesIndex() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("receipts.sqlite")
        _ = try SQLiteReceiptStore(path: path)
        let plan = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteReceiptStore.duplicateLookup, arguments: ["admin", "ab12", nil])
                .map { $0["detail"] as String? ?? "" }.joined(separator: "; ")
        }
        #expect(plan.contains("receipt_on_contentHash (contentHash=?)"), "\(plan)")
    }

    /// The schema of the first release, as an older binary created it.
    static let v1Schema = """
        CREATE TABLE receipt (id TEXT PRIMARY KEY NOT NULL, filePath TEXT NOT NULL, contentHash TEXT,
            uploadTimestamp TEXT NOT NULL, ocrStatus TEXT NOT NULL DEFAULT 'pending'
                CHECK (ocrStatus IN ('pending', 'processing', 'completed', 'failed')),
            ocrResultJson TEXT, ocrText TEXT, analyzer TEXT, attempts INTEGER NOT NULL DEFAULT 0, lastError TEXT,
            createdAt TEXT NOT NULL, updatedAt TEXT NOT NULL, isUploaded INTEGER NOT NULL DEFAULT 0, expenseId TEXT);
        CREATE INDEX receipt_on_contentHash ON receipt(contentHash);
        CREATE INDEX receipt_on_ocrStatus ON receipt(ocrStatus);
        CREATE TABLE expense (id TEXT PRIMARY KEY NOT NULL,
            receiptId TEXT NOT NULL UNIQUE REFERENCES receipt(id) ON DELETE CASCADE,
            date TEXT, amount TEXT, currency TEXT, taxAmount TEXT, category TEXT NOT NULL, description TEXT NOT NULL,
            isTaxDeductible INTEGER NOT NULL, taxDeductiblePercentage TEXT NOT NULL,
            creationMethod TEXT NOT NULL DEFAULT 'ocr', status TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'confirmed')),
            needsReview INTEGER NOT NULL, possibleDuplicateOf TEXT REFERENCES expense(id) ON DELETE SET NULL,
            isUploaded INTEGER NOT NULL DEFAULT 0, lastModified TEXT NOT NULL);
        CREATE INDEX expense_on_date ON expense(date);
        CREATE INDEX expense_on_category ON expense(category);
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('v1');
        INSERT INTO receipt VALUES ('11111111-2222-3333-4444-555555555555', 'old/fuel.jpg', 'abc', '2024-01-02 10:00:00.000',
            'completed', '{"vendor":"Shell","total":23.45}', 'SHELL', 'heuristic', 1, NULL,
            '2024-01-02 10:00:00.000', '2024-01-02 10:00:01.000', 0, 'aaaaaaaa-2222-3333-4444-555555555555');
        INSERT INTO receipt VALUES ('66666666-2222-3333-4444-555555555555', 'old/later.jpg', 'def', '2024-01-02 10:00:00.000',
            'pending', NULL, NULL, NULL, 0, NULL, '2024-01-02 10:00:00.000', '2024-01-02 10:00:00.000', 0, NULL);
        INSERT INTO expense VALUES ('aaaaaaaa-2222-3333-4444-555555555555', '11111111-2222-3333-4444-555555555555',
            '2024-01-02', '23.45', 'GBP', '3.91', 'Fuel', 'Shell', 1, '100', 'ocr', 'draft', 0, NULL, 0,
            '2024-01-02 10:00:01.000');
        """

    @Test func migratesAFileFromThePreviousSchemaKeepingItsData() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.storePath
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try await DatabaseQueue(path: path).write { db in try db.execute(sql: Self.v1Schema) }

        let store = try SQLiteReceiptStore(path: path)
        let old = try #require(try await store.receipt(id: UUID(uuidString: "11111111-2222-3333-4444-555555555555")!, in: .everyone))
        #expect(old.ocrStatus == .completed)
        #expect(old.filePath == "old/fuel.jpg")
        let expense = try #require(try await store.expense(receiptId: old.id, in: .everyone))
        #expect(expense.amount == Decimal(string: "23.45"))
        #expect(expense.date == CalendarDate(year: 2024, month: 1, day: 2))
        // The pending receipt of the old file can be worked on with the new queue columns.
        let job = try #require(try await store.claimNext(Lease(holder: "t", duration: 60)))
        #expect(job.receipt.filePath == "old/later.jpg")
        #expect(job.receipt.attempts == 1)
        let versions = try await DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }
        #expect(versions == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10-sign-in", "lists-as-queries", "pictures", "shop-memory"])
    }

    /// v5: an API token made before scopes existed keeps doing everything (admin), with no expiry,
    /// no use noted and the server's rate limit.
    @Test func aTokenFromBeforeScopesKeepsFullAccess() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("receipts.sqlite")
        let old = try DatabaseQueue(path: path)
        try StoreSchema.migrator.migrate(old, upTo: "v4")
        try old.write { db in
            try db.execute(sql: "INSERT INTO api_token (name, secretHash, createdAt) VALUES ('app', 'abc', '2025-01-02 10:00:00.000')")
        }
        try old.close()
        _ = try SQLiteReceiptStore(path: path)
        let row = try #require(try DatabaseQueue(path: path).read { db in
            try Row.fetchOne(db, sql: "SELECT scopes, expiresAt, lastUsedAt, rateLimitRequests FROM api_token WHERE name = 'app'")
        })
        #expect(row["scopes"] as String? == "admin")
        #expect(row["expiresAt"] as String? == nil && row["lastUsedAt"] as String? == nil && row["rateLimitRequests"] as Int? == nil)
    }

    @Test func aCorruptFileGivesAClearErrorNamingTheFile() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("receipts.sqlite", Data(String(repeating: "this is not a database\n", count: 200).utf8))
        let error = try #require(throws: ReceiptError.self) { try SQLiteReceiptStore(path: path) }
        #expect(error.code == .corrupt)
        #expect(error.description.contains(path))
        #expect(error.description.contains("move it aside"))
        #expect(!error.description.contains("\n"))
    }

    @Test func aDamagedDatabaseGivesAClearError() throws {
        let dir = try TemporaryDirectory()
        let path = dir.storePath
        _ = try SQLiteReceiptStore(path: path)
        // Overwrite everything after the 100-byte header with garbage.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 8000))
        try handle.close()
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        let error = try #require(throws: ReceiptError.self) { try SQLiteReceiptStore(path: path) }
        #expect(error.code == .corrupt)
        #expect(error.description.contains(path))
    }

    @Test func aLockedDatabaseGivesAClearErrorInsteadOfHanging() throws {
        let dir = try TemporaryDirectory()
        let path = dir.storePath
        _ = try SQLiteReceiptStore(path: path)
        // Another connection holds the write lock (as another process's long transaction would).
        let holder = LockHolder(path: path)
        try holder.lock()
        let started = Date()
        let error = try #require(throws: ReceiptError.self) {
            try SQLiteReceiptStore(path: path, configuration: StoreConfiguration(busyTimeout: 0.3))
        }
        #expect(error.code == .locked)
        #expect(error.description.contains(path))
        #expect(error.description.contains("another process"))
        // A busy timeout of 0.3 s, not a wait for the lock (the bound leaves room for a loaded machine).
        #expect(Date().timeIntervalSince(started) < 30)
        holder.unlock()
        _ = try SQLiteReceiptStore(path: path, configuration: StoreConfiguration(busyTimeout: 0.3))
    }

    @Test func refusesASQLiteFileOfAnotherProgram() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("other.sqlite")
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE notes (body TEXT)") }
        let error = try #require(throws: ReceiptError.self) { try SQLiteReceiptStore(path: path) }
        #expect(error.code == .notAReceiptsStore)
        #expect(try DatabaseQueue(path: path).read { db in try !db.tableExists("receipt") })
    }

    @Test func aMissingFolderThatCannotBeCreatedIsAClearError() throws {
        let dir = try TemporaryDirectory()
        let blocker = try dir.write("file", Data("x".utf8))
        let error = try #require(throws: ReceiptError.self) { try SQLiteReceiptStore(path: blocker + "/receipts.sqlite") }
        #expect(error.code == .cannotOpen)
        #expect(error.description.contains(blocker))
    }

    @Test(arguments: ["23.45", "0.1", "0.30", "1234567.89", "0.005", "99999999999999.99", "-1.73", "100"])
    func moneyRoundTripsExactly(amount: String) async throws {
        let dir = try TemporaryDirectory()
        let store = try SQLiteReceiptStore(path: dir.storePath)
        let receipt = Receipt(filePath: "a.jpg", contentHash: "h")
        _ = try await store.insert(receipt, imagePath: nil, deduplicate: true)
        _ = try #require(try await store.claimNext(Lease(holder: "w", duration: 60)))
        let value = try #require(Decimal(string: amount))
        let date = try #require(CalendarDate(year: 2024, month: 2, day: 29))
        let analysis = ReceiptAnalysis(vendor: "Shell", date: date, total: value, tax: value, currency: "GBP", analyzer: "t")
        var expense = Expense.draft(from: analysis, receiptId: receipt.id, taxonomy: .default)
        expense.taxDeductiblePercentage = Decimal(string: "12.5")!
        let done = try await store.complete(id: receipt.id, holder: "w",
                                            work: CompletedWork(analysis: analysis, ocrText: "T", expense: expense), now: Date())
        #expect(done != nil)
        let back = try #require(try await store.expense(receiptId: receipt.id, in: .everyone))
        #expect(back.amount == value)
        #expect(back.taxAmount == value)
        #expect(back.date == date)
        #expect(back.taxDeductiblePercentage == Decimal(string: "12.5"))
        #expect(back.amount?.plainString == value.plainString)
        // Stored as exact decimal text, readable by any SQLite tool.
        let raw = try DatabaseQueue(path: dir.storePath).read { db in
            try Row.fetchOne(db, sql: "SELECT amount, typeof(amount) AS t, date FROM expense")!
        }
        #expect(raw["amount"] as String == value.plainString)
        #expect(raw["t"] as String == "text")
        #expect(raw["date"] as String == "2024-02-29")
        let stored = try #require(try await store.receipt(id: receipt.id, in: .everyone)?.analysis)
        #expect(stored.total == value)
        #expect(stored.date == date)
    }

    @Test func datesNeverShiftWhateverTheTimeZone() async throws {
        let dir = try TemporaryDirectory()
        let store = try SQLiteReceiptStore(path: dir.storePath)
        // Dates at the edges of the year and of time zones stay the same calendar day.
        for (i, text) in ["2023-12-31", "2024-01-01", "1999-06-30"].enumerated() {
            let receipt = Receipt(filePath: "\(i).jpg", contentHash: "h\(i)")
            _ = try await store.insert(receipt, imagePath: nil, deduplicate: true)
            _ = try #require(try await store.claim(id: receipt.id, Lease(holder: "w", duration: 60)) as ClaimAttempt?)
            let analysis = ReceiptAnalysis(vendor: "V\(i)", date: CalendarDate(iso: text), total: 1, analyzer: "t")
            let expense = Expense.draft(from: analysis, receiptId: receipt.id, taxonomy: .default)
            _ = try await store.complete(id: receipt.id, holder: "w",
                                         work: CompletedWork(analysis: analysis, ocrText: "", expense: expense), now: Date())
            #expect(try await store.expense(receiptId: receipt.id, in: .everyone)?.date?.description == text)
        }
        let inRange = try await store.expenses(ExpenseQuery(from: CalendarDate(iso: "2023-12-31"), to: CalendarDate(iso: "2024-01-01")), in: .everyone)
        #expect(inRange.map { $0.date?.description } == ["2023-12-31", "2024-01-01"])
    }

    @Test func contentHashIsTheSHA256OfTheBytesInLowercaseHex() {
        // What `sha256sum` prints: the store's image file names and dedup depend on it.
        #expect(ContentHash.hex(of: Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(ContentHash.hex(of: Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}

/// Holds `BEGIN EXCLUSIVE` on a database from a thread of its own until `unlock()`.
final class LockHolder: @unchecked Sendable {
    let path: String
    private let locked = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(path: String) { self.path = path }

    func lock() throws {
        let queue = try DatabaseQueue(path: path)
        Thread.detachNewThread { [self] in
            try? queue.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN EXCLUSIVE TRANSACTION")
                locked.signal()
                release.wait()
                try db.execute(sql: "ROLLBACK")
            }
            done.signal()
        }
        locked.wait()
    }

    func unlock() {
        release.signal()
        done.wait()
    }
}
