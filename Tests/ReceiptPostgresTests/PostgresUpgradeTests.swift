import Foundation
import Testing
@testable import ReceiptKit
@testable import ReceiptPostgres
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// A PostgreSQL store made by the release before users (schema v4) opens with this build, which
/// migrates it to v5: everything in it belongs to `admin`, its tokens still work, its idempotency
/// keys are admin's, and from then on the same bytes from two users are two receipts.
@Suite(.enabled(if: PostgresTestServer.available, "PostgreSQL is not installed: see the message on stderr"))
struct PostgresUpgradeTests {
    static let receiptId = UUID(uuidString: "0b8f3c1e-5a2d-4e6f-9a7b-1c2d3e4f5a6b")!
    static let expenseId = UUID(uuidString: "7d1e2f3a-4b5c-4d6e-8f9a-0b1c2d3e4f5a")!
    static let eventId = UUID(uuidString: "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f")!
    static let secret = "rcp_made-before-users-0123456789abcdef"

    /// A database as the v4 release leaves it: its migrations (the SQL of v1 to v4 exactly, as
    /// `migrate` runs them) and one of each thing it kept, written with that release's SQL.
    private func storeAtV4(_ server: PostgresTestServer) async throws -> (url: String, database: String) {
        let url = try await server.freshDatabase()
        let database = String(url.split(separator: "/").last!.split(separator: "?").first!)
        let migrations = PostgresSchema.migrations.prefix(4)
        #expect(migrations.map(\.version) == ["v1", "v2", "v3", "v4"])
        try await server.psql(database, """
            CREATE SCHEMA receipts;
            CREATE TABLE receipts.schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
            \(migrations.map(\.sql).joined(separator: ";\n"));
            INSERT INTO receipts.schema_migrations (version) VALUES ('v1'), ('v2'), ('v3'), ('v4');
            INSERT INTO receipts.receipt (id, file_path, content_hash, primary_copy, upload_timestamp, ocr_status, ocr_result_json,
                ocr_text, analyzer, attempts, created_at, updated_at, expense_id, image_ref)
            VALUES ('\(Self.receiptId)', 'shell.jpg', 'old-bytes', true, '2024-03-01 10:00:00+00', 'completed', NULL, 'Shell 23.45',
                'heuristic', 1, '2024-03-01 10:00:00+00', '2024-03-01 10:00:05+00', '\(Self.expenseId)', 'postgres-image:old-bytes');
            INSERT INTO receipts.expense (id, receipt_id, date, amount, currency, tax_amount, category, description, is_tax_deductible,
                tax_deductible_percentage, creation_method, status, needs_review, last_modified, corrections)
            VALUES ('\(Self.expenseId)', '\(Self.receiptId)', '2024-03-01', 23.45, 'GBP', NULL, 'Fuel', 'Shell', true, 100, 'ocr',
                'confirmed', false, '2024-03-02 09:00:00+00', '{"amount":"23.40"}');
            INSERT INTO receipts.api_token (name, secret_hash, created_at, scopes)
            VALUES ('scanner', '\(APIToken.hash(Self.secret))', '2024-01-01 00:00:00+00', 'read,upload');
            INSERT INTO receipts.idempotency_key (key, receipt_id, created_at, fingerprint)
            VALUES ('order-1', '\(Self.receiptId)', '2024-03-01 10:00:00+00', 'fingerprint-1');
            INSERT INTO receipts.store_setting (name, value) VALUES ('webhooks', 'on');
            INSERT INTO receipts.webhook_event (id, receipt_id, type, body, created_at, pending_since, attempts, next_attempt_at)
            VALUES ('\(Self.eventId)', '\(Self.receiptId)', 'receipt.completed', '{}', '2024-03-01 10:00:05+00',
                '2024-03-01 10:00:05+00', 0, '2024-03-01 10:00:05+00')
            """)
        return (url, database)
    }

    private func open(_ url: String) async throws -> PostgresReceiptStore {
        guard case let .postgres(location) = try StoreLocation(url) else { throw ReceiptError(.invalidInput, "not a PostgreSQL URL") }
        return try await PostgresReceiptStore.open(location, logger: TestSupport.logger)
    }

    @Test func aStoreOfTheReleaseBeforeUsersMigratesAndEverythingInItIsAdmins() async throws {
        let server = try #require(await PostgresTestServer.shared())
        let (url, database) = try await storeAtV4(server)
        let store = try await open(url)
        defer { store.close() }
        #expect(try await store.schemaVersions() == PostgresSchema.migrations.map(\.version))

        let users = try await store.users()
        #expect(users.map(\.name) == ["admin"] && users.first?.isAdmin == true, "one administrator, admin")
        let receipt = try #require(try await store.receipt(id: Self.receiptId, in: .owner("admin")))
        #expect(receipt.ownership == .admin)
        #expect(receipt.filePath == "shell.jpg" && receipt.ocrStatus == .completed)
        let expense = try #require(try await store.expense(receiptId: Self.receiptId, in: .user("admin")))
        #expect(expense.id == Self.expenseId && expense.amount == Decimal(string: "23.45") && expense.status == .confirmed)
        #expect(expense.confirmedBy == nil, "confirmed before anyone was recorded")
        #expect(try await store.history(ofExpense: Self.expenseId, in: .everyone).isEmpty)
        #expect(try await store.corrections(ofExpense: Self.expenseId, in: .owner("admin")) == .object([("amount", .string("23.40"))]))

        // The token made before still works, as admin's, with its scopes.
        let token = try #require(try await store.token(secret: Self.secret))
        #expect(token.name == "scanner" && token.user == "admin" && token.scopes == [.read, .upload])
        #expect(try await store.activeToken(secret: Self.secret) == "scanner")
        // The idempotency key is admin's: it stands for its receipt for admin, for no one else.
        #expect(try await store.claimIdempotencyKey("order-1", of: Principal(user: "admin"), fingerprint: "other", now: Date())
                == .taken(fingerprint: "fingerprint-1", receiptId: Self.receiptId))
        _ = try await store.addUser(name: "bob", isAdmin: false, defaultGroup: nil, now: Date())
        #expect(try await store.claimIdempotencyKey("order-1", of: Principal(user: "bob"), fingerprint: "other", now: Date()) == .claimed)
        // The event written before is the server-wide webhook's.
        let event = try #require(try await store.webhookEvent(id: Self.eventId))
        #expect(event.subscriptionId == nil && event.state == .pending)
        #expect(try await store.claimWebhookEvents(Lease(holder: "s", duration: 60), limit: 10, serverWide: false).isEmpty)
        #expect(try await store.claimWebhookEvents(Lease(holder: "s", duration: 60), limit: 10, serverWide: true).map(\.id) == [Self.eventId])

        // Deduplication is per owner now: admin's bytes are admin's receipt, bob's are bob's.
        let again = try await store.insert(Receipt(filePath: "again.jpg", contentHash: "old-bytes"), imagePath: nil, deduplicate: true)
        #expect(!again.isNew && again.receipt.id == Self.receiptId)
        let bobs = try await store.insert(Receipt(filePath: "bob.jpg", contentHash: "old-bytes", ownership: Ownership(owner: "bob")),
                                          imagePath: nil, deduplicate: true)
        #expect(bobs.isNew && bobs.receipt.id != Self.receiptId)
        #expect(try await store.receipt(contentHash: "old-bytes", in: .user("bob"))?.id == bobs.receipt.id)

        // Opening again migrates nothing more.
        let reopened = try await open(url)
        #expect(try await reopened.schemaVersions() == PostgresSchema.migrations.map(\.version))
        reopened.close()
        let indexes = try await server.psql(database, "SELECT indexname FROM pg_indexes WHERE schemaname = 'receipts'")
            .split(separator: "\n").map(String.init)
        #expect(indexes.contains("receipt_one_per_owner_content") && !indexes.contains("receipt_one_per_content"))
    }

    /// Lists by owner and by group are read through their indexes, newest first, not by sorting
    /// the whole table (what keeps `GET /v1/receipts` as fast as before users).
    @Test func listsByOwnerAndByGroupUseTheirIndexes() async throws {
        let server = try #require(await PostgresTestServer.shared())
        let url = try await server.freshDatabase()
        let database = String(url.split(separator: "/").last!.split(separator: "?").first!)
        let store = try await open(url)
        defer { store.close() }
        func plan(_ query: String) async throws -> String {
            // Without statistics on a nearly empty table a scan would do; forbid it to see the index chosen.
            try await server.psql(database, "SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN \(query)")
        }
        let byOwner = try await plan("""
            SELECT * FROM receipts.receipt r WHERE r.owner = 'bob' ORDER BY r.created_at DESC, r.seq DESC LIMIT 50
            """)
        #expect(byOwner.contains("receipt_on_owner") && !byOwner.contains("Sort"), "\(byOwner)")
        let byGroup = try await plan("""
            SELECT * FROM receipts.receipt r WHERE r.group_name = 'home' ORDER BY r.created_at DESC, r.seq DESC LIMIT 50
            """)
        #expect(byGroup.contains("receipt_on_group") && !byGroup.contains("Sort"), "\(byGroup)")
        let byEndUser = try await plan("""
            SELECT * FROM receipts.receipt r WHERE r.owner = 'svc' AND r.external_user = 'u-1' ORDER BY r.created_at DESC, r.seq DESC LIMIT 50
            """)
        #expect(byEndUser.contains("receipt_on_external_user") && !byEndUser.contains("Sort"), "\(byEndUser)")
    }

    /// A host that opens the store while another migrates it waits for that migration, however
    /// much longer than the time allowed to reach the server it takes (a loaded server during a
    /// deploy): it opens once the lock is free, and is not told PostgreSQL is unreachable.
    @Test func waitingForAnotherHostsMigrationIsNotAnUnreachableServer() async throws {
        let server = try #require(await PostgresTestServer.shared())
        let connectTimeout = Int(2 * testTimeScale)
        let url = try await server.freshDatabase(scaledTimeouts: false) + "&connect_timeout=\(connectTimeout)"
        let database = String(url.split(separator: "/").last!.split(separator: "?").first!)
        // Another session holds the migration lock for longer than connecting may take (+5 s).
        let held = Double(connectTimeout + 5 + 3)
        let holder = Task {
            try await server.psql(database, "SELECT pg_advisory_lock(\(PostgresSchema.migrationLock)); SELECT pg_sleep(\(held));")
        }
        let deadline = Date().addingTimeInterval(10 * testTimeScale)
        // pg_locks is the whole server's: only this database's lock counts (other tests migrate theirs meanwhile).
        while try await server.psql(database, """
            SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
            WHERE l.locktype = 'advisory' AND l.granted AND d.datname = current_database()
            """)
                .trimmingCharacters(in: .whitespacesAndNewlines) != "1" {
            try #require(Date() < deadline, "the other session never took the lock")
            try await Task.sleep(for: .milliseconds(50))
        }
        let started = Date()
        let store = try await open(url)
        defer { store.close() }
        #expect(Date().timeIntervalSince(started) > Double(connectTimeout + 5), "the store opened while the lock was held")
        #expect(try await store.schemaVersions() == PostgresSchema.migrations.map(\.version))
        _ = try await holder.value
    }
}
