/// The PostgreSQL store's schema: everything lives in the schema `receipts`, so the store can share
/// a database with the application that uses it. A migration, once released, never changes: add a
/// new one. Migrations are applied once, by whichever host gets the advisory lock first.
///
/// Money is `numeric` (exact), receipt dates are `date`, times `timestamptz`. A receipt's bytes are
/// in `image` (keyed by SHA-256) unless the store was opened with a shared image folder.
/// Deduplication by content is a partial unique index (`receipt_one_per_content` until v5,
/// `receipt_one_per_owner_content` since): the first receipt of some bytes — of one owner and end
/// user since v5 — is their `primary_copy`; a forced re-read is another row that is not.
enum PostgresSchema {
    /// Key of the advisory lock held while migrating ("receipts" in ASCII, truncated).
    static let migrationLock: Int64 = 0x7265_6365_6970_7473

    static let migrations: [(version: String, sql: String)] = [("v1", v1), ("v2", v2), ("v3", v3), ("v4", v4), ("v5", v5), ("v6", v6),
                                                                    ("v7-sign-in", v7SignIn), ("lists-as-queries", listsAsQueries),
                                                                    ("pictures", pictures), ("shop-memory", shopMemory)]

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

    /// Users and groups (SQLite's v7, in PostgreSQL's idiom). `account` is a user (`user` is a
    /// reserved word), `account_group` a household or team, `group_member` a user's role in one
    /// (`viewer` or `editor`). One administrator, `admin`, is made, and everything stored before
    /// becomes theirs: receipts (`owner` defaults to it), tokens (`user_name`) and idempotency keys.
    ///
    /// A receipt has an `owner` (a user: a foreign key, so a user who owns receipts cannot vanish),
    /// at most one `group_name` (unshared when its group is removed), and for a backend's own users
    /// an `external_user` and `metadata` (JSON text, kept verbatim). Deduplication by content
    /// becomes per owner and end user: the same bytes from two users are two receipts, each its
    /// owner's primary copy (every receipt so far is `admin`'s, so the new index holds at once).
    /// Lists stay indexed: by owner, by group, by a service's end user, each with `created_at`.
    ///
    /// Idempotency keys belong to a user and end user (`''` for none: a primary key cannot hold
    /// NULL); the old primary key on `key` alone is dropped first. Each expense keeps who
    /// confirmed it (`confirmed_by`) and the history of who changed what (`expense_change`).
    /// Users' own webhooks are `webhook_subscription`; an outbox event names the one it is for
    /// (`subscription_id`; NULL: the server-wide webhook). No foreign key there: an event delivered
    /// to a webhook since removed stays as the record of what was sent.
    static let v5 = """
        CREATE TABLE receipts.account_group (
            name text PRIMARY KEY,
            created_at timestamptz NOT NULL
        );
        CREATE TABLE receipts.account (
            name text PRIMARY KEY,
            is_admin boolean NOT NULL DEFAULT false,
            default_group text REFERENCES receipts.account_group (name) ON DELETE SET NULL,
            created_at timestamptz NOT NULL
        );
        CREATE TABLE receipts.group_member (
            group_name text NOT NULL REFERENCES receipts.account_group (name) ON DELETE CASCADE,
            user_name text NOT NULL REFERENCES receipts.account (name) ON DELETE CASCADE,
            role text NOT NULL CHECK (role IN ('viewer', 'editor')),
            PRIMARY KEY (group_name, user_name)
        );
        CREATE INDEX group_member_on_user ON receipts.group_member (user_name);
        INSERT INTO receipts.account (name, is_admin, created_at) VALUES ('admin', true, now());

        ALTER TABLE receipts.receipt ADD COLUMN owner text NOT NULL DEFAULT 'admin' REFERENCES receipts.account (name);
        ALTER TABLE receipts.receipt ADD COLUMN group_name text REFERENCES receipts.account_group (name) ON DELETE SET NULL;
        ALTER TABLE receipts.receipt ADD COLUMN external_user text;
        ALTER TABLE receipts.receipt ADD COLUMN metadata text;
        DROP INDEX receipts.receipt_one_per_content;
        CREATE UNIQUE INDEX receipt_one_per_owner_content ON receipts.receipt (owner, coalesce(external_user, ''), content_hash)
            WHERE primary_copy;
        CREATE INDEX receipt_on_owner ON receipts.receipt (owner, created_at, seq);
        CREATE INDEX receipt_on_group ON receipts.receipt (group_name, created_at, seq) WHERE group_name IS NOT NULL;
        CREATE INDEX receipt_on_external_user ON receipts.receipt (owner, external_user, created_at, seq)
            WHERE external_user IS NOT NULL;

        ALTER TABLE receipts.api_token ADD COLUMN user_name text NOT NULL DEFAULT 'admin'
            REFERENCES receipts.account (name) ON DELETE CASCADE;
        CREATE INDEX api_token_on_user ON receipts.api_token (user_name);

        ALTER TABLE receipts.idempotency_key ADD COLUMN owner text NOT NULL DEFAULT 'admin';
        ALTER TABLE receipts.idempotency_key ADD COLUMN external_user text NOT NULL DEFAULT '';
        ALTER TABLE receipts.idempotency_key ALTER COLUMN owner DROP DEFAULT;
        ALTER TABLE receipts.idempotency_key DROP CONSTRAINT idempotency_key_pkey;
        ALTER TABLE receipts.idempotency_key ADD PRIMARY KEY (owner, external_user, key);
        CREATE INDEX idempotency_key_on_receipt ON receipts.idempotency_key (receipt_id);

        ALTER TABLE receipts.expense ADD COLUMN confirmed_by text;
        CREATE TABLE receipts.expense_change (
            id bigserial PRIMARY KEY,
            expense_id uuid NOT NULL REFERENCES receipts.expense (id) ON DELETE CASCADE,
            at timestamptz NOT NULL,
            user_name text NOT NULL,
            token_name text,
            fields text[] NOT NULL,
            confirmed boolean NOT NULL
        );
        CREATE INDEX expense_change_on_expense ON receipts.expense_change (expense_id, id);

        CREATE TABLE receipts.webhook_subscription (
            id uuid PRIMARY KEY,
            seq bigserial NOT NULL UNIQUE,
            user_name text NOT NULL REFERENCES receipts.account (name) ON DELETE CASCADE,
            external_user text,
            url text NOT NULL,
            secret text NOT NULL,
            created_at timestamptz NOT NULL
        );
        CREATE INDEX webhook_subscription_on_user ON receipts.webhook_subscription (user_name);
        ALTER TABLE receipts.webhook_event ADD COLUMN subscription_id uuid;
        CREATE INDEX webhook_event_on_subscription ON receipts.webhook_event (subscription_id) WHERE delivered_at IS NULL
        """

    /// E-mail (`receipts mail`, `POST /v1/inbound-email`): a receipt's `source` (the message it was
    /// found in, a JSON object); `mail_message`, a row per message received (unique by mailbox,
    /// UIDVALIDITY and UID, and by its owner's and the SHA-256 of its raw bytes; its Message-ID
    /// indexed), and `mail_mailbox`, each IMAP mailbox's UIDVALIDITY and UID watermark.
    static let v6 = """
        ALTER TABLE receipts.receipt ADD COLUMN source text;
        CREATE TABLE receipts.mail_message (
            id uuid PRIMARY KEY,
            seq bigserial NOT NULL UNIQUE,
            mailbox text NOT NULL,
            uid_validity bigint,
            uid bigint,
            message_id text,
            sha256 text NOT NULL,
            owner text NOT NULL DEFAULT 'admin' REFERENCES receipts.account (name),
            external_user text NOT NULL DEFAULT '',
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
            UNIQUE (mailbox, uid_validity, uid),
            UNIQUE (owner, external_user, sha256)
        );
        CREATE INDEX mail_message_on_message_id ON receipts.mail_message (owner, external_user, message_id);
        CREATE INDEX mail_message_done_due ON receipts.mail_message (mailbox, uid_validity) WHERE state = 'filed' AND done_at IS NULL;
        CREATE TABLE receipts.mail_mailbox (
            mailbox text PRIMARY KEY,
            uid_validity bigint NOT NULL,
            last_uid bigint NOT NULL,
            updated_at timestamptz NOT NULL
        )
        """

    /// Signing people in (`docs/review-ui.md`): `web_session` (a browser's session by the SHA-256
    /// of its cookie, with how, when and from what it signed in), `invitation` (one-time links by
    /// the SHA-256 of their secret), `passkey` (WebAuthn credentials: COSE public key, counter),
    /// `account_password` (Argon2id hashes), `webauthn_challenge` (single-use, short-lived). A
    /// user's rows go with the user (ON DELETE CASCADE).
    static let v7SignIn = """
        CREATE TABLE receipts.web_session (
            id text PRIMARY KEY,
            secret_hash text NOT NULL UNIQUE,
            user_name text NOT NULL REFERENCES receipts.account (name) ON DELETE CASCADE,
            method text NOT NULL,
            token_name text,
            created_at timestamptz NOT NULL,
            last_used_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            device text NOT NULL,
            address text
        );
        CREATE INDEX web_session_on_user ON receipts.web_session (user_name);
        CREATE TABLE receipts.invitation (
            id text PRIMARY KEY,
            secret_hash text NOT NULL UNIQUE,
            user_name text NOT NULL REFERENCES receipts.account (name) ON DELETE CASCADE,
            created_by text NOT NULL,
            created_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            used_at timestamptz,
            revoked_at timestamptz
        );
        CREATE TABLE receipts.passkey (
            id text PRIMARY KEY,
            user_name text NOT NULL REFERENCES receipts.account (name) ON DELETE CASCADE,
            user_handle text NOT NULL,
            name text NOT NULL,
            public_key bytea NOT NULL,
            algorithm integer NOT NULL,
            sign_count bigint NOT NULL,
            created_at timestamptz NOT NULL,
            last_used_at timestamptz
        );
        CREATE INDEX passkey_on_user ON receipts.passkey (user_name);
        CREATE TABLE receipts.account_password (
            user_name text PRIMARY KEY REFERENCES receipts.account (name) ON DELETE CASCADE,
            hash text NOT NULL,
            updated_at timestamptz NOT NULL
        );
        CREATE TABLE receipts.webauthn_challenge (
            hash text PRIMARY KEY,
            purpose text NOT NULL,
            user_name text,
            expires_at timestamptz NOT NULL
        )
        """

    /// Lists as queries (issue 47), as SQLite's `lists-as-queries`: an expense keeps its receipt's
    /// `owner`, `group_name` and `external_user`, and a receipt its expense's `needs_review` (NULL
    /// without one), kept equal to their source by triggers whatever writes them; `amount_minor`
    /// is the amount in ten-thousandths (a generated column) for totals summed as integers.
    /// `expense_total` holds the totals per owner, group, currency, category, month, status, review
    /// flag and duplicate flag, kept by a trigger, so that totals and counts sum a few thousand rows.
    /// Indexes: receipts newest first by status and flagged ones (everyone's, per owner, group and
    /// end user), expenses in their list's order (date, none last) per owner, group and end user.
    /// (Each function's body is on one line: statements are split at a semicolon ending a line.)
    static let listsAsQueries = """
        ALTER TABLE receipts.receipt ADD COLUMN needs_review boolean;
        ALTER TABLE receipts.expense ADD COLUMN owner text;
        ALTER TABLE receipts.expense ADD COLUMN group_name text;
        ALTER TABLE receipts.expense ADD COLUMN external_user text;
        ALTER TABLE receipts.expense ADD COLUMN amount_minor bigint GENERATED ALWAYS AS ((amount * 10000)::bigint) STORED;
        UPDATE receipts.expense e SET owner = r.owner, group_name = r.group_name, external_user = r.external_user
            FROM receipts.receipt r WHERE r.id = e.receipt_id;
        UPDATE receipts.receipt r SET needs_review = e.needs_review FROM receipts.expense e WHERE e.receipt_id = r.id;
        CREATE FUNCTION receipts.expense_takes_its_receipts_ownership() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN SELECT r.owner, r.group_name, r.external_user INTO NEW.owner, NEW.group_name, NEW.external_user FROM receipts.receipt r WHERE r.id = NEW.receipt_id; RETURN NEW; END $$;
        CREATE TRIGGER expense_takes_its_receipts_ownership BEFORE INSERT ON receipts.expense
            FOR EACH ROW EXECUTE FUNCTION receipts.expense_takes_its_receipts_ownership();
        CREATE FUNCTION receipts.receipt_ownership_goes_to_its_expense() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE receipts.expense SET owner = NEW.owner, group_name = NEW.group_name, external_user = NEW.external_user WHERE receipt_id = NEW.id; RETURN NULL; END $$;
        CREATE TRIGGER receipt_ownership_goes_to_its_expense AFTER UPDATE OF owner, group_name, external_user ON receipts.receipt
            FOR EACH ROW EXECUTE FUNCTION receipts.receipt_ownership_goes_to_its_expense();
        CREATE FUNCTION receipts.expense_review_goes_to_its_receipt() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'DELETE' THEN UPDATE receipts.receipt SET needs_review = NULL WHERE id = OLD.receipt_id; ELSE UPDATE receipts.receipt SET needs_review = NEW.needs_review WHERE id = NEW.receipt_id; END IF; RETURN NULL; END $$;
        CREATE TRIGGER expense_review_goes_to_its_receipt AFTER INSERT OR DELETE OR UPDATE OF needs_review ON receipts.expense
            FOR EACH ROW EXECUTE FUNCTION receipts.expense_review_goes_to_its_receipt();

        CREATE TABLE receipts.expense_total (
            owner text NOT NULL,
            group_name text NOT NULL,
            currency text NOT NULL,
            category text NOT NULL,
            month text NOT NULL,
            status text NOT NULL,
            needs_review boolean NOT NULL,
            duplicate boolean NOT NULL,
            count bigint NOT NULL,
            priced bigint NOT NULL,
            total_minor numeric NOT NULL,
            PRIMARY KEY (owner, group_name, currency, category, month, status, needs_review, duplicate)
        );
        CREATE INDEX expense_total_on_group ON receipts.expense_total (group_name) WHERE group_name <> '';
        INSERT INTO receipts.expense_total
            SELECT owner, coalesce(group_name, ''), coalesce(currency, ''), category, coalesce(to_char(date, 'YYYY-MM'), ''), status,
                   needs_review, possible_duplicate_of IS NOT NULL AND status = 'draft', count(*), count(amount), coalesce(sum(amount_minor), 0)
            FROM receipts.expense GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
        CREATE FUNCTION receipts.expense_total_change(e receipts.expense, sign integer) RETURNS void LANGUAGE plpgsql AS $$ BEGIN INSERT INTO receipts.expense_total VALUES (e.owner, coalesce(e.group_name, ''), coalesce(e.currency, ''), e.category, coalesce(to_char(e.date, 'YYYY-MM'), ''), e.status, e.needs_review, e.possible_duplicate_of IS NOT NULL AND e.status = 'draft', sign, sign * (e.amount IS NOT NULL)::integer, sign * coalesce(e.amount_minor, 0)) ON CONFLICT (owner, group_name, currency, category, month, status, needs_review, duplicate) DO UPDATE SET count = expense_total.count + excluded.count, priced = expense_total.priced + excluded.priced, total_minor = expense_total.total_minor + excluded.total_minor; DELETE FROM receipts.expense_total t WHERE t.count = 0 AND (t.owner, t.group_name, t.currency, t.category, t.month, t.status, t.needs_review, t.duplicate) = (e.owner, coalesce(e.group_name, ''), coalesce(e.currency, ''), e.category, coalesce(to_char(e.date, 'YYYY-MM'), ''), e.status, e.needs_review, e.possible_duplicate_of IS NOT NULL AND e.status = 'draft'); END $$;
        CREATE FUNCTION receipts.expense_counts_in_its_total() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM receipts.expense_total_change(OLD, -1); END IF; IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM receipts.expense_total_change(NEW, 1); END IF; RETURN NULL; END $$;
        CREATE TRIGGER expense_counts_in_its_total AFTER INSERT OR DELETE
            OR UPDATE OF owner, group_name, currency, category, date, status, needs_review, possible_duplicate_of, amount ON receipts.expense
            FOR EACH ROW EXECUTE FUNCTION receipts.expense_counts_in_its_total();

        CREATE INDEX receipt_by_status ON receipts.receipt (ocr_status, created_at, seq);
        CREATE INDEX receipt_on_owner_by_status ON receipts.receipt (owner, ocr_status, created_at, seq);
        CREATE INDEX receipt_on_group_by_status ON receipts.receipt (group_name, ocr_status, created_at, seq) WHERE group_name IS NOT NULL;
        CREATE INDEX receipt_on_external_user_by_status ON receipts.receipt (owner, external_user, ocr_status, created_at, seq)
            WHERE external_user IS NOT NULL;
        CREATE INDEX receipt_flagged ON receipts.receipt (created_at, seq) WHERE needs_review;
        CREATE INDEX receipt_flagged_on_owner ON receipts.receipt (owner, created_at, seq) WHERE needs_review;
        CREATE INDEX receipt_flagged_on_group ON receipts.receipt (group_name, created_at, seq) WHERE needs_review AND group_name IS NOT NULL;
        CREATE INDEX receipt_flagged_on_external_user ON receipts.receipt (owner, external_user, created_at, seq)
            WHERE needs_review AND external_user IS NOT NULL;

        DROP INDEX receipts.expense_on_date;
        CREATE INDEX expense_by_date ON receipts.expense ((coalesce(date, 'infinity'::date)), last_modified, seq);
        CREATE INDEX expense_on_owner_by_date ON receipts.expense (owner, (coalesce(date, 'infinity'::date)), last_modified, seq);
        CREATE INDEX expense_on_group_by_date ON receipts.expense (group_name, (coalesce(date, 'infinity'::date)), last_modified, seq)
            WHERE group_name IS NOT NULL;
        CREATE INDEX expense_on_external_user_by_date ON receipts.expense (owner, external_user, (coalesce(date, 'infinity'::date)), last_modified, seq)
            WHERE external_user IS NOT NULL
        """

    /// A receipt photographed in several pictures: a row per picture (position from 1, file name,
    /// SHA-256, where its bytes are); the first is also the receipt's `image_ref`, and the
    /// receipt's `content_hash` is the hash of its pictures' hashes together.
    static let pictures = """
        CREATE TABLE receipts.receipt_picture (
            receipt_id uuid NOT NULL REFERENCES receipts.receipt (id) ON DELETE CASCADE,
            position integer NOT NULL,
            name text NOT NULL,
            content_hash text NOT NULL,
            image_ref text NOT NULL,
            PRIMARY KEY (receipt_id, position)
        );
        CREATE INDEX receipt_picture_on_image_ref ON receipts.receipt_picture (image_ref)
        """

    /// The memory of shops (issue 57), as SQLite's `shop-memory`: a book's shops by the person's
    /// name, what each confirmed receipt taught (gone with the receipt), and the keys each lesson or
    /// import taught, looked up by book, kind and value.
    static let shopMemory = """
        CREATE TABLE receipts.shop_vendor (
            id uuid PRIMARY KEY,
            book text NOT NULL,
            name text NOT NULL,
            name_key text NOT NULL,
            category text,
            tax_deductible_percentage numeric,
            imported boolean NOT NULL DEFAULT false,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL
        );
        CREATE UNIQUE INDEX shop_vendor_by_name ON receipts.shop_vendor (book, name_key);
        CREATE TABLE receipts.shop_lesson (
            receipt_id uuid PRIMARY KEY REFERENCES receipts.receipt (id) ON DELETE CASCADE,
            seq bigserial NOT NULL,
            vendor_id uuid NOT NULL REFERENCES receipts.shop_vendor (id) ON DELETE CASCADE,
            taught_name text NOT NULL,
            category text NOT NULL,
            tax_deductible_percentage numeric NOT NULL,
            currency text,
            tax_rate numeric,
            total_labels text[] NOT NULL DEFAULT '{}',
            date_rows text[] NOT NULL DEFAULT '{}',
            confirmed_at timestamptz NOT NULL
        );
        CREATE INDEX shop_lesson_by_vendor ON receipts.shop_lesson (vendor_id, confirmed_at);
        CREATE TABLE receipts.shop_key (
            book text NOT NULL,
            kind text NOT NULL,
            value text NOT NULL,
            vendor_id uuid NOT NULL REFERENCES receipts.shop_vendor (id) ON DELETE CASCADE,
            receipt_id uuid REFERENCES receipts.shop_lesson (receipt_id) ON DELETE CASCADE
        );
        CREATE INDEX shop_key_lookup ON receipts.shop_key (book, kind, value, vendor_id);
        CREATE INDEX shop_key_by_vendor ON receipts.shop_key (vendor_id);
        CREATE INDEX shop_key_by_receipt ON receipts.shop_key (receipt_id)
        """
}
