import Crypto
import Foundation
import Synchronization

/// The browser's sessions: a token from `receipts token create` signs a browser in once, and the
/// browser then holds only a random session id (an HttpOnly, SameSite=Strict cookie), never the
/// token. Each session has its own CSRF token, which every change must carry.
///
/// Kept in memory: a restart of `receipts serve` signs browsers out. The token is kept beside its
/// session so that revoking it (`receipts token revoke`) ends the session at the next request.
/// Written by hand rather than with hummingbird-auth's `SessionMiddleware`: that one needs every
/// route's request context to carry a session, and its storage would hold the same dictionary.
public final class WebSessions: Sendable {
    struct Session: Sendable {
        var secret: String
        var csrf: String
        var expires: Date
    }

    /// How long a session lasts after it was last used.
    public let lifetime: TimeInterval
    /// Sessions by the SHA-256 of their id (an id read from memory cannot be replayed).
    private let sessions = Mutex<[String: Session]>([:])

    public init(lifetime: TimeInterval = 7 * 24 * 3600) {
        self.lifetime = lifetime
    }

    /// A new session for the holder of `secret` (already checked): its id and CSRF token.
    func create(secret: String, now: Date = Date()) -> (id: String, csrf: String) {
        let id = Self.random(), csrf = Self.random()
        sessions.withLock { all in
            all = all.filter { $0.value.expires > now }
            all[Self.key(id)] = Session(secret: secret, csrf: csrf, expires: now.addingTimeInterval(lifetime))
        }
        return (id, csrf)
    }

    /// The live session with this id (its lifetime starts again), or nil.
    func session(id: String, now: Date = Date()) -> Session? {
        sessions.withLock { all in
            let key = Self.key(id)
            guard var session = all[key] else { return nil }
            guard session.expires > now else { all[key] = nil; return nil }
            session.expires = now.addingTimeInterval(lifetime)
            all[key] = session
            return session
        }
    }

    func end(id: String) {
        _ = sessions.withLock { $0.removeValue(forKey: Self.key(id)) }
    }

    private static func key(_ id: String) -> String {
        SHA256.hash(data: Data(id.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// 32 random bytes, base64url (cookie- and header-safe).
    private static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Whether two secrets are equal, in time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
