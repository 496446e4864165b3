import Foundation
import ReceiptModel
import GRDB

/// The store's schema and its migrations. A migration, once released, never changes: add a new one.
///
/// - `v1`: the `receipt` and `expense` tables, mirroring the apps' data model.
/// - `v2`: the job queue: where the image bytes are kept, the worker lease, the retry time.
/// - `v3`: for `receipts serve`: API tokens (only their SHA-256 kept), idempotency keys, and each
///   expense's corrections (what the analyzer said of a field a person changed).
/// - `v4`: an idempotency key keeps the fingerprint of its request (the SHA-256 of the image), and
///   is claimed before the receipt exists (`receiptId` is set once it does).
/// - `v5`: what an API token may do and for how long: its scopes (comma-separated; a token made
///   before them keeps `admin`, everything), when it expires, when it was last used, and its own
///   rate limit (`rateLimitRequests` per `rateLimitSeconds`; NULL: the server's; 0 requests: none).
/// - `v6`: the webhook outbox: `webhook_event` (one row per finished receipt while webhooks are on,
///   written in the transaction that finishes it; see `WebhookEvent`) and `store_setting` (whether
///   webhooks are on: the row `webhooks` = `on`). An event keeps no foreign key: deleting a receipt
///   does not take back the announcement of its result.
/// - `v7`: users and groups. `account` (a user: name, administrator or not, default group),
///   `account_group` and `group_member` (role `viewer` or `editor`). One administrator, `admin`, is
///   made, and everything stored before — receipts, tokens, idempotency keys — becomes theirs.
///   A receipt has an `owner`, at most one `groupName`, and for a backend's own users an
///   `externalUser` and `metadata` (JSON text); lists are indexed by owner and by group.
///   Idempotency keys belong to a user (and end user): two users' keys never meet. Each expense
///   keeps who confirmed it and a history of who changed what (`expense_change`). Users' own
///   webhooks are `webhook_subscription`; an outbox event names the one it is for
///   (`subscriptionId`; NULL: the server-wide webhook).
/// - `v8`: e-mail (`receipts mail`, `POST /v1/inbound-email`): a receipt's `source` (the message it
///   was found in, a JSON object); `mail_message`, a row per message received (unique by mailbox,
///   UIDVALIDITY and UID, and by its owner's and the SHA-256 of its raw bytes; its Message-ID
///   indexed), and
///   `mail_mailbox`, each IMAP mailbox's UIDVALIDITY and UID watermark.
/// - `lists-as-queries` (issue 47): what lists, counts and totals need to be queries the indexes
///   answer at a million receipts, not receipts loaded into memory. An expense keeps its
///   receipt's `owner`, `groupName` and `externalUser` (so who may see it is a condition on the
///   expense itself, with indexes in its list's order), and a receipt its expense's
///   `needsReview` (NULL without one); triggers keep both copies equal to their source, whatever
///   writes it. `amountMinor` is the amount in ten-thousandths, exact (a generated column), for
///   totals summed as integers. Indexes: receipts newest first (everyone's, flagged ones, by
///   status), expenses in their list's order per owner, group and end user, and totals covered
///   per currency, category and month.
///
/// - `v10-sign-in`: signing people in (`docs/review-ui.md`): `web_session` (a browser's session by
///   the SHA-256 of its cookie, with how, when and from what it signed in), `invitation` (one-time
///   links by the SHA-256 of their secret), `passkey` (WebAuthn credentials: COSE public key,
///   counter), `account_password` (Argon2id hashes), `webauthn_challenge` (single-use, short-lived).
///   A user's rows go with the user (ON DELETE CASCADE).
/// - `pictures`: a receipt photographed in several pictures (a long receipt): `receipt_picture`,
///   a row per picture (its position from 1, its file name, its SHA-256 and where its bytes are);
///   the first is also the receipt's `imagePath`, and the receipt's `contentHash` is the hash of
///   its pictures' hashes together. A receipt of one picture has no rows.
/// - `shop-memory` (issue 57): the memory of shops, per book (a user's, a group's, a backend's end
///   user's: `MemoryBook.key`). `shop_vendor` (a shop by the person's name, unique per book by
///   `nameKey`; a category a person set; whether an import made it), `shop_lesson` (what a
///   confirmed receipt taught: gone with its receipt) and `shop_key` (a key a lesson taught, or an
///   import when `receiptId` is NULL; looked up by book, kind and value).
///
/// Money is TEXT holding the exact decimal (`23.45`); receipt dates are TEXT `YYYY-MM-DD`
/// calendar dates; timestamps are GRDB's UTC text `YYYY-MM-DD HH:MM:SS.SSS` (they sort as text).
package enum StoreSchema {
    /// The migrations in order: each a version and the SQL that makes it.
    private static let migrations = [("v1", v1), ("v2", v2), ("v3", v3), ("v4", v4), ("v5", v5), ("v6", v6),
                                     ("v7", v7), ("v8", v8), ("v9", v9), ("v10-sign-in", v10SignIn), ("lists-as-queries", listsAsQueries),
                                     ("pictures", pictures), ("shop-memory", shopMemory)]

    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (version, sql) in migrations {
            migrator.registerMigration(version) { db in try db.execute(sql: sql) }
        }
        return migrator
    }

    /// The newest migration this build knows.
    package static var latestVersion: String { migrations.last!.0 }

    /// A store file as an older release made it: migrated up to `version` only, then `sql` run
    /// (rows as that release wrote them). For the tests that upgrade a store made by a release.
    package static func makeStore(at path: String, upTo version: String, then sql: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: path)
        try migrator.migrate(queue, upTo: version)
        try queue.write { db in try db.execute(sql: sql) }
    }

    package static let v1 = """
        CREATE TABLE receipt (
            id TEXT PRIMARY KEY NOT NULL,
            filePath TEXT NOT NULL,
            contentHash TEXT,
            uploadTimestamp TEXT NOT NULL,
            ocrStatus TEXT NOT NULL DEFAULT 'pending'
                CHECK (ocrStatus IN ('pending', 'processing', 'completed', 'failed')),
            ocrResultJson TEXT,
            ocrText TEXT,
            analyzer TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            lastError TEXT,
            createdAt TEXT NOT NULL,
            updatedAt TEXT NOT NULL,
            isUploaded INTEGER NOT NULL DEFAULT 0,
            expenseId TEXT
        );
        CREATE INDEX receipt_on_contentHash ON receipt(contentHash);
        CREATE INDEX receipt_on_ocrStatus ON receipt(ocrStatus);
        CREATE TABLE expense (
            id TEXT PRIMARY KEY NOT NULL,
            receiptId TEXT NOT NULL UNIQUE REFERENCES receipt(id) ON DELETE CASCADE,
            date TEXT,
            amount TEXT,
            currency TEXT,
            taxAmount TEXT,
            category TEXT NOT NULL,
            description TEXT NOT NULL,
            isTaxDeductible INTEGER NOT NULL,
            taxDeductiblePercentage TEXT NOT NULL,
            creationMethod TEXT NOT NULL DEFAULT 'ocr',
            status TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'confirmed')),
            needsReview INTEGER NOT NULL,
            possibleDuplicateOf TEXT REFERENCES expense(id) ON DELETE SET NULL,
            isUploaded INTEGER NOT NULL DEFAULT 0,
            lastModified TEXT NOT NULL
        );
        CREATE INDEX expense_on_date ON expense(date);
        CREATE INDEX expense_on_category ON expense(category);
        """

    package static let v2 = """
        ALTER TABLE receipt ADD COLUMN imagePath TEXT;
        ALTER TABLE receipt ADD COLUMN leaseOwner TEXT;
        ALTER TABLE receipt ADD COLUMN leaseExpiresAt TEXT;
        ALTER TABLE receipt ADD COLUMN notBefore TEXT;
        CREATE INDEX receipt_on_queue ON receipt(ocrStatus, notBefore, createdAt);
        CREATE INDEX expense_on_purchase ON expense(description COLLATE NOCASE, date, amount);
        """

    package static let v3 = """
        CREATE TABLE api_token (
            name TEXT PRIMARY KEY NOT NULL,
            secretHash TEXT NOT NULL UNIQUE,
            createdAt TEXT NOT NULL,
            revokedAt TEXT
        );
        ALTER TABLE expense ADD COLUMN corrections TEXT;
        CREATE TABLE idempotency_key (
            key TEXT PRIMARY KEY NOT NULL,
            receiptId TEXT NOT NULL REFERENCES receipt(id) ON DELETE CASCADE,
            createdAt TEXT NOT NULL
        );
        """

    package static let v4 = """
        CREATE TABLE idempotency_key_v4 (
            key TEXT PRIMARY KEY NOT NULL,
            fingerprint TEXT NOT NULL,
            receiptId TEXT REFERENCES receipt(id) ON DELETE CASCADE,
            createdAt TEXT NOT NULL
        );
        INSERT INTO idempotency_key_v4 (key, fingerprint, receiptId, createdAt)
            SELECT k.key, coalesce(r.contentHash, ''), k.receiptId, k.createdAt
            FROM idempotency_key k LEFT JOIN receipt r ON r.id = k.receiptId;
        DROP TABLE idempotency_key;
        ALTER TABLE idempotency_key_v4 RENAME TO idempotency_key;
        """

    package static let v5 = """
        ALTER TABLE api_token ADD COLUMN scopes TEXT NOT NULL DEFAULT 'admin';
        ALTER TABLE api_token ADD COLUMN expiresAt TEXT;
        ALTER TABLE api_token ADD COLUMN lastUsedAt TEXT;
        ALTER TABLE api_token ADD COLUMN rateLimitRequests INTEGER;
        ALTER TABLE api_token ADD COLUMN rateLimitSeconds INTEGER;
        """

    package static let v6 = """
        CREATE TABLE store_setting (
            name TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        );
        CREATE TABLE webhook_event (
            id TEXT PRIMARY KEY NOT NULL,
            receiptId TEXT NOT NULL,
            type TEXT NOT NULL,
            body TEXT NOT NULL,
            createdAt TEXT NOT NULL,
            pendingSince TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            nextAttemptAt TEXT NOT NULL,
            lastError TEXT,
            deliveredAt TEXT,
            deadAt TEXT,
            leaseOwner TEXT,
            leaseExpiresAt TEXT
        );
        CREATE INDEX webhook_event_due ON webhook_event(nextAttemptAt) WHERE deliveredAt IS NULL AND deadAt IS NULL;
        CREATE INDEX webhook_event_on_created ON webhook_event(createdAt);
        """

    package static let v7 = """
        CREATE TABLE account (
            name TEXT PRIMARY KEY NOT NULL,
            isAdmin INTEGER NOT NULL DEFAULT 0,
            defaultGroup TEXT,
            createdAt TEXT NOT NULL
        );
        CREATE TABLE account_group (
            name TEXT PRIMARY KEY NOT NULL,
            createdAt TEXT NOT NULL
        );
        CREATE TABLE group_member (
            groupName TEXT NOT NULL REFERENCES account_group(name) ON DELETE CASCADE,
            userName TEXT NOT NULL REFERENCES account(name) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('viewer', 'editor')),
            PRIMARY KEY (groupName, userName)
        );
        CREATE INDEX group_member_on_user ON group_member(userName);
        INSERT INTO account (name, isAdmin, createdAt) VALUES ('admin', 1, strftime('%Y-%m-%d %H:%M:%f', 'now'));

        ALTER TABLE receipt ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';
        ALTER TABLE receipt ADD COLUMN groupName TEXT;
        ALTER TABLE receipt ADD COLUMN externalUser TEXT;
        ALTER TABLE receipt ADD COLUMN metadata TEXT;
        CREATE INDEX receipt_on_owner ON receipt(owner, createdAt);
        CREATE INDEX receipt_on_group ON receipt(groupName, createdAt) WHERE groupName IS NOT NULL;
        CREATE INDEX receipt_on_owner_content ON receipt(owner, contentHash);
        CREATE INDEX receipt_on_external_user ON receipt(owner, externalUser, createdAt) WHERE externalUser IS NOT NULL;

        ALTER TABLE api_token ADD COLUMN userName TEXT NOT NULL DEFAULT 'admin';

        CREATE TABLE idempotency_key_v7 (
            owner TEXT NOT NULL,
            externalUser TEXT NOT NULL DEFAULT '',
            key TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            receiptId TEXT REFERENCES receipt(id) ON DELETE CASCADE,
            createdAt TEXT NOT NULL,
            PRIMARY KEY (owner, externalUser, key)
        );
        INSERT INTO idempotency_key_v7 (owner, externalUser, key, fingerprint, receiptId, createdAt)
            SELECT 'admin', '', key, fingerprint, receiptId, createdAt FROM idempotency_key;
        DROP TABLE idempotency_key;
        ALTER TABLE idempotency_key_v7 RENAME TO idempotency_key;
        CREATE INDEX idempotency_key_on_receipt ON idempotency_key(receiptId);

        ALTER TABLE expense ADD COLUMN confirmedBy TEXT;
        CREATE TABLE expense_change (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            expenseId TEXT NOT NULL REFERENCES expense(id) ON DELETE CASCADE,
            at TEXT NOT NULL,
            userName TEXT NOT NULL,
            tokenName TEXT,
            fields TEXT NOT NULL,
            confirmed INTEGER NOT NULL
        );
        CREATE INDEX expense_change_on_expense ON expense_change(expenseId);

        CREATE TABLE webhook_subscription (
            id TEXT PRIMARY KEY NOT NULL,
            userName TEXT NOT NULL REFERENCES account(name) ON DELETE CASCADE,
            externalUser TEXT,
            url TEXT NOT NULL,
            secret TEXT NOT NULL,
            createdAt TEXT NOT NULL
        );
        CREATE INDEX webhook_subscription_on_user ON webhook_subscription(userName);
        ALTER TABLE webhook_event ADD COLUMN subscriptionId TEXT;
        """

    package static let v8 = """
        ALTER TABLE receipt ADD COLUMN source TEXT;
        CREATE TABLE mail_message (
            id TEXT PRIMARY KEY NOT NULL,
            mailbox TEXT NOT NULL,
            uidValidity INTEGER,
            uid INTEGER,
            messageId TEXT,
            sha256 TEXT NOT NULL,
            owner TEXT NOT NULL DEFAULT 'admin',
            externalUser TEXT NOT NULL DEFAULT '',
            sender TEXT,
            subject TEXT,
            sentDate TEXT,
            emlPath TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('received', 'filed', 'duplicate')),
            receiptIds TEXT NOT NULL DEFAULT '',
            note TEXT,
            receivedAt TEXT NOT NULL,
            filedAt TEXT,
            doneAt TEXT,
            UNIQUE (mailbox, uidValidity, uid),
            UNIQUE (owner, externalUser, sha256)
        );
        CREATE INDEX mail_message_on_messageId ON mail_message(owner, externalUser, messageId);
        CREATE INDEX mail_message_done_due ON mail_message(mailbox, uidValidity) WHERE state = 'filed' AND doneAt IS NULL;
        CREATE TABLE mail_mailbox (
            mailbox TEXT PRIMARY KEY NOT NULL,
            uidValidity INTEGER NOT NULL,
            lastUid INTEGER NOT NULL,
            updatedAt TEXT NOT NULL
        );
        """

    /// The sort key of an expense list: its date, no date last (`9999-99-99` sorts after every date).
    package static let expenseDateKey = "ifnull(date, '9999-99-99')"

    /// `expenseDateKey` on the table aliased `alias` (a query's expression must be the index's).
    package static func expenseDateKey(alias: String) -> String { "ifnull(\(alias).date, '9999-99-99')" }

    /// `amount` (exact decimal text: `-12.5`, `23.45`, `1200`) in ten-thousandths, as an integer:
    /// the digits before the point, then the first four after it (the money parser keeps at most
    /// four), without passing through a float.
    package static let amountInMinorUnits = """
        CAST(CASE WHEN instr(amount, '.') = 0 THEN amount || '0000'
                  ELSE substr(amount, 1, instr(amount, '.') - 1) || substr(substr(amount, instr(amount, '.') + 1) || '0000', 1, 4) END
             AS INTEGER)
        """

    package static var listsAsQueries: String { """
        ALTER TABLE receipt ADD COLUMN needsReview INTEGER;
        ALTER TABLE expense ADD COLUMN owner TEXT;
        ALTER TABLE expense ADD COLUMN groupName TEXT;
        ALTER TABLE expense ADD COLUMN externalUser TEXT;
        ALTER TABLE expense ADD COLUMN amountMinor INTEGER GENERATED ALWAYS AS (\(amountInMinorUnits)) VIRTUAL;
        UPDATE expense SET (owner, groupName, externalUser) =
            (SELECT r.owner, r.groupName, r.externalUser FROM receipt r WHERE r.id = expense.receiptId);
        UPDATE receipt SET needsReview = (SELECT e.needsReview FROM expense e WHERE e.receiptId = receipt.id);

        CREATE TRIGGER expense_has_its_receipts_ownership BEFORE INSERT ON expense
        WHEN NOT EXISTS (SELECT 1 FROM receipt r WHERE r.id = NEW.receiptId AND r.owner IS NEW.owner AND r.groupName IS NEW.groupName
                                                      AND r.externalUser IS NEW.externalUser) BEGIN
            SELECT RAISE(ABORT, 'an expense is written with its receipt''s owner, groupName and externalUser');
        END;
        CREATE TRIGGER receipt_ownership_goes_to_its_expense AFTER UPDATE OF owner, groupName, externalUser ON receipt BEGIN
            UPDATE expense SET owner = NEW.owner, groupName = NEW.groupName, externalUser = NEW.externalUser WHERE receiptId = NEW.id;
        END;
        CREATE TRIGGER expense_review_goes_to_its_receipt AFTER INSERT ON expense BEGIN
            UPDATE receipt SET needsReview = NEW.needsReview WHERE id = NEW.receiptId;
        END;
        CREATE TRIGGER expense_review_change_goes_to_its_receipt AFTER UPDATE OF needsReview ON expense BEGIN
            UPDATE receipt SET needsReview = NEW.needsReview WHERE id = NEW.receiptId;
        END;
        CREATE TRIGGER expense_gone_from_its_receipt AFTER DELETE ON expense BEGIN
            UPDATE receipt SET needsReview = NULL WHERE id = OLD.receiptId;
        END;

        CREATE TABLE expense_total (
            owner TEXT NOT NULL,
            groupName TEXT NOT NULL,
            currency TEXT NOT NULL,
            category TEXT NOT NULL,
            month TEXT NOT NULL,
            status TEXT NOT NULL,
            needsReview INTEGER NOT NULL,
            duplicate INTEGER NOT NULL,
            count INTEGER NOT NULL,
            priced INTEGER NOT NULL,
            totalMinor INTEGER NOT NULL,
            PRIMARY KEY (owner, groupName, currency, category, month, status, needsReview, duplicate)
        ) WITHOUT ROWID;
        CREATE INDEX expense_total_on_group ON expense_total(groupName) WHERE groupName <> '';
        INSERT INTO expense_total
            SELECT owner, ifnull(groupName, ''), ifnull(currency, ''), category, ifnull(substr(date, 1, 7), ''), status, needsReview,
                   possibleDuplicateOf IS NOT NULL AND status = 'draft', count(*), count(amount), ifnull(sum(amountMinor), 0)
            FROM expense GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
        CREATE TRIGGER expense_counts_in_its_total AFTER INSERT ON expense BEGIN
            \(totalChange("NEW", sign: "+"));
        END;
        CREATE TRIGGER expense_leaves_its_total AFTER DELETE ON expense BEGIN
            \(totalChange("OLD", sign: "-"));
        END;
        CREATE TRIGGER expense_moves_between_totals AFTER UPDATE OF owner, groupName, currency, category, date, status, needsReview,
            possibleDuplicateOf, amount ON expense BEGIN
            \(totalChange("OLD", sign: "-"));
            \(totalChange("NEW", sign: "+"));
        END;

        CREATE INDEX receipt_by_created ON receipt(createdAt);
        CREATE INDEX receipt_by_status ON receipt(ocrStatus, createdAt);
        CREATE INDEX receipt_on_owner_by_status ON receipt(owner, ocrStatus, createdAt);
        CREATE INDEX receipt_on_group_by_status ON receipt(groupName, ocrStatus, createdAt) WHERE groupName IS NOT NULL;
        CREATE INDEX receipt_on_external_user_by_status ON receipt(owner, externalUser, ocrStatus, createdAt) WHERE externalUser IS NOT NULL;
        CREATE INDEX receipt_flagged ON receipt(createdAt) WHERE needsReview = 1;
        CREATE INDEX receipt_flagged_on_owner ON receipt(owner, createdAt) WHERE needsReview = 1;
        CREATE INDEX receipt_flagged_on_group ON receipt(groupName, createdAt) WHERE needsReview = 1 AND groupName IS NOT NULL;
        CREATE INDEX receipt_flagged_on_external_user ON receipt(owner, externalUser, createdAt)
            WHERE needsReview = 1 AND externalUser IS NOT NULL;

        DROP INDEX IF EXISTS expense_on_date;
        CREATE INDEX expense_by_date ON expense(\(expenseDateKey), lastModified);
        CREATE INDEX expense_on_owner_by_date ON expense(owner, \(expenseDateKey), lastModified);
        CREATE INDEX expense_on_group_by_date ON expense(groupName, \(expenseDateKey), lastModified) WHERE groupName IS NOT NULL;
        CREATE INDEX expense_on_external_user_by_date ON expense(owner, externalUser, \(expenseDateKey), lastModified)
            WHERE externalUser IS NOT NULL;
        CREATE INDEX expense_totals_of_external_users ON expense(owner, externalUser, currency, category, substr(date, 1, 7),
            possibleDuplicateOf IS NOT NULL AND status = 'draft', amountMinor) WHERE externalUser IS NOT NULL;
        """ }

    /// The statement a trigger runs to add (`+`) or take (`-`) the expense `row` (`NEW`, `OLD`) to or
    /// from its row of `expense_total`; a row whose count reaches 0 goes.
    static func totalChange(_ row: String, sign: String) -> String {
        let key = "\(row).owner, ifnull(\(row).groupName, ''), ifnull(\(row).currency, ''), \(row).category, "
            + "ifnull(substr(\(row).date, 1, 7), ''), \(row).status, \(row).needsReview, "
            + "\(row).possibleDuplicateOf IS NOT NULL AND \(row).status = 'draft'"
        return """
            INSERT INTO expense_total VALUES (\(key), \(sign)1, \(sign)(\(row).amount IS NOT NULL), \(sign)ifnull(\(row).amountMinor, 0))
                ON CONFLICT DO UPDATE SET count = count + excluded.count, priced = priced + excluded.priced,
                    totalMinor = totalMinor + excluded.totalMinor;
            DELETE FROM expense_total WHERE count = 0 AND (owner, groupName, currency, category, month, status, needsReview, duplicate)
                = (\(key))
            """
    }

    /// v7's (owner, contentHash) index goes: a submission finds its owner's copy of some bytes by
    /// the bytes' own index (a handful of rows), and every insert paid for one index more.
    package static let v9 = """
        DROP INDEX IF EXISTS receipt_on_owner_content;
        """

    package static let v10SignIn = """
        CREATE TABLE web_session (
            id TEXT PRIMARY KEY NOT NULL,
            secretHash TEXT NOT NULL UNIQUE,
            userName TEXT NOT NULL REFERENCES account(name) ON DELETE CASCADE,
            method TEXT NOT NULL,
            tokenName TEXT,
            createdAt TEXT NOT NULL,
            lastUsedAt TEXT NOT NULL,
            expiresAt TEXT NOT NULL,
            device TEXT NOT NULL,
            address TEXT
        );
        CREATE INDEX web_session_on_user ON web_session(userName);
        CREATE TABLE invitation (
            id TEXT PRIMARY KEY NOT NULL,
            secretHash TEXT NOT NULL UNIQUE,
            userName TEXT NOT NULL REFERENCES account(name) ON DELETE CASCADE,
            createdBy TEXT NOT NULL,
            createdAt TEXT NOT NULL,
            expiresAt TEXT NOT NULL,
            usedAt TEXT,
            revokedAt TEXT
        );
        CREATE TABLE passkey (
            id TEXT PRIMARY KEY NOT NULL,
            userName TEXT NOT NULL REFERENCES account(name) ON DELETE CASCADE,
            userHandle TEXT NOT NULL,
            name TEXT NOT NULL,
            publicKey BLOB NOT NULL,
            algorithm INTEGER NOT NULL,
            signCount INTEGER NOT NULL,
            createdAt TEXT NOT NULL,
            lastUsedAt TEXT
        );
        CREATE INDEX passkey_on_user ON passkey(userName);
        CREATE TABLE account_password (
            userName TEXT PRIMARY KEY NOT NULL REFERENCES account(name) ON DELETE CASCADE,
            hash TEXT NOT NULL,
            updatedAt TEXT NOT NULL
        );
        CREATE TABLE webauthn_challenge (
            hash TEXT PRIMARY KEY NOT NULL,
            purpose TEXT NOT NULL,
            userName TEXT,
            expiresAt TEXT NOT NULL
        );
        """

    package static let pictures = """
        CREATE TABLE receipt_picture (
            receiptId TEXT NOT NULL REFERENCES receipt(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            contentHash TEXT NOT NULL,
            imagePath TEXT NOT NULL,
            PRIMARY KEY (receiptId, position)
        );
        CREATE INDEX receipt_picture_on_imagePath ON receipt_picture(imagePath);
        """

    package static let shopMemory = """
        CREATE TABLE shop_vendor (
            id TEXT PRIMARY KEY NOT NULL,
            book TEXT NOT NULL,
            name TEXT NOT NULL,
            nameKey TEXT NOT NULL,
            category TEXT,
            taxDeductiblePercentage TEXT,
            imported INTEGER NOT NULL DEFAULT 0,
            createdAt TEXT NOT NULL,
            updatedAt TEXT NOT NULL
        );
        CREATE UNIQUE INDEX shop_vendor_by_name ON shop_vendor(book, nameKey);
        CREATE TABLE shop_lesson (
            receiptId TEXT PRIMARY KEY NOT NULL REFERENCES receipt(id) ON DELETE CASCADE,
            vendorId TEXT NOT NULL REFERENCES shop_vendor(id) ON DELETE CASCADE,
            taughtName TEXT NOT NULL,
            category TEXT NOT NULL,
            taxDeductiblePercentage TEXT NOT NULL,
            currency TEXT,
            taxRate TEXT,
            totalLabels TEXT NOT NULL DEFAULT '[]',
            dateRows TEXT NOT NULL DEFAULT '[]',
            confirmedAt TEXT NOT NULL
        );
        CREATE INDEX shop_lesson_by_vendor ON shop_lesson(vendorId, confirmedAt);
        CREATE TABLE shop_key (
            book TEXT NOT NULL,
            kind TEXT NOT NULL,
            value TEXT NOT NULL,
            vendorId TEXT NOT NULL REFERENCES shop_vendor(id) ON DELETE CASCADE,
            receiptId TEXT REFERENCES shop_lesson(receiptId) ON DELETE CASCADE
        );
        CREATE INDEX shop_key_lookup ON shop_key(book, kind, value, vendorId);
        CREATE INDEX shop_key_by_vendor ON shop_key(vendorId);
        CREATE INDEX shop_key_by_receipt ON shop_key(receiptId);
        """
}
