/// The PostgreSQL store's schema: everything lives in the schema `receipts`, so the store can share
/// a database with the application that uses it. A migration, once released, never changes: add a
/// new one. Migrations are applied once, by whichever host gets the advisory lock first.
///
/// Money is `numeric` (exact), receipt dates are `date`, times `timestamptz`. A receipt's bytes are
/// in `image` (keyed by SHA-256) unless the store was opened with a shared image folder.
/// Deduplication by content is the partial unique index `receipt_one_per_content`: the first
/// receipt of some bytes is their `primaryCopy`; a forced re-read is another row that is not.
enum PostgresSchema {
    /// Key of the advisory lock held while migrating ("receipts" in ASCII, truncated).
    static let migrationLock: Int64 = 0x7265_6365_6970_7473

    static let migrations: [(version: String, sql: String)] = [("v1", v1), ("v2", v2), ("v3", v3), ("v4", v4), ("v6", v6)]

    static var latestVersion: String { migrations.last!.version }

    /// A migration's statements, one by one (the extended protocol runs one per query).
    static func statements(_ sql: String) -> [String] {
        sql.components(separatedBy: ";\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    static let v1 = """
        CREATE TABLE receipts.receipt (
            id uuid PRIMARY KEY,
            seq bigserial NOT NULL UNIQUE,
            file_path text NOT NULL,
            content_hash text,
            primary_copy boolean NOT NULL DEFAULT false,
            upload_timestamp timestamptz NOT NULL,
            ocr_status text NOT NULL DEFAULT 'pending'
                CHECK (ocr_status IN ('pending', 'processing', 'completed', 'failed')),
            ocr_result_json text,
            ocr_text text,
            analyzer text,
            attempts integer NOT NULL DEFAULT 0,
            last_error text,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            is_uploaded boolean NOT NULL DEFAULT false,
            expense_id uuid,
            image_ref text,
            lease_owner text,
            lease_expires_at timestamptz,
            not_before timestamptz
        );
        CREATE UNIQUE INDEX receipt_one_per_content ON receipts.receipt (content_hash) WHERE primary_copy;
        CREATE INDEX receipt_on_content_hash ON receipts.receipt (content_hash);
        CREATE INDEX receipt_pending ON receipts.receipt (seq) WHERE ocr_status = 'pending';
        CREATE INDEX receipt_processing ON receipts.receipt (lease_expires_at) WHERE ocr_status = 'processing';
        CREATE INDEX receipt_on_created ON receipts.receipt (created_at, seq);
        CREATE TABLE receipts.expense (
            id uuid PRIMARY KEY,
            seq bigserial NOT NULL UNIQUE,
            receipt_id uuid NOT NULL UNIQUE REFERENCES receipts.receipt (id) ON DELETE CASCADE,
            date date,
            amount numeric,
            currency text,
            tax_amount numeric,
            category text NOT NULL,
            description text NOT NULL,
            is_tax_deductible boolean NOT NULL,
            tax_deductible_percentage numeric NOT NULL,
            creation_method text NOT NULL DEFAULT 'ocr',
            status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'confirmed')),
            needs_review boolean NOT NULL,
            possible_duplicate_of uuid REFERENCES receipts.expense (id) ON DELETE SET NULL,
            is_uploaded boolean NOT NULL DEFAULT false,
            last_modified timestamptz NOT NULL,
            corrections text
        );
        CREATE INDEX expense_on_date ON receipts.expense (date);
        CREATE INDEX expense_on_purchase ON receipts.expense (lower(trim(description)), date, amount);
        CREATE TABLE receipts.image (
            hash text PRIMARY KEY,
            data bytea NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE receipts.api_token (
            name text PRIMARY KEY,
            secret_hash text NOT NULL UNIQUE,
            created_at timestamptz NOT NULL,
            revoked_at timestamptz
        );
        CREATE TABLE receipts.idempotency_key (
            key text PRIMARY KEY,
            receipt_id uuid NOT NULL REFERENCES receipts.receipt (id) ON DELETE CASCADE,
            created_at timestamptz NOT NULL
        )
        """

    /// An idempotency key keeps the fingerprint of its request (the SHA-256 of the image) and is
    /// claimed before its receipt exists.
    static let v2 = """
        ALTER TABLE receipts.idempotency_key ADD COLUMN fingerprint text;
        UPDATE receipts.idempotency_key k SET fingerprint = coalesce(r.content_hash, '')
            FROM receipts.receipt r WHERE r.id = k.receipt_id;
        UPDATE receipts.idempotency_key SET fingerprint = '' WHERE fingerprint IS NULL;
        ALTER TABLE receipts.idempotency_key ALTER COLUMN fingerprint SET NOT NULL;
        ALTER TABLE receipts.idempotency_key ALTER COLUMN receipt_id DROP NOT NULL
        """

    /// What an API token may do and for how long: its scopes (comma-separated; a token made before
    /// them keeps `admin`, everything), when it expires, when it was last used, and its own rate
    /// limit (`rate_limit_requests` per `rate_limit_seconds`; NULL: the server's; 0 requests: none).
    static let v3 = """
        ALTER TABLE receipts.api_token ADD COLUMN scopes text NOT NULL DEFAULT 'admin';
        ALTER TABLE receipts.api_token ADD COLUMN expires_at timestamptz;
        ALTER TABLE receipts.api_token ADD COLUMN last_used_at timestamptz;
        ALTER TABLE receipts.api_token ADD COLUMN rate_limit_requests integer;
        ALTER TABLE receipts.api_token ADD COLUMN rate_limit_seconds integer
        """

    /// The webhook outbox: one event per finished receipt while webhooks are on (`store_setting`
    /// `webhooks` = `on`), written in the transaction that finishes it; senders on any number of
    /// hosts claim due events with `FOR UPDATE SKIP LOCKED` and a lease. No foreign key: deleting a
    /// receipt does not take back the announcement of its result.
    static let v4 = """
        CREATE TABLE receipts.store_setting (
            name text PRIMARY KEY,
            value text NOT NULL
        );
        CREATE TABLE receipts.webhook_event (
            id uuid PRIMARY KEY,
            seq bigserial NOT NULL UNIQUE,
            receipt_id uuid NOT NULL,
            type text NOT NULL,
            body text NOT NULL,
            created_at timestamptz NOT NULL,
            pending_since timestamptz NOT NULL,
            attempts integer NOT NULL DEFAULT 0,
            next_attempt_at timestamptz NOT NULL,
            last_error text,
            delivered_at timestamptz,
            dead_at timestamptz,
            lease_owner text,
            lease_expires_at timestamptz
        );
        CREATE INDEX webhook_event_due ON receipts.webhook_event (next_attempt_at) WHERE delivered_at IS NULL AND dead_at IS NULL;
        CREATE INDEX webhook_event_on_created ON receipts.webhook_event (created_at, seq)
        """

    /// E-mail (`receipts mail`, `POST /v1/inbound-email`): a receipt's `source` (the message it was
    /// found in, a JSON object); `mail_message`, a row per message received (unique by mailbox,
    /// UIDVALIDITY and UID, and by the SHA-256 of its raw bytes; its Message-ID indexed), and
    /// `mail_mailbox`, each IMAP mailbox's UIDVALIDITY and UID watermark. (`v5` is another change's.)
    static let v6 = """
        ALTER TABLE receipts.receipt ADD COLUMN source text;
        CREATE TABLE receipts.mail_message (
            id uuid PRIMARY KEY,
            seq bigserial NOT NULL UNIQUE,
            mailbox text NOT NULL,
            uid_validity bigint,
            uid bigint,
            message_id text,
            sha256 text NOT NULL UNIQUE,
            sender text,
            subject text,
            sent_date text,
            eml_path text NOT NULL,
            state text NOT NULL CHECK (state IN ('received', 'filed', 'duplicate')),
            receipt_ids text NOT NULL DEFAULT '',
            note text,
            received_at timestamptz NOT NULL,
            filed_at timestamptz,
            done_at timestamptz,
            UNIQUE (mailbox, uid_validity, uid)
        );
        CREATE INDEX mail_message_on_message_id ON receipts.mail_message (message_id);
        CREATE INDEX mail_message_done_due ON receipts.mail_message (mailbox, uid_validity) WHERE state = 'filed' AND done_at IS NULL;
        CREATE TABLE receipts.mail_mailbox (
            mailbox text PRIMARY KEY,
            uid_validity bigint NOT NULL,
            last_uid bigint NOT NULL,
            updated_at timestamptz NOT NULL
        )
        """
}
