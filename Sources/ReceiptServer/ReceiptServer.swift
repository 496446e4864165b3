import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import ReceiptKit
import ReceiptMail
import ReceiptServerStore
import ServiceLifecycle

/// `receipts serve`: the pipeline over HTTP, for backends in any language.
///
/// Records are the NDJSON contract's (`ReceiptRecord`), never a second schema; errors are RFC 9457
/// problem documents (`application/problem+json`) with a one-line `detail` that never holds a
/// key, a token or a stack trace. Runs as a `Service` beside the OCR engine and the queue workers
/// in one `ServiceGroup`: on SIGTERM it stops accepting and the workers finish what they hold.
/// The routes are in `ReceiptServer+Receipts.swift`, `+Expenses.swift` and `+Analyze.swift`.
public final class ReceiptServer: Service, Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free port (reported through `onListening`).
        public var port: Int
        /// Uploads above this many bytes are refused with 413 (see `BoundedBody`).
        public var maxUploadBytes: Int
        /// `?wait=` is capped at this many seconds.
        public var maxWaitSeconds: Double
        /// Uploads are refused with 429 while this many receipts wait or are being read.
        public var maxPending: Int
        /// `POST /v1/analyze` requests read at once; more are refused with 429 (0: one per OCR thread).
        public var maxConcurrentAnalyses: Int
        /// Pixels `POST /v1/analyze` decodes at once, in all (0: the OCR engine's `maxPixels`, so at
        /// most one image of the largest size allowed at a time).
        public var analyzePixelBudget: Int
        /// What the program adds to problem documents and errors in its own terms (`receipts
        /// serve`: its flags; see `ErrorAdvice`).
        public var advice: ErrorAdvice
        /// Requests each API token may send, unless the token has its own limit (`receipts token
        /// create --rate-limit`); kept in this process's memory. Without tokens nothing is limited.
        public var rateLimit: RateLimit
        /// HTTPS with this certificate and key (`--tls-cert`, `--tls-key`); nil: plain HTTP.
        public var tls: ServerTLS?
        /// How people sign in: the public URL (`--public-url`), password hashing, lifetimes.
        public var signIn = SignInConfiguration()

        /// `receipts serve`'s `--rate-limit` when not given.
        public static let defaultRateLimit = RateLimit(requests: 600, seconds: 60)

        public init(host: String = "127.0.0.1", port: Int = 8080, maxUploadBytes: Int = 20 << 20, maxWaitSeconds: Double = 30,
                    maxPending: Int = 1000, maxConcurrentAnalyses: Int = 0, analyzePixelBudget: Int = 0, advice: ErrorAdvice = .none,
                    rateLimit: RateLimit = defaultRateLimit, tls: ServerTLS? = nil) {
            self.rateLimit = rateLimit
            self.tls = tls
            self.maxPending = maxPending
            self.advice = advice
            self.host = host
            self.port = port
            self.maxUploadBytes = maxUploadBytes
            self.maxWaitSeconds = maxWaitSeconds
            self.maxConcurrentAnalyses = maxConcurrentAnalyses
            self.analyzePixelBudget = analyzePixelBudget
        }
    }

    let pipeline: ReceiptPipeline
    let store: any AccountStore
    let processor: any ReceiptProcessing
    let configuration: Configuration
    let logger: Logger
    let onListening: @Sendable (_ host: String, _ port: Int) async -> Void
    let metrics: HTTPMetrics
    let analyses: AnalysisGate
    /// Browsers signed in to the review page.
    let sessions: WebSessions
    /// Failed sign-ins, slowed per user and per address.
    let throttle: SignInThrottle
    /// What each token may do, and how often.
    let gate: TokenGate
    let thumbnails = ThumbnailCache()
    /// The mailboxes polled beside the server (`serve --mail-config`), reported on `/readyz`.
    let mailboxes: [MailboxPoller]
    /// The taxonomy the pipeline drafts expenses with: categories are checked against it.
    var taxonomy: Taxonomy { pipeline.configuration.taxonomy }

    /// - Parameters:
    ///   - pipeline: the queue uploads go to.
    ///   - store: the pipeline's store, as the `ServerStore` it is (API tokens, idempotency keys):
    ///     open the store once and give it to both (`ReceiptPipeline(store:images:…)`).
    ///   - processor: reads `POST /v1/analyze` images synchronously, outside the queue.
    ///   - metrics: what `/metrics` reports; pass the one the pipeline's `onFinished` feeds to have
    ///     OCR and analysis times.
    ///   - onListening: called once the socket is bound, with the port actually bound.
    ///   - mailboxes: the mailboxes polled beside the server, whose state `/readyz` reports.
    public init(pipeline: ReceiptPipeline, store: any AccountStore, processor: any ReceiptProcessing,
                configuration: Configuration = Configuration(), metrics: HTTPMetrics = HTTPMetrics(), logger: Logger,
                mailboxes: [MailboxPoller] = [],
                onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }) {
        self.mailboxes = mailboxes
        self.metrics = metrics
        self.store = store
        self.pipeline = pipeline
        self.processor = processor
        self.configuration = configuration
        self.logger = logger
        self.onListening = onListening
        gate = TokenGate(store: store, defaultRateLimit: configuration.rateLimit, logger: logger)
        sessions = WebSessions(store: store, lifetime: configuration.signIn.sessionLifetime)
        throttle = SignInThrottle(policy: configuration.signIn.throttle)
        let engine = processor.ocrEngine
        analyses = AnalysisGate(
            slots: configuration.maxConcurrentAnalyses > 0 ? configuration.maxConcurrentAnalyses : engine?.threads ?? 1,
            pixelBudget: configuration.analyzePixelBudget > 0 ? configuration.analyzePixelBudget
                : engine?.configuration.maxPixels ?? 100_000_000)
    }

    /// Whether `host` is a loopback address (the only kind served while nobody can sign in).
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// What `run` would refuse, found before anything else starts: `receipts serve` calls it
    /// first, so that no worker takes a receipt and no sender reads the outbox for a server that
    /// cannot listen. A network address while nobody can sign in (the open mode would answer
    /// anyone there as the administrator, were it not limited to this computer: `OpenMode`), and
    /// an address this process cannot listen on (a port in use, a privileged port, an address
    /// that is not this host's).
    public static func checkBeforeStart(host: String, port: Int, store: any AccountStore) async throws {
        if !Self.isLoopback(host), try await !store.canAnyoneSignIn(now: Date()) {
            throw ReceiptError(.invalidConfiguration, "refusing to listen on \(host) while nobody can sign in (no API token, password, passkey or invitation)",
                               hint: .apiTokens)
        }
        if port != 0, let number = ListenCheck.errorNumber(host: host, port: port) {
            throw ListenCheck.error(host: host, port: port, errorNumber: number)
        }
    }

    public func run() async throws {
        let (host, port, onListening) = (configuration.host, configuration.port, self.onListening)
        if !Self.isLoopback(host), try await !store.canAnyoneSignIn(now: Date()) {
            throw ReceiptError(.invalidConfiguration, "refusing to listen on \(host) while nobody can sign in (no API token, password, passkey or invitation)",
                               hint: .apiTokens)
        }
        let app = Application(
            router: makeRouter(),
            server: try configuration.tls.map { try .tls(Self.http1, tlsConfiguration: $0.configuration) } ?? Self.http1,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "receipts"),
            onServerRunning: { channel in await onListening(host, channel.localAddress?.port ?? 0) },
            logger: logger)
        do {
            try await app.run()
        } catch let error as IOError where error.errnoCode == EADDRINUSE || error.errnoCode == EACCES || error.errnoCode == EADDRNOTAVAIL {
            throw ListenCheck.error(host: host, port: port, errorNumber: error.errnoCode)
        }
        logger.info("Stopped listening", metadata: ["http.host": "\(host)", "http.port": "\(port)"])
    }

    /// HTTP/1.1, where a request that cannot be read as HTTP is answered with a problem document too.
    static var http1: HTTPServerBuilder {
        .http1(configuration: HTTP1Channel.Configuration(additionalChannelHandlers: [UnreadableRequestHandler()]))
    }

    /// Every route the router serves (method, path), as `/openapi.yaml` must describe them, with the
    /// scope a token needs for it (its operation's `x-required-scope`; nil: no token needed).
    public static let routes: [(method: String, path: String, scope: TokenPermission?)] = [
        ("GET", "/healthz", nil), ("GET", "/readyz", nil), ("GET", "/metrics", nil), ("GET", "/openapi.yaml", nil),
        ("POST", "/v1/receipts", .upload), ("GET", "/v1/receipts", .read), ("GET", "/v1/receipts/{id}", .read),
        ("DELETE", "/v1/receipts/{id}", .admin),
        ("GET", "/v1/receipts/{id}/image", .read), ("GET", "/v1/receipts/{id}/pages/{page}", .read),
        ("GET", "/v1/receipts/{id}/thumbnail", .read), ("POST", "/v1/receipts/{id}/pictures", .upload),
        ("POST", "/v1/receipts/{id}/retry", .review), ("POST", "/v1/receipts/{id}/split", .review), ("GET", "/v1/expenses", .read),
        ("GET", "/v1/expenses/export.csv", .read),
        ("GET", "/v1/expenses/{id}", .read), ("PATCH", "/v1/expenses/{id}", .review),
        ("POST", "/v1/analyze", .upload), ("POST", "/v1/inbound-email", .upload), ("GET", "/v1/me", .read),
        ("GET", "/v1/webhooks", .read), ("POST", "/v1/webhooks", .read), ("DELETE", "/v1/webhooks/{id}", .read),
        ("GET", "/v1/vendors", .read), ("PATCH", "/v1/vendors/{id}", .review), ("POST", "/v1/vendors/{id}/merge", .review),
        ("DELETE", "/v1/vendors/{id}", .review),
    ]

    /// The scope a token needs for the route `method` `path` (a route pattern, `/v1/receipts/{id}`);
    /// `admin` for one not in `routes`, so a route added without a scope is closed, not open.
    static func scope(method: String, path: String) -> TokenPermission {
        routes.first { $0.method == method && $0.path == path }?.scope ?? .admin
    }

    /// The methods served at `path` (a placeholder such as `{id}` matches any one segment; a route without
    /// placeholders is preferred), or nil when no route has this path.
    static func methods(forPath path: String) -> [String]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var best: (placeholders: Int, methods: [String])?
        for route in routes {
            let pattern = route.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            guard pattern.count == segments.count,
                  zip(pattern, segments).allSatisfy({ $0.hasPrefix("{") ? !$1.isEmpty : $0 == $1 }) else { continue }
            let placeholders = pattern.filter { $0.hasPrefix("{") }.count
            if best == nil || placeholders < best!.placeholders {
                best = (placeholders, [route.method])
            } else if placeholders == best!.placeholders, !best!.methods.contains(route.method) {
                best!.methods.append(route.method)
            }
        }
        return best?.methods
    }

    func makeRouter() -> Router<ReceiptRequestContext> {
        let router = Router(context: ReceiptRequestContext.self)
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: ProblemMiddleware(logger: logger))
        router.get("/healthz") { request, _ in
            _ = try QueryParameters(request, allowed: [])
            return Self.json(["status": .string("ok")])
        }
        router.get("/readyz") { request, _ in
            _ = try QueryParameters(request, allowed: [])
            return try await self.ready()
        }
        router.get("/metrics") { request, _ in
            _ = try QueryParameters(request, allowed: [])
            return await self.metricsText()
        }
        router.get("/openapi.yaml") { request, _ in
            _ = try QueryParameters(request, allowed: [])
            return Response(status: .ok, headers: [.contentType: "application/yaml"],
                            body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml(taxonomy: self.taxonomy))))
        }
        addWebRoutes(to: router)
        let v1 = router.group("/v1").add(middleware: BearerTokenMiddleware(gate: gate, sessions: sessions))
        v1.post("/receipts") { request, context in try await self.upload(request, context) }
        v1.get("/receipts") { request, context in try await self.list(request, context) }
        v1.get("/receipts/:id") { request, context in
            _ = try QueryParameters(request, allowed: [])
            return try await self.record(self.id(context), context)
        }
        v1.delete("/receipts/:id") { request, context in try await self.delete(request, context, self.id(context)) }
        v1.get("/receipts/:id/image") { request, context in
            _ = try QueryParameters(request, allowed: [])
            return try await self.image(self.id(context), context)
        }
        v1.get("/receipts/:id/pages/:page") { request, context in try await self.page(request, context) }
        v1.get("/receipts/:id/thumbnail") { request, context in
            _ = try QueryParameters(request, allowed: [])
            return try await self.thumbnail(self.id(context), context)
        }
        v1.post("/receipts/:id/pictures") { request, context in try await self.addPicture(request, context) }
        v1.post("/receipts/:id/retry") { request, context in
            _ = try QueryParameters(request, allowed: [])
            return try await self.retry(self.id(context), context)
        }
        v1.post("/receipts/:id/split") { request, context in try await self.split(request, context) }
        v1.get("/expenses") { request, context in try await self.expenses(request, context) }
        v1.get("/expenses/export.csv") { request, context in try await self.exportCSV(request, context) }
        v1.get("/expenses/:id") { request, context in
            _ = try QueryParameters(request, allowed: [])
            return try await self.expense(self.id(context, "expense"), context)
        }
        v1.patch("/expenses/:id") { request, context in try await self.correctExpense(request, context, self.id(context, "expense")) }
        v1.post("/analyze") { request, context in try await self.analyze(request, context) }
        v1.get("/me") { request, context in
            _ = try QueryParameters(request, allowed: [])
            return try self.me(context)
        }
        v1.get("/webhooks") { request, context in
            _ = try QueryParameters(request, allowed: [])
            return try await self.listWebhooks(context)
        }
        v1.post("/webhooks") { request, context in try await self.addWebhook(request, context) }
        v1.delete("/webhooks/:id") { request, context in
            _ = try QueryParameters(request, allowed: [])
            return try await self.removeWebhook(self.id(context, "webhook"), context)
        }
        v1.post("/inbound-email") { request, context in try await self.inboundEmail(request, context) }
        v1.get("/vendors") { request, context in try await self.vendors(request, context) }
        v1.patch("/vendors/:id") { request, context in try await self.changeVendor(request, context, self.id(context, "vendor")) }
        v1.post("/vendors/:id/merge") { request, context in try await self.mergeVendor(request, context, self.id(context, "vendor")) }
        v1.delete("/vendors/:id") { request, context in
            _ = try QueryParameters(request, allowed: [])
            return try await self.forgetVendor(context, self.id(context, "vendor"))
        }
        return router
    }

    // MARK: Health

    private func ready() async throws -> Response {
        do {
            // A query the queue's index answers at once, whatever the store holds.
            _ = try await pipeline.waitingCount()
        } catch {
            throw Problem(.serviceUnavailable, "the store cannot be read: \((error as? ReceiptError)?.message ?? String(describing: error).oneLine)")
        }
        if let engine = processor.ocrEngine, !engine.isRunning {
            throw Problem(.serviceUnavailable, "the OCR engine is not running (starting or stopping)")
        }
        var answer: [String: JSONValue] = ["status": .string("ready"), "store": .string("ok"), "ocr": .string("ok")]
        // A mailbox that cannot be read is said here; the server itself is still ready.
        if !mailboxes.isEmpty { answer["mail"] = mailStatus }
        return Self.json(answer)
    }

    /// What this process knows, always: with the store down, its receipt counts are left out and
    /// `receipts_store_up` says 0.
    private func metricsText() async -> Response {
        let counts = try? await pipeline.queueStatusCounts()
        let text = metrics.text(receipts: counts.map { counts in
            OCRStatus.allCases.map { OCRStatusCount(status: $0.rawValue, count: counts[$0] ?? 0) }
        })
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    // MARK: Helpers

    func id(_ context: ReceiptRequestContext, _ kind: String = "receipt") throws -> UUID {
        let text = context.parameters.get("id") ?? ""
        guard let id = UUID(uuidString: text) else { throw Problem(.notFound, "no \(kind) with id '\(text)'") }
        return id
    }

    static func unknown(_ id: UUID, _ kind: String = "receipt") -> Problem {
        Problem(.notFound, "no \(kind) with id \(id.uuidString.lowercased())")
    }

    static func json(_ object: [String: JSONValue]) -> Response {
        json(JSONValue.object(object.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: value.serialized() + "\n")))
    }
}
