import Foundation
import Hummingbird
import ReceiptServerStore
import ReceiptStorage

/// How people sign in to the review page (`docs/review-ui.md`): where the server is reached
/// (`--public-url`: the invitation links' base, the passkeys' relying party), how passwords are
/// hashed, and how long sessions, invitations and WebAuthn challenges last.
public struct SignInConfiguration: Sendable {
    /// `receipts serve --public-url`; nil: no passkeys (a relying party needs a name), and invitation
    /// links made on the page use the address the administrator's browser used.
    public var publicURL: URL?
    public var passwordCost: PasswordHasher.Cost
    /// A session ends this long after it was last used.
    public var sessionLifetime: TimeInterval
    /// A WebAuthn challenge can be answered this long (once).
    public var challengeLifetime: TimeInterval
    /// An invitation made on the account page lasts this long (the CLI's `--expires`).
    public var invitationLifetime: TimeInterval
    /// When failed sign-ins are slowed.
    var throttle = SignInThrottle.Policy()

    public init(publicURL: URL? = nil, passwordCost: PasswordHasher.Cost = .moderate, sessionLifetime: TimeInterval = 7 * 24 * 3600,
                challengeLifetime: TimeInterval = 300, invitationLifetime: TimeInterval = 24 * 3600) {
        self.publicURL = publicURL
        self.passwordCost = passwordCost
        self.sessionLifetime = sessionLifetime
        self.challengeLifetime = challengeLifetime
        self.invitationLifetime = invitationLifetime
    }

    /// The relying party of the public URL, or nil (no URL, or an IP address as its host).
    var relyingParty: WebAuthn? { publicURL.flatMap(WebAuthn.init(publicURL:)) }

    /// Whether passkeys work: a public URL whose host is a name.
    public var hasRelyingParty: Bool { relyingParty != nil }

    /// A public URL as `--public-url` takes it: http(s), a host, no query or fragment; its path is
    /// kept (a server behind a proxy under `/receipts/`), without the trailing slash.
    public static func publicURL(_ text: String) throws -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil else {
            throw SignInError("--public-url \(text): give the address people open, http(s)://HOST[:PORT] (https://receipts.example.com)")
        }
        return URL(string: trimmed.hasSuffix("/") ? String(trimmed.dropLast()) : trimmed)!
    }

    /// An invitation's link: `<public URL>/invite/<secret>`.
    public static func invitationLink(base: URL, secret: String) -> String {
        let text = base.absoluteString
        return (text.hasSuffix("/") ? String(text.dropLast()) : text) + "/invite/" + secret
    }
}

public struct SignInError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// An invitation made now for `user`: its record and its link's secret (shown once; the store
/// keeps its SHA-256). The CLI (`receipts user invite`) and the account page make them alike.
public func makeInvitation(for user: String, by creator: String, lifetime: TimeInterval, store: any AccountStore,
                           now: Date = Date()) async throws -> (invitation: Invitation, secret: String) {
    let secret = signInSecret(prefix: "inv_")
    let invitation = Invitation(id: signInID(), user: user, createdBy: creator, createdAt: now, expiresAt: now.addingTimeInterval(lifetime))
    try await store.addInvitation(invitation, secretHash: APIToken.hash(secret))
    return (invitation, secret)
}

extension TokenGate {
    /// A person's session: they act as themselves with every right their user has (scopes limit
    /// tokens, not people), within the server's rate limit; they never act for an end user.
    func authorize(person name: String, route: String, externalUser: String?) async throws -> Principal {
        if externalUser != nil {
            throw Problem(.forbidden, "a browser's session cannot name an end user (Receipts-External-User): that is for a service's API token")
        }
        if let wait = limiter.take("session:" + name, limit: defaultRateLimit) {
            throw Problem(.tooManyRequests, "\(name) sent more than the rate limit (\(defaultRateLimit)); try again in \(wait) s",
                          headers: [.retryAfter: String(wait)])
        }
        guard let user = try await store.user(named: name) else {
            throw Problem(.unauthorized, "the user '\(name)' no longer exists; sign in again")
        }
        return try await store.principal(of: user)
    }
}
