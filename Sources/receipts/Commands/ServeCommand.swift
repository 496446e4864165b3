import ArgumentParser
import Foundation
import Logging
import ReceiptKit
import ReceiptServer
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the pipeline over HTTP: upload receipts, read their records, analyze an image.",
        discussion: """
            Runs an HTTP server (JSON under /v1) beside the queue workers, on the same store as \
            `receipts process`. Records are the NDJSON records `process` prints; errors are RFC 9457 \
            problem documents (application/problem+json).

              POST /v1/receipts[?wait=SECONDS]   the image as the body (image/* or application/pdf) or as \
            the 'file' part of multipart/form-data. The same bytes return the same receipt (a failed one is \
            tried again). 200 with the finished record when it is done within wait (at most 30 s), else 202 \
            with Location: /v1/receipts/{id}.
              GET  /v1/receipts[?status=&limit=&after=]   newest first; 'next' is the cursor of the next page.
              GET  /v1/receipts/{id}, GET /v1/receipts/{id}/image, POST /v1/receipts/{id}/retry
              POST /v1/analyze   {"image": "<base64>", "mimeType": "image/jpeg"} in, the analysis out; nothing stored.
              GET  /healthz (the process is up), GET /readyz (the store can be read), GET /metrics (Prometheus), \
            GET /openapi.yaml (OpenAPI 3.1 of all of this)

              DELETE /v1/receipts/{id}   the receipt, its image copy and its draft expense
              GET  /v1/expenses[?from=&to=&category=&status=]

            Webhooks (--webhook URL): each record is POSTed as JSON with the header \
            Receipts-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the secret>; a \
            delivery that fails is retried after 1, 2, 4, 8, 16 s, then logged; the queue never waits for it.

            API tokens (receipts token create|list|revoke): once one exists, every /v1 route needs \
            Authorization: Bearer <token> (not /healthz or /readyz). Without any, the server listens only \
            on loopback addresses. Idempotency-Key on POST /v1/receipts: the same key returns the same \
            receipt. SIGTERM or Ctrl-C: stop accepting, finish the receipts in hand, exit.

            Examples:
              receipts serve --port 8080
              curl -s --data-binary @IMG_0042.jpg -H 'Content-Type: image/jpeg' 'http://127.0.0.1:8080/v1/receipts?wait=20'
            """)

    @Option(help: "Address to listen on. Anything but loopback needs an API token first (receipts token create).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one; the port is logged).")
    var port = 8080

    @Option(name: .customLong("max-upload-mb"), help: "Refuse uploads larger than this many megabytes (413).")
    var maxUploadMB: Double = 20

    @Option(name: .customLong("max-pending"), help: "Refuse uploads (429) while this many receipts wait to be read.")
    var maxPending = 1000

    @Option(help: ArgumentHelp("POST each receipt's record here when it is completed or has failed for good (signed; see below).", valueName: "URL"))
    var webhook: String?

    @Option(name: .customLong("webhook-secret-file"), help: ArgumentHelp(
        "File holding the webhook signing secret (default: $RECEIPTS_WEBHOOK_SECRET).", valueName: "FILE"))
    var webhookSecretFile: String?

    @Option(name: .customLong("webhook-retry-delay"), help: ArgumentHelp("Seconds before a failed webhook's first retry (doubling).", visibility: .hidden))
    var webhookRetryDelay: Double = 1

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var pipeline: PipelineOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535.") }
        guard maxUploadMB > 0 else { throw ValidationError("--max-upload-mb must be positive.") }
        guard maxPending > 0 else { throw ValidationError("--max-pending must be positive.") }
        if let webhook {
            guard let url = URL(string: webhook), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ValidationError("--webhook \(webhook): not an http(s) URL.")
            }
            guard (try? webhookSecret()) != nil else {
                throw ValidationError("--webhook needs a signing secret: --webhook-secret-file FILE or RECEIPTS_WEBHOOK_SECRET.")
            }
        }
    }

    private func webhookSecret() throws -> String {
        let secret: String?
        if let file = webhookSecretFile {
            secret = try? String(contentsOfFile: file, encoding: .utf8)
        } else {
            secret = ProcessInfo.processInfo.environment["RECEIPTS_WEBHOOK_SECRET"]
        }
        guard let secret = secret?.trimmingCharacters(in: .whitespacesAndNewlines), !secret.isEmpty else {
            throw ValidationError("no webhook signing secret")
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
        let webhooks = try webhook.flatMap(URL.init(string:)).map { url in
            WebhookSender(configuration: .init(url: url, secret: try webhookSecret(), firstRetryDelay: .seconds(webhookRetryDelay)), logger: logger)
        }
        var queueConfiguration = ReceiptPipeline.Configuration(taxonomy: processor.options.taxonomy, workers: self.pipeline.workers)
        let metrics = HTTPMetrics()
        queueConfiguration.onFinished = { outcome in
            metrics.observe(outcome)
            webhooks?.enqueue(outcome)
        }
        let pipeline: ReceiptPipeline
        let location: StoreLocation
        do {
            location = try storeOptions.location()
            pipeline = try await ReceiptPipeline.open(
                location, imagesDirectory: storeOptions.images, processor: processor, configuration: queueConfiguration,
                logger: queueLogger)
        } catch let error as ReceiptError {
            printError(error.description)
            throw ExitCode(2)
        }
        let server = try ReceiptServer(
            pipeline: pipeline, processor: processor,
            configuration: .init(host: host, port: port, maxUploadBytes: Int(maxUploadMB * 1_048_576), maxPending: maxPending),
            metrics: metrics,
            logger: logger,
            onListening: { [logger] host, port in
                logger.info("Listening", metadata: ["http.url": "http://\(host):\(port)", "store.path": "\(location)"])
            })
        var configuration = ServiceGroupConfiguration(
            // Shut down in reverse order: the server stops accepting, the workers finish, then the
            // OCR threads end.
            services: [.init(service: processor.engine)] + (webhooks.map { [.init(service: $0)] } ?? [])
                + [.init(service: pipeline), .init(service: server)],
            gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: queueLogger)
        configuration.maximumGracefulShutdownDuration = .seconds(12)
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch let error as ReceiptError {
            printError(error.description)
            throw ExitCode(2)
        }
    }
}
