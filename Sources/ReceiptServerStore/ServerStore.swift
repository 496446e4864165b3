import Crypto
import Foundation
import ReceiptModel
import ReceiptStorage

/// What a token may do on `receipts serve`'s `/v1` routes (each route's is its OpenAPI
/// operation's `x-required-scope`, and `ReceiptServer.routes`).
///
/// - `read`: look: receipts, their images, pages and thumbnails, expenses, the CSV export.
/// - `upload`: add receipts: `POST /v1/receipts`, `POST /v1/analyze`, `POST /v1/inbound-email`. Not reading: a scanner or a
///   phone may drop receipts in without seeing anyone else's (it is given back the record of what
///   it uploaded).
/// - `review`: correct and confirm expenses (`PATCH /v1/expenses/{id}`), retry a failed receipt;
///   grants `read` too (a correction starts from what it corrects).
/// - `admin`: everything, deletion included; grants every other scope but `act-as`. What a token
///   made before scopes existed has, and what `receipts token create` gives when no `--scope` is
///   given.
/// - `act-as`: for a backend's service token: it may name an end user of its own
///   (`Receipts-External-User`), and then uploads and reads only that end user's receipts.
///   Granted by no other scope: it is given on purpose.
///
/// Permissions say what a token may do; its user (a `Principal`, whose `Scope` is what it may see)
/// says to whose receipts. The API and the command line call them scopes, as OAuth does
/// (`scopes` in `GET /v1/me`, `--scope`, `x-required-scope`); the code calls them permissions, so
/// that a `Scope` is only ever whose receipts are seen.
public enum TokenPermission: String, Sendable, CaseIterable, Comparable, Codable {
    case read, upload, review, admin
    case actAs = "act-as"

    /// The scopes this one grants, itself included.
    public var grants: Set<TokenPermission> {
        switch self {
        case .read: [.read]
        case .upload: [.upload]
        case .review: [.review, .read]
        case .admin: [.read, .upload, .review, .admin]
        case .actAs: [.actAs]
        }
    }

    public static func < (a: TokenPermission, b: TokenPermission) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Whether a token holding `scopes` may do what needs `required`.
    public static func allows(_ scopes: Set<TokenPermission>, _ required: TokenPermission) -> Bool {
        scopes.contains { $0.grants.contains(required) }
    }

    /// `read,upload` (or space-separated) as scopes; throws `.invalidInput` naming an unknown one.
    public static func parse(_ text: String) throws -> Set<TokenPermission> {
        let names = text.split(whereSeparator: { $0 == "," || $0 == " " }).map { $0.lowercased() }
        var scopes: Set<TokenPermission> = []
        for name in names {
            guard let scope = TokenPermission(rawValue: name) else {
                throw ReceiptError(.invalidInput, "unknown scope '\(name)': the scopes are \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            scopes.insert(scope)
        }
        guard !scopes.isEmpty else { throw ReceiptError(.invalidInput, "no scope given: the scopes are \(allCases.map(\.rawValue).joined(separator: ", "))") }
        return scopes
    }

    /// As stored and listed: sorted, comma-separated (`read,upload`).
    public static func text(_ scopes: Set<TokenPermission>) -> String {
        scopes.sorted().map(\.rawValue).joined(separator: ",")
    }
}

/// A length of time as people write it on a command line: a number and a unit (`90s`, `30m` or
/// `30min`, `12h`, `7d`, `2w`; `sec`, `minute`, `hour`, `day`, `week` and their plurals too). The
/// one reader of durations for every flag that takes one (`--expires`, `--rate-limit`'s period,
/// `--webhook-dead-after`, `--webhook-keep`).
public enum DurationText {
    static let units: [String: Double] = [
        "s": 1, "sec": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "minute": 60, "minutes": 60,
        "h": 3600, "hour": 3600, "hours": 3600, "d": 86400, "day": 86400, "days": 86400,
        "w": 7 * 86400, "week": 7 * 86400, "weeks": 7 * 86400,
    ]

    /// The seconds `text` stands for; nil unless it is a positive, finite number followed by a unit
    /// (or, when `bareSeconds`, by nothing: seconds).
    public static func seconds(_ text: String, bareSeconds: Bool = false) -> Double? {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        let number = text.prefix(while: { $0.isNumber || $0 == "." })
        let unit = text.dropFirst(number.count)
        guard let scale = unit.isEmpty ? (bareSeconds ? 1 : nil) : units[String(unit)],
              let value = Double(number), value.isFinite, value > 0 else { return nil }
        return value * scale
    }
}

/// Requests a token may send per period: a token bucket that holds `requests` and refills them
/// evenly over `seconds` (so a burst of `requests`, then one every `seconds / requests`).
/// `requests` 0: no limit.
public struct RateLimit: Sendable, Equatable, CustomStringConvertible {
    public var requests: Int
    public var seconds: Int

    public init(requests: Int, seconds: Int) {
        self.requests = requests
        self.seconds = seconds
    }

    public static let unlimited = RateLimit(requests: 0, seconds: 60)

    public var isUnlimited: Bool { requests <= 0 }

    /// `600/min`, `10/s`, `5000/hour`, `20000/day`, `100/30s`; `off` (or `none`, `unlimited`): no
    /// limit. Throws `.invalidInput` otherwise.
    public static func parse(_ text: String) throws -> RateLimit {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        if ["off", "none", "unlimited", "0"].contains(text) { return .unlimited }
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let requests = Int(parts[0]), requests > 0, requests <= 1_000_000_000 else {
            throw ReceiptError(.invalidInput, "rate limit '\(text)': write REQUESTS/PERIOD (600/min, 10/s, 5000/hour) or off")
        }
        // `min` is one minute: a period without a number is one of its unit.
        let period = parts[1].first?.isNumber == true ? parts[1] : "1" + parts[1]
        guard let seconds = DurationText.seconds(period), seconds == seconds.rounded(), seconds <= 1_000_000 * 86400 else {
            throw ReceiptError(.invalidInput, "rate limit '\(text)': the period is s, min, hour or day (600/min, 10/s, 100/30s)")
        }
        return RateLimit(requests: requests, seconds: Int(seconds))
    }

    /// `600/min` (what `parse` reads back); `off` for no limit.
    public var description: String {
        if isUnlimited { return "off" }
        switch seconds {
        case 1: return "\(requests)/s"
        case 60: return "\(requests)/min"
        case 3600: return "\(requests)/hour"
        case 86400: return "\(requests)/day"
        default: return "\(requests)/\(seconds)s"
        }
    }
}

/// An API token as listed: its name, its user, what it may do, its dates, never its secret.
public struct APIToken: Sendable, Equatable {
    public var name: String
    /// The user it acts for: it sees and changes only what that user may.
    public var user: String
    public var createdAt: Date
    public var revokedAt: Date?
    public var scopes: Set<TokenPermission>
    /// After this the token is refused (401, "expired"); nil: never.
    public var expiresAt: Date?
    /// When the server last saw it (written at most once a minute per token and server process).
    public var lastUsedAt: Date?
    /// Its own rate limit; nil: the server's (`receipts serve --rate-limit`).
    public var rateLimit: RateLimit?

    public init(name: String, user: String = Ownership.defaultAdmin, createdAt: Date, revokedAt: Date?, scopes: Set<TokenPermission> = [.admin],
                expiresAt: Date? = nil, lastUsedAt: Date? = nil, rateLimit: RateLimit? = nil) {
        self.name = name
        self.user = user
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
        self.rateLimit = rateLimit
    }

    public func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }

    /// When a token made at `now` with `--expires text` expires: `90d`, `12h`, `2w`, `30min` from
    /// now, or a date (`2027-01-31`: the end of that day, UTC) or an ISO 8601 time
    /// (`2027-01-31T18:00:00Z`). Throws `.invalidInput` for anything else or a time already past.
    public static func expiry(_ text: String, now: Date) throws -> Date {
        let text = text.trimmingCharacters(in: .whitespaces)
        let date: Date
        if let seconds = DurationText.seconds(text), seconds <= 100 * 365 * 86400 {
            date = now.addingTimeInterval(seconds)
        } else if text.count == 10, let day = CalendarDate(iso: text) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            guard let start = calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day)),
                  let end = calendar.date(byAdding: .day, value: 1, to: start) else {
                throw ReceiptError(.invalidInput, "--expires \(text): not a date")
            }
            date = end
        } else if let time = ISO8601DateFormatter().date(from: text) {
            date = time
        } else {
            throw ReceiptError(.invalidInput, "--expires \(text): write a duration (90d, 12h, 2w, 30min), a date (2027-01-31) or an ISO 8601 time")
        }
        guard date > now else { throw ReceiptError(.invalidInput, "--expires \(text): that is already past") }
        return date
    }

    /// A new secret: `rcp_` and 32 random bytes, base64url.
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return "rcp_" + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// `text` with anything shaped like a secret (`rcp_` and 16 or more base64url characters)
    /// replaced by `rcp_…`: what a problem document or a log line echoes of a request (a path, a
    /// query value) never carries a token pasted in the wrong place.
    public static func redacted(_ text: String) -> String {
        guard text.contains("rcp_") else { return text }
        return text.replacingOccurrences(of: "rcp_[A-Za-z0-9_-]{16,}", with: "rcp_…", options: .regularExpression)
    }

    /// What a store keeps of a secret: its SHA-256, lowercase hex.
    public static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// What an idempotency key stands for when a request comes with it.
public enum IdempotencyClaim: Sendable, Equatable {
    /// The key was free: it now stands for this request's fingerprint. Bind it to the receipt made
    /// (`bindIdempotencyKey`), or release it when none was made.
    case claimed
    /// The key was used before, by a request with `fingerprint`, for `receiptId` (nil while that
    /// request is still storing its receipt).
    case taken(fingerprint: String, receiptId: UUID?)
}

/// What `receipts serve` keeps beside the receipts: API tokens (only the SHA-256 of each secret)
/// and idempotency keys. A store that serves HTTP conforms: `SQLiteReceiptStore` here, and
/// `PostgresReceiptStore` in ReceiptPostgres (beside its other queries). Their tables are part of
/// each store's schema (one schema per database); the queries and this protocol are the server's.
/// What `receipts serve` reads and writes beside the receipts: who is who (users, groups,
/// memberships), API tokens, idempotency keys, webhooks, e-mail and sign-in. No receipt is reached
/// from here: the HTTP handlers hold this and `pipeline.scoped(to:)`, never the whole store.
public protocol AccountStore: MailStore, SignInStore, ChangeAnnouncing {
    // MARK: Users and groups (see `User`, `UserGroup`)

    /// Every user, by name.
    func users() async throws -> [User]
    func user(named name: String) async throws -> User?
    /// Every group with its members, by name.
    func groups() async throws -> [UserGroup]
    /// The groups `user` belongs to, with their role in each.
    func memberships(ofUser user: String) async throws -> [String: GroupRole]

    // MARK: Tokens

    func tokens() async throws -> [APIToken]
    /// The token (not revoked; maybe expired) whose secret this is, or nil.
    func token(secret: String) async throws -> APIToken?
    /// Notes that the token named `name` was used at `at` (its `lastUsedAt`).
    func recordTokenUse(name: String, at: Date) async throws
    /// Whether any token is not revoked (an expired one counts: a server whose tokens all expired
    /// stays closed): then every `/v1` route needs one.
    func hasActiveTokens() async throws -> Bool
    /// Whether anyone can sign in, or is signed in: an API token not revoked (an expired one
    /// counts, as in `hasActiveTokens`), a password, a passkey, an invitation open at `now`, or a
    /// person's browser session live at `now`. While none is, `receipts serve` answers `/v1`
    /// requests from this computer as the administrator (`OpenMode`); the first one ends that.
    func canAnyoneSignIn(now: Date) async throws -> Bool
    /// Takes `key` of `owner` (a user, and the end user a service acts for: each has keys of its
    /// own) for a request whose content has `fingerprint` (the SHA-256 of the image bytes), or says
    /// what the key already stands for. One statement: of concurrent requests with one key,
    /// exactly one gets `.claimed`.
    func claimIdempotencyKey(_ key: String, of owner: Principal, fingerprint: String, now: Date) async throws -> IdempotencyClaim
    /// Records the receipt a claimed key's request made.
    func bindIdempotencyKey(_ key: String, of owner: Principal, receiptId: UUID) async throws
    /// Frees a key claimed for `fingerprint` whose request made no receipt (it was refused).
    func releaseIdempotencyKey(_ key: String, of owner: Principal, fingerprint: String) async throws

    // MARK: Webhook outbox (see `WebhookEvent`)

    /// Turns webhooks on or off for every process using the store: while on, the store writes an
    /// event with each receipt that finishes. Turning them off writes no more; events not delivered
    /// stay (a sender still delivers them).
    func setWebhooksEnabled(_ enabled: Bool) async throws
    func webhooksEnabled() async throws -> Bool
    /// Atomically takes up to `limit` due pending events (oldest first) that no other sender holds:
    /// `attempts + 1`, leased to `lease.holder` until `lease.expiresAt`. Of concurrent claims on any
    /// number of hosts, no two return the same event while its lease lasts. Users' webhooks'
    /// events always; the server-wide webhook's (`subscriptionId` nil) only with `serverWide`.
    func claimWebhookEvents(_ lease: Lease, limit: Int, serverWide: Bool) async throws -> [WebhookEvent]
    /// Records a 2xx answer. False when the event was already delivered (by another sender whose
    /// lease it took over) or is unknown.
    func markWebhookDelivered(id: UUID, now: Date) async throws -> Bool
    /// Records a failed attempt of an event this holder has leased: pending again until `retryAt`, or
    /// dead (a dead letter) when `retryAt` is nil. False when the lease was lost.
    func markWebhookFailed(id: UUID, holder: String, error: String, retryAt: Date?, now: Date) async throws -> Bool
    /// The earliest time a pending event becomes due (its next attempt, or the end of a lease
    /// another sender holds on it); nil when none is pending. The server-wide webhook's events
    /// count only with `serverWide`.
    func nextWebhookAttempt(serverWide: Bool) async throws -> Date?
    /// Events in `state` (every state when nil), newest first.
    func webhookEvents(state: WebhookEvent.State?, limit: Int?) async throws -> [WebhookEvent]
    func webhookEvent(id: UUID) async throws -> WebhookEvent?
    /// Number of events in each state.
    func webhookEventCounts() async throws -> [WebhookEvent.State: Int]
    /// Deletes the events delivered before `date` (pending and dead ones stay); returns how many.
    func pruneWebhookEvents(deliveredBefore date: Date) async throws -> Int
    /// Makes a dead or pending event due now, its attempts and its dead-letter time starting over.
    /// `.notFound` for an unknown id, `.invalidState` for a delivered event.
    func retryWebhookEvent(id: UUID, now: Date) async throws -> WebhookEvent
    /// Makes every dead event due now; returns them.
    func retryDeadWebhookEvents(now: Date) async throws -> [WebhookEvent]

    // MARK: Users' own webhooks

    /// Adds a webhook of `user` (for one end user of theirs with `externalUser`). From now on each
    /// receipt that finishes and that they may see gets an event for it.
    func addWebhookSubscription(_ subscription: WebhookSubscription) async throws
    /// The webhooks of `user`, or everyone's (nil), oldest first.
    func webhookSubscriptions(user: String?) async throws -> [WebhookSubscription]
    /// Removes a webhook of `user` (any user's with nil); `.notFound` when it is not theirs. Its
    /// events not yet delivered are dropped.
    func removeWebhookSubscription(id: UUID, user: String?) async throws
}

/// Changing who is who: users, groups, memberships and tokens. The command line's (`receipts user`,
/// `group`, `token`), not reachable from the HTTP handlers.
public protocol AccountAdministration: Sendable {
    /// Adds a user; with `defaultGroup`, the user's uploads go to that group (which must exist;
    /// the user becomes its editor unless a member already). Throws `.invalidState` when the name
    /// is taken, `.notFound` for an unknown group.
    func addUser(name: String, isAdmin: Bool, defaultGroup: String?, now: Date) async throws -> User
    /// Removes a user, their tokens, webhooks and memberships. Refused (`.invalidState`) while
    /// they own receipts, unless `reassignTo` names another user, who then owns them; and for the
    /// last administrator. Returns how many receipts changed owner.
    func removeUser(name: String, reassignTo: String?) async throws -> Int
    /// Adds a group with its members (users that exist). `.invalidState` when the name is taken.
    func addGroup(name: String, members: [String: GroupRole], now: Date) async throws -> UserGroup
    /// Removes a group: its receipts stay their owners' and are no longer shared.
    /// Returns how many receipts it held.
    func removeGroup(name: String) async throws -> Int
    /// Adds `user` to `group` with `role`, changes their role, or (nil) removes them.
    func setMember(group: String, user: String, role: GroupRole?) async throws
    /// Creates a token named `name` for `user` that may do what `scopes` grant, until `expiresAt`
    /// (nil: no end), at most `rateLimit` (nil: the server's); returns its secret, which is not
    /// kept (only its hash). Throws `.invalidState` when an active token has the name (a revoked
    /// token's name may be used again: the revoked token is forgotten), `.notFound` for an
    /// unknown user.
    func createToken(name: String, user: String, scopes: Set<TokenPermission>, expiresAt: Date?, rateLimit: RateLimit?,
                     now: Date) async throws -> String
    /// Revokes the token; throws `.notFound` for an unknown name.
    func revokeToken(name: String, now: Date) async throws -> APIToken
}

/// The whole store: receipts and the queue (`ReceiptStore`, `ReceiptQueueStore`), accounts and
/// their administration. What the command line opens (`OpenedStore`) and the stores implement:
/// `SQLiteReceiptStore` and `PostgresReceiptStore`.
public protocol ServerStore: ReceiptStore, AccountStore, AccountAdministration {}

extension AccountStore {
    /// Who `user` is when they ask (with `token`, for `externalUser`): their memberships and
    /// default group read once, for one request or one command.
    public func principal(of user: User, token: String? = nil, externalUser: String? = nil) async throws -> Principal {
        Principal(user: user.name, isAdmin: user.isAdmin, token: token, externalUser: externalUser,
                  memberships: try await memberships(ofUser: user.name), defaultGroup: user.defaultGroup)
    }

    /// The store's first administrator (by creation): who files receipts on the command line when
    /// no `--user` is given.
    public func firstAdmin() async throws -> User {
        guard let admin = try await users().filter(\.isAdmin).min(by: { ($0.createdAt, $0.name) < ($1.createdAt, $1.name) }) else {
            throw ReceiptError(.notFound, "the store has no administrator; add one with `receipts user add NAME --admin`")
        }
        return admin
    }

    /// The name of the token whose secret this is, when it is neither revoked nor expired at `now`.
    public func activeToken(secret: String, now: Date = Date()) async throws -> String? {
        guard let token = try await token(secret: secret), !token.isExpired(at: now) else { return nil }
        return token.name
    }
}

extension AccountAdministration {
    /// A token of `user` (default: `admin`) that may do everything (`admin`), with no end and the
    /// server's rate limit: what `receipts token create --name NAME` makes.
    public func createToken(name: String, user: String = Ownership.defaultAdmin, now: Date) async throws -> String {
        try await createToken(name: name, user: user, scopes: [.admin], expiresAt: nil, rateLimit: nil, now: now)
    }
}
