import ArgumentParser
import Foundation
import Logging
import ReceiptKit
import ReceiptMail
import ReceiptServer
import ReceiptServerStore
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the pipeline over HTTP: upload receipts, read their records, analyze an image.",
        discussion: """
            Runs an HTTP server (JSON under /v1) beside the queue workers, on the same store as \
            `receipts process`. Records are the NDJSON records `process` prints; errors are RFC 9457 \
            problem documents (application/problem+json) with a one-line detail.

              POST   /v1/receipts[?wait=SECONDS&filename=NAME]   the image as the body (image/* or \
            application/pdf; named by ?filename= or Content-Disposition) or as the 'file' part of \
            multipart/form-data (several 'file' parts: one long receipt's pictures, top to bottom, read as \
            one). The same bytes return the same receipt (a failed one is tried again). \
            200 with the finished record when it is done within wait (at most 30 s), else 202 with \
            Location: /v1/receipts/{id}. Over --max-upload-mb: 413 and the connection is closed.
              GET    /v1/receipts[?status=&needsReview=&limit=&after=]   newest first; 'next' is the cursor of the next page.
              GET    /v1/receipts/{id}, GET /v1/receipts/{id}/image, POST /v1/receipts/{id}/retry
              POST   /v1/receipts/{id}/pictures[?wait=SECONDS&filename=NAME]   the rest of a long receipt: \
            the picture goes below its others and the receipt is read again with all of them.
              GET    /v1/receipts/{id}/pages/{page}[?format=png|jpeg]   a PDF's page as a picture; X-Page-Count.
              GET    /v1/receipts/{id}/thumbnail   a JPEG of at most 320 pixels (a PDF's first page).
              DELETE /v1/receipts/{id}[?force=true]   the receipt, its image copy and its expense; a \
            confirmed expense (a person's record) is kept (409) unless force=true.
              GET    /v1/expenses[?from=&to=&category=&status=&needsReview=&limit=&after=]   by date, paged.
              GET    /v1/expenses/export.csv[?from=&to=&category=&status=&needsReview=]   what `receipts export` prints.
              GET    /v1/expenses/{id}   the expense and its corrections; ETag is its version.
              PATCH  /v1/expenses/{id}   {"amount": "12.50", "category": "Fuel", "status": "confirmed", …}: \
            correct and confirm; money is a number or a plain decimal string, the category one of the \
            taxonomy's (a new one brings its deduction), the currency ISO 4217. If-Match: <ETag> saves \
            only over that version (412 otherwise). What the analyzer had drafted is kept in corrections.
              POST   /v1/analyze[?store=true]   {"image": "<base64, URL-safe base64 or data: URL>", \
            "mimeType": "image/jpeg"} in, the analysis out; nothing stored unless store=true (then with \
            receiptId and expenseId). At most one image per OCR thread at once (--max-analyses), within \
            --max-pixels of decoded images: others get 429 with Retry-After.
              POST   /v1/inbound-email   a raw e-mail (Content-Type: message/rfc822, as mail providers' \
            inbound webhooks send it) filed as `receipts mail` files one: 201 once stored, 200 when known.
              GET    /healthz (the process is up), /readyz (the store can be read; with --mail-config, each \
            mailbox's state), /metrics (Prometheus; \
            served from memory while the store is down), /openapi.yaml (OpenAPI 3.1 of all of this)

            A query parameter a route does not take is refused (400); a method a path does not serve \
            gets 405 with Allow (OPTIONS: 204 with Allow). While the store cannot be reached (PostgreSQL \
            down), /v1 answers 503 with Retry-After at once.

            Webhooks (--webhook URL): each finished receipt's record is POSTed as JSON with the headers \
            Receipts-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the secret>, \
            Receipts-Delivery-Id: <event id> (the same on every attempt: drop duplicates by it) and \
            Receipts-Event: receipt.completed|receipt.failed. Deliveries are kept in the store (an outbox), \
            written with the receipt's result: from the first start with --webhook, every process that \
            finishes receipts in the store records them (`receipts worker` on other hosts too), so a stop, a \
            crash or a receiver that is down loses none. A delivery that fails is retried after 1, 2, 4 … s, \
            at most 10 min apart, across restarts; after --webhook-dead-after it is a dead letter (logged). \
            Several servers on one PostgreSQL store never send one delivery at the same time. The queue \
            never waits for webhooks. See `receipts webhooks list|retry|disable`.

            API tokens (receipts token create|list|revoke): once one exists, every /v1 route needs \
            Authorization: Bearer <token> (not /healthz or /readyz). Without any, the server listens only \
            on loopback addresses. A token holds scopes: read (GET receipts, images, expenses, the export), \
            upload (POST /v1/receipts, /v1/analyze), review (PATCH /v1/expenses/{id}, retry; also read), \
            admin (everything, DELETE too). A token without the route's scope gets 403 naming it; an \
            expired, unknown or revoked one 401; one over its rate limit (--rate-limit, or its own) 429 \
            with Retry-After. The review page's session has its token's scopes and ends when it expires. Idempotency-Key on POST /v1/receipts: the same key returns the same \
            receipt; the same key with other bytes gets 422 and nothing is stored.

            People sign in to the review page (/) as people: `receipts user invite NAME` prints a one-time \
            link (and on a terminal its QR code) that signs them in and offers a passkey; then they sign \
            in with the passkey (WebAuthn: its relying party is --public-url's host, so give a name, not an \
            IP address), or a password (`receipts user password NAME`). `receipts user sessions NAME` lists \
            and ends the browsers they are signed in on. A session is never a bearer token.

            Backups (--backup-dir DIR): a snapshot of the store and its images every --backup-every \
            (24h), the newest --keep kept; see `receipts store backup --help` and docs/backup.md. \
            /metrics: receipts_backup_last_success_timestamp_seconds, receipts_backups_total{outcome}.

            --workers 0 runs no queue workers here (the API only; `receipts worker` on other hosts reads \
            the receipts); /v1/analyze still reads on one OCR thread. Logs: one line when listening and \
            when stopped; -v adds a line per receipt this process's workers finish (failures are logged \
            at error level, shown without -v). SIGTERM or Ctrl-C: stop accepting, finish the receipts in \
            hand, exit. Exit status: 0 after a stop, 2 for usage errors, a port in use, an unusable store.

            HTTPS (--tls-cert FILE --tls-key FILE, PEM): a phone on the home network installs the review \
            page (Add to Home Screen) and keeps uploads made offline only from a secure origin; on \
            loopback, HTTP is enough. docs/review-ui.md ("HTTPS for a phone at home") shows how to make a certificate a phone trusts with openssl.

            Examples:
              receipts serve --port 8080
              receipts serve --host 0.0.0.0 --port 8443 --tls-cert home.pem --tls-key home-key.pem
              curl -s --data-binary @IMG_0042.jpg -H 'Content-Type: image/jpeg' 'http://127.0.0.1:8080/v1/receipts?wait=20'
            """)

    @Option(help: "Address to listen on. Anything but loopback needs an API token first (receipts token create).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one; the port is logged).")
    var port = 8080

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp(
        "Serve HTTPS with this certificate (PEM: the server's, then any intermediates); needs --tls-key. Without it: HTTP.",
        valueName: "FILE"))
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The private key of --tls-cert (PEM).", valueName: "FILE"))
    var tlsKey: String?

    @Option(name: .customLong("public-url"), help: ArgumentHelp(
        "The address people open the server at (https://receipts.example.com, http://localhost:8080): invitation links start with it, "
            + "and passkeys are for its host (an IP address cannot have passkeys). Kept in the store: given once, later starts and "
            + "`receipts user invite` use it.", valueName: "URL"))
    var publicURL: String?

    @Option(name: .customLong("password-cost"), help: ArgumentHelp("Argon2id limits of new password hashes (tests only).", visibility: .hidden))
    var passwordCost: PasswordHasher.Cost = .moderate

    @Option(name: .customLong("max-upload-mb"), help: "Refuse uploads larger than this many megabytes (413).")
    var maxUploadMB: Double = 20

    @Option(name: .customLong("max-wait"), help: ArgumentHelp(
        "Longest ?wait= an upload or analysis is held open for its result, in seconds; a longer one waits this long.", valueName: "SECONDS"))
    var maxWait: Double = 30

    @Option(name: .customLong("max-pending"), help: "Refuse uploads (429) while this many receipts wait to be read.")
    var maxPending = 1000

    @Option(name: .customLong("max-analyses"), help: ArgumentHelp(
        "POST /v1/analyze requests read at once; more get 429 (default: one per OCR thread, --workers or 1).", valueName: "N"))
    var maxAnalyses: Int?

    @Option(help: ArgumentHelp("POST each receipt's record here when it is completed or has failed for good (signed; see below).", valueName: "URL"))
    var webhook: String?

    @Option(name: .customLong("webhook-secret-file"), help: ArgumentHelp(
        "File holding the webhook signing secret (default: $RECEIPTS_WEBHOOK_SECRET).", valueName: "FILE"))
    var webhookSecretFile: String?

    @Option(name: .customLong("rate-limit"), help: ArgumentHelp(
        "Requests each API token may send (a token bucket per token, in this process's memory), unless the token has its own "
            + "(receipts token create --rate-limit); more get 429 with Retry-After. off: no limit.",
        valueName: "N/PERIOD"))
    var rateLimit = ReceiptServer.Configuration.defaultRateLimit.description

    @Option(name: .customLong("webhook-dead-after"), help: ArgumentHelp(
        "Give a delivery up (a dead letter) when it has failed for this long: 90s, 30m, 24h, 7d.", valueName: "DURATION"))
    var webhookDeadAfter = "24h"

    @Option(name: .customLong("webhook-keep"), help: ArgumentHelp(
        "Delete delivered webhook events from the store this long after their delivery (pending and dead ones stay): 30d, 12h.",
        valueName: "DURATION"))
    var webhookKeep = "30d"

    @Option(name: .customLong("webhook-retry-delay"), help: ArgumentHelp("Seconds before a failed webhook's first retry (doubling).", visibility: .hidden))
    var webhookRetryDelay: Double = 1

    @Option(name: .customLong("webhook-max-retry-delay"), help: ArgumentHelp("Most seconds between a webhook's retries.", visibility: .hidden))
    var webhookMaxRetryDelay: Double = 600

    @Option(name: .customLong("mail-config"), help: ArgumentHelp(
        "Poll these mailboxes beside the server, as `receipts mail` does (a JSON file: see docs/email.md); /readyz reports them.",
        valueName: "FILE"))
    var mailConfig: String?

    @Option(name: .customLong("backup-dir"), help: ArgumentHelp(
        "Back the store up into this folder on a schedule (as `receipts store backup DIR`; /metrics says when the last one finished).",
        valueName: "DIR"))
    var backupDir: String?

    @Option(name: .customLong("backup-every"), help: ArgumentHelp(
        "How often to back up with --backup-dir: 24h, 6h, 30m, 7d (counted from the newest snapshot in the folder).", valueName: "DURATION"))
    var backupEvery = "24h"

    @Option(help: ArgumentHelp("With --backup-dir: keep the newest N snapshots (and the images they name).", valueName: "N"))
    var keep: Int?

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var pipeline: PipelineOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard Self.seconds(backupEvery) != nil else {
            throw ValidationError("--backup-every \(backupEvery): not a duration; give a number with s, m, h or d (24h).")
        }
        if let keep, keep < 1 { throw ValidationError("--keep must be 1 or more.") }
        if backupDir == nil, keep != nil { throw ValidationError("--keep is for --backup-dir DIR; give both.") }
        if let mailConfig { _ = try MailConfigFile.load(mailConfig) }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535.") }
        _ = try tls()
        if let publicURL {
            do { _ = try SignInConfiguration.publicURL(publicURL) } catch let error as SignInError { throw ValidationError(error.description + ".") }
        }
        guard maxUploadMB > 0 else { throw ValidationError("--max-upload-mb must be positive.") }
        guard maxWait >= 0, maxWait.isFinite else { throw ValidationError("--max-wait must be 0 or more seconds.") }
        guard maxPending > 0 else { throw ValidationError("--max-pending must be positive.") }
        if let maxAnalyses, maxAnalyses < 1 { throw ValidationError("--max-analyses must be 1 or more.") }
        do {
            _ = try RateLimit.parse(rateLimit)
        } catch let error as ReceiptError {
            throw ValidationError("--rate-limit: \(error.message).")
        }
        if let webhook {
            guard let url = URL(string: webhook), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ValidationError("--webhook \(webhook): not an http(s) URL.")
            }
            _ = try webhookSecret()
        } else if webhookSecretFile != nil {
            throw ValidationError("--webhook-secret-file is for --webhook URL; give both.")
        }
        guard Self.seconds(webhookDeadAfter) != nil else {
            throw ValidationError("--webhook-dead-after \(webhookDeadAfter): not a duration; give a number with s, m, h or d (24h).")
        }
        guard Self.seconds(webhookKeep) != nil else {
            throw ValidationError("--webhook-keep \(webhookKeep): not a duration; give a number with s, m, h or d (30d).")
        }
        guard webhookRetryDelay > 0, webhookMaxRetryDelay >= webhookRetryDelay else {
            throw ValidationError("--webhook-retry-delay must be positive and at most --webhook-max-retry-delay.")
        }
    }

    /// HTTPS from --tls-cert and --tls-key (both or neither), loaded and checked; nil for HTTP.
    private func tls() throws -> ServerTLS? {
        switch (tlsCert, tlsKey) {
        case (nil, nil): return nil
        case (_, nil): throw ValidationError("--tls-cert needs --tls-key (the certificate's private key).")
        case (nil, _): throw ValidationError("--tls-key needs --tls-cert (the certificate it is the key of).")
        case let (cert?, key?):
            do {
                return try ServerTLS(certificateFile: cert, keyFile: key)
            } catch let error as ReceiptError {
                let flag = error.file == key ? "--tls-key" : "--tls-cert"
                throw ValidationError("\(flag) \(error.description).")
            }
        }
    }

    /// Seconds in `90s`, `30m`, `24h`, `7d` or a plain number of seconds; nil when not positive.
    static func seconds(_ text: String) -> Double? {
        DurationText.seconds(text, bareSeconds: true)
    }

    /// The webhook signing secret: from --webhook-secret-file (the file must be readable and not
    /// empty), else from $RECEIPTS_WEBHOOK_SECRET. A usage error naming the file and the cause otherwise.
    private func webhookSecret() throws -> String {
        if let file = webhookSecretFile {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                let reason = FileManager.default.fileExists(atPath: file) ? "cannot be read (check its permissions)" : "no such file"
                throw ValidationError("--webhook-secret-file \(file): \(reason).")
            }
            let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !secret.isEmpty else { throw ValidationError("--webhook-secret-file \(file): the file is empty; put the signing secret in it.") }
            return secret
        }
        let secret = (ProcessInfo.processInfo.environment["RECEIPTS_WEBHOOK_SECRET"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty else {
            throw ValidationError("--webhook needs a signing secret: --webhook-secret-file FILE, or RECEIPTS_WEBHOOK_SECRET in the environment.")
        }
        return secret
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .trace
            return handler
        }
        var logger = Logger(label: "receipts.serve")
        logger.logLevel = logging.quiet ? .error : (logging.verbosity >= 2 ? .debug : .info)
        var queueLogger = Logger(label: "receipts")
        queueLogger.logLevel = logging.quiet ? .error : logging.level
        let processor = try self.pipeline.makeProcessor(logger: queueLogger)
        let secret = try webhook.map { _ in try webhookSecret() }
        var queueConfiguration = ReceiptPipeline.Configuration(taxonomy: processor.options.taxonomy, workers: self.pipeline.workers).advised
        let metrics = HTTPMetrics()
        let opened: StoreOptions.Opened
        let location: StoreLocation
        do {
            location = try storeOptions.location()
            opened = try await storeOptions.open(maximumConnections: queueConfiguration.workers + 4, logger: queueLogger)
        } catch let error as ReceiptError {
            printError(error)
            throw ExitCode(2)
        }
        // Nothing starts (no worker takes a receipt, no sender reads the outbox, nothing is written)
        // for a server that cannot listen.
        do {
            try await ReceiptServer.checkBeforeStart(host: host, port: port, store: opened.store)
        } catch let error as ReceiptError {
            printError(error)
            throw ExitCode(2)
        }
        // Always running: users' own webhooks (POST /v1/webhooks) are delivered by every server;
        // the server-wide one only with --webhook.
        let sender = WebhookSender(configuration: .init(url: webhook.flatMap(URL.init(string:)), secret: secret ?? "",
                                                        firstRetryDelay: .milliseconds(Int64(webhookRetryDelay * 1000)),
                                                        maxRetryDelay: .milliseconds(Int64(webhookMaxRetryDelay * 1000)),
                                                        deadAfter: .milliseconds(Int64((Self.seconds(webhookDeadAfter) ?? 86400) * 1000)),
                                                        keepDelivered: .milliseconds(Int64((Self.seconds(webhookKeep) ?? 30 * 86400) * 1000)),
                                                        pollInterval: .seconds(5)),
                                   store: opened.store, logger: logger)
        // A receipt's webhook event is in the store before this is called: the sender looks now.
        queueConfiguration.onFinished = { [queueLogger] outcome in
            metrics.observe(outcome)
            sender.wake()
            ReceiptLogLine.log(outcome, to: queueLogger)
        }
        if webhook != nil {
            // On before any receipt can finish here: from now on every process records the events.
            do { try await opened.store.setWebhooksEnabled(true) } catch let error as ReceiptError {
                printError(error)
                throw ExitCode(2)
            }
        } else if (try? await opened.store.webhooksEnabled()) == true {
            logger.warning("Webhooks are on in this store but this server delivers none (no --webhook): their events wait in the store; `receipts webhooks disable` stops recording them",
                           metadata: ["store.path": "\(location)"])
        }
        let pipeline = ReceiptPipeline(store: opened.store, images: opened.images, processor: processor,
                                       configuration: queueConfiguration, logger: queueLogger)
        let tls = try tls()
        let scheme = tls == nil ? "http" : "https"
        if tls == nil, !ReceiptServer.isLoopback(host) {
            logger.notice("Serving plain HTTP on a network address: a phone's browser installs the review page and keeps its offline upload queue only over HTTPS (--tls-cert FILE --tls-key FILE; docs/review-ui.md shows how to make them)")
        }
        let filer = MailFiler(pipeline: pipeline, store: opened.store, logger: queueLogger)
        var mailboxes: [MailboxPoller] = []
        for var mailbox in try mailConfig.map(MailConfigFile.load) ?? [] {
            do {
                mailbox.ownership = try await FilingUserOptions.ownership(ofUser: mailbox.user, in: opened.store)
            } catch let error as ReceiptError {
                printError("--mail-config \(mailConfig ?? ""): \(mailbox.account.name): \(error.message)")
                throw ExitCode(2)
            }
            mailboxes.append(MailboxPoller(configuration: mailbox, filer: filer, store: opened.store, logger: queueLogger))
        }
        var serverConfiguration = ReceiptServer.Configuration(
            host: host, port: port, maxUploadBytes: Int(maxUploadMB * 1_048_576), maxWaitSeconds: maxWait, maxPending: maxPending,
            maxConcurrentAnalyses: maxAnalyses ?? 0, advice: .flags, rateLimit: try RateLimit.parse(rateLimit), tls: tls)
        serverConfiguration.signIn = try await signInConfiguration(opened.store, logger: logger)
        let server = ReceiptServer(
            pipeline: pipeline, store: opened.store, processor: processor,
            configuration: serverConfiguration,
            metrics: metrics,
            logger: logger,
            mailboxes: mailboxes,
            onListening: { [logger] host, port in
                logger.info("Listening", metadata: ["http.url": "\(scheme)://\(host):\(port)", "store.path": "\(location)"])
            })
        let backups: [ServiceGroupConfiguration.ServiceConfiguration] = backupDir.map { directory in
            [.init(service: BackupService(configuration: .init(directory: directory, interval: .seconds(Self.seconds(backupEvery) ?? 86400),
                                                               keep: keep),
                                          store: opened.administration, images: opened.images, metrics: metrics, logger: logger))]
        } ?? []
        // With --workers 0 this process reads no receipts (other hosts' workers do).
        let workers: [ServiceGroupConfiguration.ServiceConfiguration] = self.pipeline.workers > 0 ? [.init(service: pipeline)] : []
        var configuration = ServiceGroupConfiguration(
            // Shut down in reverse order: the server stops accepting, the workers finish, then the
            // OCR threads end.
            services: [.init(service: processor.engine), .init(service: sender)] + workers + mailboxes.map { .init(service: $0) }
                + backups + [.init(service: server)],
            gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: queueLogger)
        configuration.maximumGracefulShutdownDuration = .seconds(12)
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch let error as ReceiptError {
            printError(error)
            throw ExitCode(2)
        }
        logger.info("Stopped", metadata: ["store.path": "\(location)"])
    }

    /// How people sign in: --public-url (kept in the store; the one kept when not given) and the
    /// password hashes' cost.
    private func signInConfiguration(_ store: any ServerStore, logger: Logger) async throws -> SignInConfiguration {
        var url: URL?
        do {
            if let publicURL {
                url = try SignInConfiguration.publicURL(publicURL)
                try await store.setPublicURL(url?.absoluteString)
            } else if let kept = try await store.publicURL() {
                url = URL(string: kept)
                logger.info("Public URL from the store (serve --public-url)", metadata: ["http.public_url": "\(kept)"])
            }
        } catch let error as ReceiptError {
            printError(error)
            throw ExitCode(2)
        }
        let configuration = SignInConfiguration(publicURL: url, passwordCost: passwordCost)
        if url != nil, !configuration.hasRelyingParty {
            logger.notice("Passkeys are off: --public-url's host is an IP address, which browsers refuse as a passkey's relying party; use a name (localhost, nas.local)")
        }
        return configuration
    }
}
