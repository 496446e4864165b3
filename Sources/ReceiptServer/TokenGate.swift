import Foundation
import Hummingbird
import Logging
import ReceiptServerStore
import ReceiptStorage
import Synchronization

/// What a token may do and how often, checked for every `/v1` request and every review page:
/// not expired (401), within its rate limit (429 with `Retry-After`), holding the scope the route
/// needs (403 naming it). It also notes when each token was last used, at most once a minute per
/// token (a write, not one per request).
///
/// Problem documents and log lines name a token by its name, never by its secret.
final class TokenGate: Sendable {
    let store: any AccountStore
    /// The limit of a token that has none of its own (`receipts serve --rate-limit`).
    let defaultRateLimit: RateLimit
    let limiter = RateLimiter()
    let usage = TokenUsage()
    let logger: Logger

    init(store: any AccountStore, defaultRateLimit: RateLimit, logger: Logger) {
        self.store = store
        self.defaultRateLimit = defaultRateLimit
        self.logger = logger
    }

    /// Refuses `token` for something that needs `scope` (nil: a route no token may use, which none
    /// of ours is: the check then wants `admin`), or lets it through and notes its use.
    func authorize(_ token: APIToken, for scope: TokenPermission?, route: String, now: Date = Date()) async throws {
        if token.isExpired(at: now) {
            throw Problem(.unauthorized, "the API token '\(token.name)' expired at \(Self.time(token.expiresAt!)); ask for a new one")
        }
        await noteUse(token, now: now)
        let limit = token.rateLimit ?? defaultRateLimit
        if let wait = limiter.take(token.name, limit: limit) {
            throw Problem(.tooManyRequests, "the API token '\(token.name)' sent more than its rate limit (\(limit)); try again in \(wait) s",
                          headers: [.retryAfter: String(wait)])
        }
        let needed = scope ?? .admin
        guard TokenPermission.allows(token.scopes, needed) else {
            throw Problem(.forbidden, "the API token '\(token.name)' lacks the '\(needed.rawValue)' scope, which \(route) needs"
                          + " (its scopes: \(token.scopes.isEmpty ? "none" : TokenPermission.text(token.scopes)))")
        }
    }

    /// Writes `lastUsedAt` when this process has not written it for a minute; a store that cannot
    /// take it now is not a reason to refuse the request.
    private func noteUse(_ token: APIToken, now: Date) async {
        guard usage.due(token.name, now: now) else { return }
        do {
            try await store.recordTokenUse(name: token.name, at: now)
        } catch {
            logger.debug("Could not note a token's use", metadata: ["token.name": "\(token.name)"])
        }
    }

    static func time(_ date: Date) -> String {
        date.iso8601
    }
}

/// A token bucket per token name, in this process's memory: several `receipts serve` processes
/// on one store each allow a token its whole limit.
final class RateLimiter: Sendable {
    private struct Bucket {
        var available: Double
        var updated: Double
        var limit: RateLimit
    }

    private let buckets = Mutex<[String: Bucket]>([:])

    /// Takes one request from `key`'s bucket: nil when it had one, else the whole seconds until it
    /// will (at least 1). `now` is in seconds of a monotonic clock.
    func take(_ key: String, limit: RateLimit, now: Double = ProcessInfo.processInfo.systemUptime) -> Int? {
        guard !limit.isUnlimited else { return nil }
        let capacity = Double(limit.requests), rate = Double(limit.requests) / Double(max(1, limit.seconds))
        return buckets.withLock { buckets in
            var bucket = buckets[key].flatMap { $0.limit == limit ? $0 : nil } ?? Bucket(available: capacity, updated: now, limit: limit)
            bucket.available = min(capacity, bucket.available + max(0, now - bucket.updated) * rate)
            bucket.updated = now
            defer { buckets[key] = bucket }
            // (A millionth of a request either way is rounding, not a request.)
            if bucket.available >= 1 - 1e-6 {
                bucket.available = max(0, bucket.available - 1)
                return nil
            }
            return max(1, Int(((1 - bucket.available) / rate - 1e-6).rounded(.up)))
        }
    }
}

/// When this process last wrote each token's `lastUsedAt`.
final class TokenUsage: Sendable {
    static let interval: TimeInterval = 60
    private let written = Mutex<[String: Date]>([:])

    /// Whether `name`'s use at `now` is to be written (then it counts as written).
    func due(_ name: String, now: Date) -> Bool {
        written.withLock { written in
            if let last = written[name], now.timeIntervalSince(last) < Self.interval, now >= last { return false }
            written[name] = now
            return true
        }
    }
}

/// Every `/v1` route needs `Authorization: Bearer <token>`, or a browser's session cookie (the
/// review page) with its CSRF token on every change; the token (the session's) must hold the
/// route's scope (`ReceiptServer.routes`). The request then acts for the token's user, or the
/// person signed in (`Principal`, in the context). A request with neither is answered as the
/// administrator only in the open mode (`OpenMode`): from this computer, while nobody can sign in.
struct BearerTokenMiddleware: RouterMiddleware {
    typealias Context = ReceiptRequestContext
    let gate: TokenGate
    let sessions: WebSessions

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let store = gate.store
        let token: APIToken?
        let path = context.endpointPath ?? request.uri.path
        let hasCookie = !(request.cookies[WebAuth.cookieName]?.value ?? "").isEmpty
        var context = context
        if let header = request.headers[.authorization] {
            guard header.lowercased().hasPrefix("bearer ") else {
                throw Problem(.unauthorized, "the Authorization header must be 'Bearer <token>'")
            }
            let secret = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
            guard let found = try await store.token(secret: secret) else {
                throw Problem(.unauthorized, "the API token is unknown or revoked")
            }
            token = found
        } else if hasCookie {
            // A cookie that is not a live session (signed out, expired, ended from another device) is
            // refused: never answered as nobody, which the open mode would make the administrator.
            guard let signedIn = try await WebAuth.session(request, sessions: sessions) else {
                throw Problem(.unauthorized, "this browser's session has ended (signed out, expired or ended elsewhere): sign in again at /signin")
            }
            try WebAuth.checkChange(request, csrf: signedIn.csrf, given: request.headers[WebAuth.csrfHeader])
            guard let sessionToken = signedIn.token else {
                // A person's session (a passkey, a password, an invitation): their own rights.
                context.principal = try await gate.authorize(person: signedIn.session.user, route: "\(request.method) \(path)",
                                                             externalUser: request.headers[Principal.externalUserHeader])
                return try await next(request, context)
            }
            token = sessionToken
        } else {
            try await OpenMode.check(request, remote: context.channel.remoteAddress, store: store)
            token = nil
            context.openMode = true
        }
        if let token {
            try await gate.authorize(token, for: ReceiptServer.scope(method: request.method.rawValue, path: path),
                                     route: "\(request.method) \(path)")
        }
        context.principal = try await Principal.resolve(token: token, externalUser: request.headers[Principal.externalUserHeader], store: store)
        context.token = token
        return try await next(request, context)
    }
}
