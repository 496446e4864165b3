import Crypto
import Foundation
import Hummingbird
import ReceiptServerStore

/// The browser's sessions: a person signs in once (a passkey, a password, an invitation link, or
/// an API token), and the browser then holds only a random secret (an HttpOnly, SameSite=Strict
/// cookie), never a token. Each session has its own CSRF token (derived from the secret), which
/// every change must carry.
///
/// Kept in the store by the SHA-256 of the secret (`WebSession`), with how, when and from what it
/// signed in: `receipts user sessions` lists and ends them from another process, and a restart of
/// `receipts serve` signs nobody out. A session made with an API token has the token's scopes and
/// ends when the token is revoked or expires. Written by hand rather than with hummingbird-auth's
/// `SessionMiddleware`: that one needs every route's request context to carry a session.
public final class WebSessions: Sendable {
    /// How long a session lasts after it was last used.
    public let lifetime: TimeInterval
    let store: any AccountStore
    /// When this process last wrote each session's use (at most once a minute).
    private let usage = TokenUsage()

    init(store: any AccountStore, lifetime: TimeInterval = 7 * 24 * 3600) {
        self.store = store
        self.lifetime = lifetime
    }

    /// A browser's live session, its CSRF token, and the API token it was made with (nil: a person's).
    struct SignedIn: Sendable {
        var session: WebSession
        var csrf: String
        var token: APIToken?
    }

    /// A new session of `user`, signed in by `method` (with `token`, its scopes); the cookie's secret.
    func create(user: String, method: String, token: APIToken? = nil, userAgent: String?, address: String?,
                now: Date = Date()) async throws -> String {
        let secret = signInSecret()
        let session = WebSession(id: signInID(), user: user, method: method, tokenName: token?.name, createdAt: now, lastUsedAt: now,
                                 expiresAt: now.addingTimeInterval(lifetime), device: DeviceName.of(userAgent: userAgent), address: address)
        try await store.addSession(session, secretHash: APIToken.hash(secret))
        return secret
    }

    /// The live session whose cookie holds `secret` (its lifetime starts again), or nil. A session
    /// whose token expired ends here.
    func session(secret: String, now: Date = Date()) async throws -> SignedIn? {
        guard !secret.isEmpty, let session = try await store.session(secretHash: APIToken.hash(secret), now: now) else { return nil }
        var token: APIToken?
        if let name = session.tokenName {
            guard let found = try await store.tokens().first(where: { $0.name == name && $0.revokedAt == nil }), !found.isExpired(at: now) else {
                _ = try await store.endSession(id: session.id, user: nil)
                return nil
            }
            token = found
        }
        if usage.due(session.id, now: now) {
            try? await store.touchSession(id: session.id, at: now, expiresAt: now.addingTimeInterval(lifetime))
        }
        return SignedIn(session: session, csrf: Self.csrf(of: secret), token: token)
    }

    func end(secret: String) async throws {
        guard let session = try await store.session(secretHash: APIToken.hash(secret), now: Date()) else { return }
        _ = try await store.endSession(id: session.id, user: nil)
    }

    /// A session's CSRF token: derived from its secret (which the page never sees), so it needs no row.
    static func csrf(of secret: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(("csrf:" + secret).utf8)))
    }

    /// Whether two secrets are equal, in time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
