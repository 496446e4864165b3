import Foundation
import ReceiptModel
import ReceiptStorage

/// A browser signed in to the review page: what the store keeps of it (never the cookie's secret,
/// only its SHA-256), so that `receipts user sessions` lists and ends it from another process and
/// a restart of the server signs nobody out.
public struct WebSession: Sendable, Equatable {
    /// What the session is listed and ended by (`receipts user sessions carol --revoke ID`).
    public var id: String
    public var user: String
    /// How the browser signed in: `passkey`, `password`, `invitation` or `token` (an API token,
    /// whose scopes and life the session then has: `tokenName`).
    public var method: String
    public var tokenName: String?
    public var createdAt: Date
    /// Written at most once a minute per session.
    public var lastUsedAt: Date
    /// It ends then unless used before (each use moves it to `lastUsedAt` + the lifetime).
    public var expiresAt: Date
    /// The browser and system it was signed in from (`iPhone Safari`), read from the User-Agent.
    public var device: String
    /// The address it was signed in from.
    public var address: String?

    public init(id: String, user: String, method: String, tokenName: String? = nil, createdAt: Date, lastUsedAt: Date, expiresAt: Date,
                device: String, address: String?) {
        self.id = id
        self.user = user
        self.method = method
        self.tokenName = tokenName
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
        self.device = device
        self.address = address
    }
}

/// A one-time link that signs a user in (`receipts user invite carol`): kept by the SHA-256 of its
/// secret. Used once, then never again; refused once expired or revoked.
public struct Invitation: Sendable, Equatable {
    public var id: String
    public var user: String
    /// Who made it (an administrator's name, or `cli`).
    public var createdBy: String
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    public var revokedAt: Date?

    public init(id: String, user: String, createdBy: String, createdAt: Date, expiresAt: Date, usedAt: Date? = nil, revokedAt: Date? = nil) {
        self.id = id
        self.user = user
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.revokedAt = revokedAt
    }

    public enum State: String, Sendable { case open, used, expired, revoked }

    public func state(at now: Date) -> State {
        if usedAt != nil { return .used }
        if revokedAt != nil { return .revoked }
        return expiresAt <= now ? .expired : .open
    }
}

/// A user's passkey (a WebAuthn credential): its ID, its COSE public key and counter.
public struct Passkey: Sendable, Equatable {
    /// The credential's ID, base64url.
    public var id: String
    public var user: String
    /// The user's WebAuthn handle (base64url of 16 random bytes; the same for all their passkeys).
    public var userHandle: String
    /// What the user calls it (`iPhone`, `YubiKey`); renamed on the account page.
    public var name: String
    public var publicKey: [UInt8]
    /// COSE: -7 (ES256) or -257 (RS256).
    public var algorithm: Int
    public var signCount: UInt32
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(id: String, user: String, userHandle: String, name: String, publicKey: [UInt8], algorithm: Int, signCount: UInt32,
                createdAt: Date, lastUsedAt: Date? = nil) {
        self.id = id
        self.user = user
        self.userHandle = userHandle
        self.name = name
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// What signing people in keeps (`docs/review-ui.md`): browsers' sessions, invitations, passkeys,
/// password hashes, WebAuthn challenges and the server's public URL. Both stores keep them in
/// tables of their own (SQLite `SQLiteReceiptStore+SignIn.swift`, PostgreSQL
/// `PostgresReceiptStore+SignIn.swift`); a user's rows go with the user.
public protocol SignInStore: Sendable {
    // MARK: Sessions

    /// Keeps a new session whose cookie secret has this SHA-256.
    func addSession(_ session: WebSession, secretHash: String) async throws
    /// The live session (not expired at `now`) whose secret has this SHA-256, or nil. A session
    /// made with an API token lives only while that token is not revoked (a token made again under
    /// the same name does not bring it back).
    func session(secretHash: String, now: Date) async throws -> WebSession?
    /// Notes a use: `lastUsedAt` and the new `expiresAt`.
    func touchSession(id: String, at: Date, expiresAt: Date) async throws
    /// The live sessions of `user` (everyone's with nil), newest first.
    func sessions(user: String?, now: Date) async throws -> [WebSession]
    /// Ends a session of `user` (anyone's with nil). False when there is none with this ID.
    func endSession(id: String, user: String?) async throws -> Bool
    /// Ends all of `user`'s sessions; returns how many.
    func endSessions(user: String) async throws -> Int

    // MARK: Invitations

    /// Keeps an invitation whose link's secret has this SHA-256; `.notFound` for an unknown user.
    func addInvitation(_ invitation: Invitation, secretHash: String) async throws
    /// The invitation whose secret has this SHA-256, in whatever state.
    func invitation(secretHash: String) async throws -> Invitation?
    /// Marks the invitation used at `now` if it is open, in one statement (of two browsers opening
    /// one link, one takes it); returns it and whether this call took it, or nil when there is none.
    func useInvitation(secretHash: String, now: Date) async throws -> (invitation: Invitation, taken: Bool)?
    /// Invitations of `user` (everyone's with nil), newest first.
    func invitations(user: String?) async throws -> [Invitation]
    /// Revokes an invitation; `.notFound` for an unknown ID.
    func revokeInvitation(id: String, now: Date) async throws -> Invitation

    // MARK: Passkeys

    /// Keeps a new passkey; `.invalidState` when its credential ID is registered already.
    func addPasskey(_ passkey: Passkey) async throws
    func passkey(id: String) async throws -> Passkey?
    /// `user`'s passkeys, oldest first.
    func passkeys(user: String) async throws -> [Passkey]
    /// Notes a sign-in: the counter goes from `previous` to `signCount`, in one statement that
    /// fails (false) when another sign-in moved it first.
    func recordPasskeyUse(id: String, previous: UInt32, signCount: UInt32, at: Date) async throws -> Bool
    /// Renames a passkey of `user`; `.notFound` when it is not theirs.
    func renamePasskey(id: String, user: String, name: String) async throws
    /// Removes a passkey of `user`; `.notFound` when it is not theirs.
    func removePasskey(id: String, user: String) async throws

    // MARK: Passwords

    /// Sets (nil: removes) `user`'s password hash (an Argon2id string); `.notFound` for an unknown user.
    func setPasswordHash(user: String, hash: String?, now: Date) async throws
    func passwordHash(user: String) async throws -> String?

    // MARK: Challenges and the public URL

    /// Keeps a WebAuthn challenge (by its SHA-256) for `purpose` (and `user`, when registering).
    func addChallenge(hash: String, purpose: String, user: String?, expiresAt: Date) async throws
    /// Takes a challenge, once: true when it was kept for `purpose` and `user` and had not expired
    /// at `now`. It is gone afterwards whatever the answer (expired ones are swept too).
    func takeChallenge(hash: String, purpose: String, user: String?, now: Date) async throws -> Bool

    /// `receipts serve --public-url`: where people reach the server (the invitation links' base,
    /// the passkeys' relying party). Nil when never given.
    func publicURL() async throws -> String?
    func setPublicURL(_ url: String?) async throws
}

/// A random secret: 32 bytes, base64url, with a prefix saying what it is (`inv_`, a session's none).
public func signInSecret(prefix: String = "") -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return prefix + Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}

/// A short ID to list and name a session or an invitation by: 12 lowercase hex digits.
public func signInID() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<6).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
}

extension AccountStore {
    /// The ways `user` can sign in on a browser: passkeys, a password, API tokens that may read
    /// (neither revoked nor expired). Removing the last one is refused unless asked on purpose.
    public func waysToSignIn(user: String, now: Date = Date()) async throws -> (passkeys: Int, password: Bool, tokens: Int) {
        let tokens = try await tokens().filter {
            $0.user == user && $0.revokedAt == nil && !$0.isExpired(at: now) && TokenPermission.allows($0.scopes, .read)
        }
        return (try await passkeys(user: user).count, try await passwordHash(user: user) != nil, tokens.count)
    }

    /// `user`'s ways to sign in in words: `1 passkey, a password`, or `none`.
    public func waysToSignInText(user: String, now: Date = Date()) async throws -> String {
        let ways = try await waysToSignIn(user: user, now: now)
        var parts: [String] = []
        if ways.passkeys > 0 { parts.append("\(ways.passkeys) passkey\(ways.passkeys == 1 ? "" : "s")") }
        if ways.password { parts.append("a password") }
        if ways.tokens > 0 { parts.append("\(ways.tokens) API token\(ways.tokens == 1 ? "" : "s") that may read") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}
