import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import ReceiptKit
@testable import ReceiptServer
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// People signing in (issue 48) through the real router over a real SQLite store: invitation
/// links, passkeys registered and used with a software authenticator, passwords, sessions and
/// their CSRF, and every refusal the issue lists. Passwords are hashed with libsodium's minimum
/// limits here (`PasswordHasher.Cost.minimum`): what is tested is the checks, not the cost.
@Suite struct SignInRoutesTests {
    final class Fixture: Sendable {
        let dir: TemporaryDirectory
        let store: SQLiteReceiptStore
        let server: ReceiptServer

        init(freePerUser: Int = 5, slowedFor base: TimeInterval = 1) async throws {
            dir = try TemporaryDirectory()
            store = try SQLiteReceiptStore(path: dir.storePath)
            let processor = ScriptedProcessor()
            let pipeline = ReceiptPipeline(store: store, images: ImageStore(besideDatabase: store.location), processor: processor,
                                           logger: TestSupport.logger)
            var configuration = ReceiptServer.Configuration()
            configuration.signIn = SignInConfiguration(publicURL: URL(string: "http://localhost:8080"), passwordCost: .minimum)
            configuration.signIn.throttle.freePerUser = freePerUser
            configuration.signIn.throttle.base = base
            server = ReceiptServer(pipeline: pipeline, store: store, processor: processor, configuration: configuration, logger: TestSupport.logger)
            _ = try await store.addUser(name: "carol", isAdmin: false, defaultGroup: nil, now: Date())
        }

        func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
            try await Application(router: server.makeRouter(), logger: TestSupport.logger).test(.router, body)
        }

        /// An invitation link's secret for `user`.
        func invite(_ user: String = "carol", lifetime: TimeInterval = 3600) async throws -> String {
            try await makeInvitation(for: user, by: "test", lifetime: lifetime, store: store).secret
        }
    }

    /// A browser: its cookies, the page's CSRF tokens, and requests as a page sends them.
    final class Browser: @unchecked Sendable {
        let client: any TestClientProtocol
        var cookies: [String: String] = [:]
        var agent = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"

        init(_ client: any TestClientProtocol) { self.client = client }

        struct Answer {
            var status: Int
            var headers: HTTPFields
            var text: String
            var json: JSONValue? { try? JSONValue.parse(Array(text.utf8)) }
            var location: String? { headers[.location] }
        }

        func send(_ method: HTTPRequest.Method, _ path: String, body: String? = nil, type: String? = nil, headers: [String: String] = [:]) async throws -> Answer {
            var fields: HTTPFields = [.userAgent: agent]
            if !cookies.isEmpty { fields[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
            if let type { fields[.contentType] = type }
            for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
            let response = try await client.execute(uri: path, method: method, headers: fields, body: body.map { ByteBuffer(string: $0) })
            for cookie in response.headers[values: .setCookie] {
                let pair = cookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
                let value = pair.count > 1 ? pair[1] : ""
                if value.isEmpty || cookie.contains("Max-Age=0") { cookies[pair[0]] = nil } else { cookies[pair[0]] = value }
            }
            return Answer(status: Int(response.status.code), headers: response.headers, text: String(buffer: response.body))
        }

        func get(_ path: String) async throws -> Answer { try await send(.get, path) }

        func form(_ path: String, _ fields: [String: String]) async throws -> Answer {
            let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
            return try await send(.post, path, body: body, type: "application/x-www-form-urlencoded")
        }

        func json(_ path: String, _ value: JSONValue = .object([]), csrf: String?) async throws -> Answer {
            try await send(.post, path, body: value.serialized(), type: "application/json", headers: csrf.map { ["X-CSRF-Token": $0] } ?? [:])
        }

        /// The sign-in form's CSRF token (from GET /signin, which sets its cookie).
        func signInToken() async throws -> String {
            let page = try await get("/signin")
            return try #require(Self.field(page.text, #"name="csrf" value="([^"]+)""#))
        }

        /// The session's CSRF token, from a signed-in page.
        func sessionToken() async throws -> String {
            try #require(Self.field(try await get("/account").text, #"<meta name="csrf" content="([^"]+)""#))
        }

        static func field(_ text: String, _ pattern: String) -> String? {
            guard let match = text.range(of: pattern, options: .regularExpression) else { return nil }
            let found = String(text[match])
            return found.split(separator: "\"").dropFirst(3).first.map(String.init)
        }

        /// Opens an invitation link and lets its page sign in (as its script does).
        func accept(_ secret: String) async throws -> Answer {
            let page = try await get("/invite/\(secret)")
            let csrf = Self.field(page.text, #"name="csrf" value="([^"]+)""#) ?? ""
            return try await form("/invite", ["csrf": csrf, "secret": secret])
        }

        /// Registers `authenticator` as a passkey of the signed-in user.
        func addPasskey(_ authenticator: inout SoftwareAuthenticator) async throws -> Answer {
            let csrf = try await sessionToken()
            let options = try #require(try await json("/account/passkeys/options", csrf: csrf).json)
            return try await json("/account/passkeys", authenticator.register(options: options), csrf: csrf)
        }

        /// The sign-in page's passkey button: options, then the authenticator's answer.
        func passkeyChallenge() async throws -> (csrf: String, challenge: String) {
            let csrf = try await signInToken()
            let options = try #require(try await json("/signin/passkey/options", csrf: csrf).json)
            return (csrf, try #require(options["challenge"]?.stringValue))
        }
    }

    /// carol, signed in by an invitation, with `authenticator` as her one passkey; then a fresh browser.
    func carolsPasskey(_ fixture: Fixture, _ client: any TestClientProtocol, rsa: Bool = false) async throws -> SoftwareAuthenticator {
        let browser = Browser(client)
        let accepted = try await browser.accept(try await fixture.invite())
        #expect(accepted.status == 303 && accepted.location == "/account?welcome=1" && browser.cookies[WebAuth.cookieName] != nil)
        var authenticator = try SoftwareAuthenticator(rsa: rsa)
        let added = try await browser.addPasskey(&authenticator)
        #expect(added.status == 201, "\(added.text)")
        return authenticator
    }

    // MARK: Invitations

    @Test func anInvitationSignsInOnceAndOffersAPasskey() async throws {
        let fixture = try await Fixture()
        let secret = try await fixture.invite()
        try await fixture.test { client in
            let browser = Browser(client)
            let page = try await browser.get("/invite/\(secret)")
            #expect(page.status == 200 && page.text.contains("Welcome, carol") && page.text.contains("id=\"accept-form\""))
            let accepted = try await browser.accept(secret)
            #expect(accepted.status == 303 && accepted.location == "/account?welcome=1")
            let account = try await browser.get("/account?welcome=1")
            #expect(account.status == 200 && account.text.contains("id=\"welcome\"") && account.text.contains("id=\"add-passkey\""))
            #expect(account.text.contains("iPhone Safari"), "the session's device, from its User-Agent")
            #expect(try await browser.get("/").status == 200)

            // Used: it says so and signs nobody in.
            let other = Browser(client)
            let again = try await other.get("/invite/\(secret)")
            #expect(again.status == 410 && again.text.contains("used already"))
            let twice = try await other.form("/invite", ["csrf": try await other.signInToken(), "secret": secret])
            #expect(twice.status == 410 && other.cookies[WebAuth.cookieName] == nil)
            #expect(try await other.get("/").location == "/signin")
        }
    }

    @Test func anExpiredRevokedOrUnknownInvitationSignsNobodyIn() async throws {
        let fixture = try await Fixture()
        let expired = signInSecret(prefix: "inv_"), revoked = try await makeInvitation(for: "carol", by: "test", lifetime: 3600, store: fixture.store)
        try await fixture.store.addInvitation(Invitation(id: signInID(), user: "carol", createdBy: "test", createdAt: Date().addingTimeInterval(-7200),
                                                         expiresAt: Date().addingTimeInterval(-3600)), secretHash: APIToken.hash(expired))
        _ = try await fixture.store.revokeInvitation(id: revoked.invitation.id, now: Date())
        try await fixture.test { client in
            for (secret, status, words) in [(expired, 410, "expired"), (revoked.secret, 410, "withdrawn"), ("inv_nothing", 404, "not known")] {
                let browser = Browser(client)
                let page = try await browser.get("/invite/\(secret)")
                #expect(page.status == status && page.text.contains(words), "\(words)")
                let csrf = try await browser.signInToken()
                let posted = try await browser.form("/invite", ["csrf": csrf, "secret": secret])
                #expect(posted.status == status && browser.cookies[WebAuth.cookieName] == nil, "\(words)")
            }
        }
    }

    @Test func anAdministratorMakesAnInvitationWithItsQRCodeOnThePage() async throws {
        let fixture = try await Fixture()
        _ = try await fixture.store.addUser(name: "alice", isAdmin: true, defaultGroup: nil, now: Date())
        try await fixture.test { client in
            let admin = Browser(client)
            #expect(try await admin.accept(try await fixture.invite("alice")).status == 303)
            let page = try await admin.get("/account")
            #expect(page.text.contains("id=\"invite-button\""))
            let made = try await admin.form("/account/invitations", ["csrf": try await admin.sessionToken(), "user": "carol", "expires": "1h"])
            #expect(made.status == 200 && made.text.contains("<svg") && made.text.contains("id=\"invite-qr\""))
            let link = try #require(Browser.field(made.text, #"id="invite-link" readonly value="([^"]+)""#))
            #expect(link.hasPrefix("http://localhost:8080/invite/inv_"))
            let carol = Browser(client)
            #expect(try await carol.accept(String(link.dropFirst("http://localhost:8080/invite/".count))).status == 303)
            #expect(try await carol.get("/account").text.contains("<h1>carol</h1>"))
            // carol is no administrator: she makes none.
            let refused = try await carol.form("/account/invitations", ["csrf": try await carol.sessionToken(), "user": "carol"])
            #expect(refused.status == 403)
        }
    }

    // MARK: Passkeys

    @Test(arguments: [false, true]) func aPasskeySignsInWithoutAUserName(rsa: Bool) async throws {
        let fixture = try await Fixture()
        try await fixture.test { client in
            var authenticator = try await carolsPasskey(fixture, client, rsa: rsa)
            let browser = Browser(client)
            let (csrf, challenge) = try await browser.passkeyChallenge()
            let answer = try await browser.json("/signin/passkey", try authenticator.assert(challenge: challenge), csrf: csrf)
            #expect(answer.status == 200 && answer.json?["user"]?.stringValue == "carol", "\(answer.text)")
            #expect(try await browser.get("/").status == 200)
            let keys = try await fixture.store.passkeys(user: "carol")
            #expect(keys.count == 1 && keys[0].signCount == 1 && keys[0].lastUsedAt != nil && keys[0].algorithm == (rsa ? -257 : -7))
            let sessions = try await fixture.store.sessions(user: "carol", now: Date())
            #expect(sessions.map(\.method).sorted() == ["invitation", "passkey"])
        }
    }

    @Test func aReplayedAssertionIsRefused() async throws {
        let fixture = try await Fixture()
        try await fixture.test { client in
            var authenticator = try await carolsPasskey(fixture, client)
            let browser = Browser(client)
            let (csrf, challenge) = try await browser.passkeyChallenge()
            let answer = try authenticator.assert(challenge: challenge)
            #expect(try await browser.json("/signin/passkey", answer, csrf: csrf).status == 200)
            let thief = Browser(client)
            let replayed = try await thief.json("/signin/passkey", answer, csrf: try await thief.signInToken())
            #expect(replayed.status == 401 && thief.cookies[WebAuth.cookieName] == nil)
        }
    }

    @Test func aChallengeUsedTwiceOrExpiredIsRefused() async throws {
        let fixture = try await Fixture()
        try await fixture.test { client in
            var authenticator = try await carolsPasskey(fixture, client)
            let browser = Browser(client)
            let (csrf, challenge) = try await browser.passkeyChallenge()
            #expect(try await browser.json("/signin/passkey", try authenticator.assert(challenge: challenge), csrf: csrf).status == 200)
            let second = try await browser.json("/signin/passkey", try authenticator.assert(challenge: challenge), csrf: csrf)
            #expect(second.status == 401 && (second.json?["detail"]?.stringValue ?? "").contains("challenge"), "\(second.text)")

            // A challenge the server gave that is past its lifetime (kept as the options route keeps one, already expired).
            let late = Browser(client)
            let token = try await late.signInToken()
            let old = Base64URL.encode(Base64URL.random())
            try await fixture.store.addChallenge(hash: APIToken.hash(old), purpose: "sign-in", user: nil, expiresAt: Date().addingTimeInterval(-1))
            let expired = try await late.json("/signin/passkey", try authenticator.assert(challenge: old), csrf: token)
            #expect(expired.status == 401 && (expired.json?["detail"]?.stringValue ?? "").contains("expired"), "\(expired.text)")
            #expect(late.cookies[WebAuth.cookieName] == nil)
        }
    }

    @Test func anotherOriginOrRPIDIsRefused() async throws {
        let fixture = try await Fixture()
        try await fixture.test { client in
            var authenticator = try await carolsPasskey(fixture, client)
            for (origin, rpID) in [("https://evil.example", nil), (nil, "evil.example")] as [(String?, String?)] {
                let browser = Browser(client)
                let (csrf, challenge) = try await browser.passkeyChallenge()
                let answer = try await browser.json("/signin/passkey", try authenticator.assert(challenge: challenge, origin: origin, rpID: rpID), csrf: csrf)
                #expect(answer.status == 401 && browser.cookies[WebAuth.cookieName] == nil, "\(answer.text)")
            }
            // Registering from another origin is refused too.
            let signedIn = Browser(client)
            #expect(try await signedIn.accept(try await fixture.invite()).status == 303)
            let csrf = try await signedIn.sessionToken()
            var other = try SoftwareAuthenticator()
            let options = try #require(try await signedIn.json("/account/passkeys/options", csrf: csrf).json)
            let refused = try await signedIn.json("/account/passkeys", other.register(options: options, origin: "http://localhost:9999"), csrf: csrf)
            #expect(refused.status == 400 && (refused.json?["detail"]?.stringValue ?? "").contains("origin"))
            #expect(try await fixture.store.passkeys(user: "carol").count == 1)
        }
    }

    @Test func aLoweredSignatureCounterIsRefused() async throws {
        let fixture = try await Fixture()
        try await fixture.test { client in
            var authenticator = try await carolsPasskey(fixture, client)
            let browser = Browser(client)
            var (csrf, challenge) = try await browser.passkeyChallenge()
            #expect(try await browser.json("/signin/passkey", try authenticator.assert(challenge: challenge, count: 10), csrf: csrf).status == 200)
            (csrf, challenge) = try await browser.passkeyChallenge()
            let cloned = try await browser.json("/signin/passkey", try authenticator.assert(challenge: challenge, count: 7), csrf: csrf)
            #expect(cloned.status == 401 && (cloned.json?["detail"]?.stringValue ?? "").contains("counter"), "\(cloned.text)")
        }
    }

    @Test func aPasskeyThatWasNeverRegisteredCannotSignIn() async throws {
        let fixture = try await Fixture()
        try await fixture.test { client in
            _ = try await carolsPasskey(fixture, client)
            var stranger = try SoftwareAuthenticator()
            let browser = Browser(client)
            let (csrf, challenge) = try await browser.passkeyChallenge()
            let answer = try await browser.json("/signin/passkey", try stranger.assert(challenge: challenge), csrf: csrf)
            #expect(answer.status == 401 && (answer.json?["detail"]?.stringValue ?? "").contains("not registered"))
            let metrics = try await browser.get("/metrics").text
            #expect(metrics.contains(#"receipts_sign_ins_total{method="passkey",result="refused"} 1"#), "\(metrics)")
        }
    }

    // MARK: CSRF, passwords, sessions

    @Test func aSignInPostWithoutThePagesCSRFTokenIsRefused() async throws {
        let fixture = try await Fixture()
        try await fixture.store.setPasswordHash(user: "carol", hash: try await PasswordHasher(cost: .minimum).hash("correct horse"), now: Date())
        try await fixture.test { client in
            let browser = Browser(client)
            let csrf = try await browser.signInToken()
            let bare = try await browser.form("/signin", ["user": "carol", "password": "correct horse"])
            let wrong = try await browser.form("/signin", ["user": "carol", "password": "correct horse", "csrf": String(csrf.reversed())])
            let noCookie = Browser(client)
            let withoutCookie = try await noCookie.form("/signin", ["user": "carol", "password": "correct horse", "csrf": csrf])
            let options = try await browser.json("/signin/passkey/options", csrf: nil)
            let invite = try await browser.form("/invite", ["secret": try await fixture.invite()])
            for answer in [bare, wrong, withoutCookie, options, invite] {
                #expect(answer.status == 403 && answer.text.contains("CSRF"), "\(answer.text)")
            }
            #expect(browser.cookies[WebAuth.cookieName] == nil && noCookie.cookies[WebAuth.cookieName] == nil)
            let right = try await browser.form("/signin", ["user": "carol", "password": "correct horse", "csrf": csrf])
            #expect(right.status == 303 && browser.cookies[WebAuth.cookieName] != nil)
        }
    }

    @Test func aWrongPasswordIsRefusedAndSlowedAfterAFew() async throws {
        // Slowed for a minute: however slow this machine, the next try comes within it.
        let fixture = try await Fixture(freePerUser: 3, slowedFor: 60)
        try await fixture.store.setPasswordHash(user: "carol", hash: try await PasswordHasher(cost: .minimum).hash("correct horse"), now: Date())
        try await fixture.test { client in
            let browser = Browser(client)
            let csrf = try await browser.signInToken()
            let right = try await browser.form("/signin", ["user": "carol", "password": "correct horse", "csrf": csrf])
            #expect(right.status == 303 && browser.cookies[WebAuth.cookieName] != nil)
            browser.cookies[WebAuth.cookieName] = nil
            for attempt in 1...3 {
                let wrong = try await browser.form("/signin", ["user": "carol", "password": "wrong \(attempt)", "csrf": csrf])
                #expect(wrong.status == 401 && wrong.text.contains("Wrong user name or password"))
            }
            let unknown = try await browser.form("/signin", ["user": "nobody", "password": "whatever1", "csrf": csrf])
            #expect(unknown.status == 401 && unknown.text.contains("Wrong user name or password"), "an unknown user is answered alike")
            // Slowed: even the right password waits now.
            let slowed = try await browser.form("/signin", ["user": "carol", "password": "correct horse", "csrf": csrf])
            let wait = Int(slowed.headers[.retryAfter] ?? "") ?? 0
            #expect(slowed.status == 429 && (50...60).contains(wait) && browser.cookies[WebAuth.cookieName] == nil, "\(slowed.status) \(wait)")
            let metrics = try await browser.get("/metrics").text
            #expect(metrics.contains(#"receipts_sign_ins_total{method="password",result="refused"} 4"#)
                    && metrics.contains(#"receipts_sign_ins_total{method="password",result="slowed"} 1"#)
                    && metrics.contains(#"receipts_sign_ins_total{method="password",result="ok"} 1"#), "\(metrics)")
            #expect(!metrics.contains("correct horse") && !metrics.contains("wrong 1"))
        }
    }

    @Test func theThrottleWaitsDoublingPerUserAndPerAddressAndForgetsASuccess() {
        let throttle = SignInThrottle(policy: .init(freePerUser: 2, freePerAddress: 3, base: 1, longest: 4, window: 3600))
        let start = Date(timeIntervalSince1970: 1_000_000)
        throttle.failed(user: "carol", address: "a", now: start)
        #expect(throttle.wait(user: "carol", address: "a", now: start) == 0)
        throttle.failed(user: "carol", address: "a", now: start)
        #expect(throttle.wait(user: "carol", address: "b", now: start) == 1, "carol's third try waits 1 s, from anywhere")
        #expect(throttle.wait(user: "carol", address: "b", now: start.addingTimeInterval(1)) == 0)
        throttle.failed(user: "carol", address: "a", now: start.addingTimeInterval(1))
        #expect(throttle.wait(user: "carol", address: nil, now: start.addingTimeInterval(1)) == 2, "doubling")
        #expect(throttle.wait(user: "dave", address: "a", now: start.addingTimeInterval(1)) == 1, "address a failed 3 times: anyone from it waits")
        for _ in 0..<5 { throttle.failed(user: "carol", address: nil, now: start.addingTimeInterval(1)) }
        #expect(throttle.wait(user: "carol", address: nil, now: start.addingTimeInterval(1)) == 4, "at most `longest`")
        throttle.succeeded(user: "carol")
        #expect(throttle.wait(user: "carol", address: nil, now: start.addingTimeInterval(1)) == 0)
        #expect(throttle.wait(user: "carol", address: nil, now: start.addingTimeInterval(4000)) == 0)
    }

    @Test func aRevokedSessionsCookieIsRefused() async throws {
        let fixture = try await Fixture()
        // A token closes the API to requests without one (a server without tokens is open on loopback).
        _ = try await fixture.store.createToken(name: "scanner", user: "carol", scopes: [.upload], expiresAt: nil, rateLimit: nil, now: Date())
        try await fixture.test { client in
            let browser = Browser(client)
            #expect(try await browser.accept(try await fixture.invite()).status == 303)
            #expect(try await browser.get("/v1/receipts").status == 200)
            let sessions = try await fixture.store.sessions(user: "carol", now: Date())
            #expect(sessions.count == 1 && sessions[0].device == "iPhone Safari" && sessions[0].method == "invitation")
            // What `receipts user sessions carol --revoke ID` does, from another process.
            #expect(try await fixture.store.endSession(id: sessions[0].id, user: "carol"))
            #expect(try await browser.get("/").location == "/signin")
            #expect(try await browser.get("/v1/receipts").status == 401)
            #expect(try await browser.get("/account").location == "/signin")
        }
    }

    @Test func aSessionIsNoBearerTokenAndATokenNoSession() async throws {
        let fixture = try await Fixture()
        let token = try await fixture.store.createToken(name: "carol-app", user: "carol", scopes: [.read], expiresAt: nil, rateLimit: nil, now: Date())
        try await fixture.test { client in
            let browser = Browser(client)
            #expect(try await browser.accept(try await fixture.invite()).status == 303)
            let secret = try #require(browser.cookies[WebAuth.cookieName])
            let bearer = Browser(client)
            #expect(try await bearer.send(.get, "/v1/me", headers: ["Authorization": "Bearer \(secret)"]).status == 401)
            let cookie = Browser(client)
            cookie.cookies[WebAuth.cookieName] = token
            #expect(try await cookie.get("/v1/me").status == 401)
            #expect(try await cookie.get("/").location == "/signin")
            // Each works as what it is.
            #expect(try await bearer.send(.get, "/v1/me", headers: ["Authorization": "Bearer \(token)"]).status == 200)
            let me = try await browser.get("/v1/me")
            #expect(me.status == 200 && me.json?["user"]?.stringValue == "carol")
            // A session never acts for an end user.
            #expect(try await browser.send(.get, "/v1/receipts", headers: ["Receipts-External-User": "u-1"]).status == 403)
        }
    }

    @Test func removingTheLastWayInIsRefusedUnlessOnPurpose() async throws {
        let fixture = try await Fixture()
        try await fixture.test { client in
            _ = try await carolsPasskey(fixture, client)
            let browser = Browser(client)
            #expect(try await browser.accept(try await fixture.invite()).status == 303)
            let key = try #require(try await fixture.store.passkeys(user: "carol").first)
            let csrf = try await browser.sessionToken()
            let refused = try await browser.form("/account/passkeys/\(key.id)/remove", ["csrf": csrf])
            #expect(refused.status == 409 && refused.text.contains("last way to sign in") && refused.text.contains("id=\"remove-anyway\""), "\(refused.text)")
            #expect(try await fixture.store.passkeys(user: "carol").count == 1)
            let renamed = try await browser.form("/account/passkeys/\(key.id)/rename", ["csrf": csrf, "name": "Carol's phone"])
            let listed = try await browser.get("/account").text
            #expect(renamed.status == 303 && listed.contains("Carol&#39;s phone"))
            let removed = try await browser.form("/account/passkeys/\(key.id)/remove", ["csrf": csrf, "anyway": "yes"])
            let left = try await fixture.store.passkeys(user: "carol")
            #expect(removed.status == 303 && left.isEmpty)
            // A change without the session's CSRF token changes nothing.
            #expect(try await browser.form("/account/password", ["new": "abcdefgh1", "again": "abcdefgh1"]).status == 403)
            #expect(try await fixture.store.passwordHash(user: "carol") == nil)
        }
    }

    /// Issue 56, item 12: two passkeys named alike are told apart (a new one's name is numbered;
    /// two of one name added in one minute show the ends of their IDs); Remove is a destructive
    /// button, not Rename's kind; the invitation form invites nobody until a user is chosen.
    @Test func passkeysNamedAlikeAreToldApartAndTheInvitationFormChoosesNobody() async throws {
        let fixture = try await Fixture()
        _ = try await fixture.store.addUser(name: "alice", isAdmin: true, defaultGroup: nil, now: Date())
        try await fixture.test { client in
            let browser = Browser(client)
            #expect(try await browser.accept(try await fixture.invite()).status == 303)
            #expect(Browser.field(try await browser.get("/account").text, #"id="passkey-name" value="([^"]+)""#) == "iPhone Safari")
            var phone = try SoftwareAuthenticator(), manager = try SoftwareAuthenticator()
            for authenticator in [0, 1] {
                let csrf = try await browser.sessionToken()
                let options = try #require(try await browser.json("/account/passkeys/options", csrf: csrf).json)
                let registration = authenticator == 0 ? phone.register(options: options, name: "iPhone Safari")
                    : manager.register(options: options, name: "iPhone Safari")
                #expect(try await browser.json("/account/passkeys", registration, csrf: csrf).status == 201)
                if authenticator == 0 {
                    let next = Browser.field(try await browser.get("/account").text, #"id="passkey-name" value="([^"]+)""#)
                    #expect(next == "iPhone Safari 2", "a second passkey made here is offered another name")
                }
            }
            let page = try await browser.get("/account").text
            let keys = try await fixture.store.passkeys(user: "carol")
            #expect(keys.count == 2)
            let whens = page.components(separatedBy: "<span class=\"when\">").dropFirst().map { String($0.prefix { $0 != "<" }) }
            #expect(whens.count == 2 && Set(whens).count == 2 && whens.allSatisfy { $0.contains("added 20") },
                    "each row says when it was added, and the two differ: \(whens)")
            // Added in one minute (as here, but for a minute's turn between them): told apart by their IDs' ends.
            if Set(keys.map { Int($0.createdAt.timeIntervalSince1970 / 60) }).count == 1 {
                for key in keys { #expect(page.contains("key …" + key.id.suffix(6)), "\(whens)") }
            }
            #expect(page.components(separatedBy: "class=\"danger\">Remove</button>").count == 3
                    && !page.contains("class=\"secondary\">Remove"), "Remove is a destructive button, not a second Rename")

            let admin = Browser(client)
            #expect(try await admin.accept(try await fixture.invite("alice")).status == 303)
            let form = try await admin.get("/account").text
            #expect(form.contains("<option value=\"\" selected disabled>Choose a user</option>")
                    && form.components(separatedBy: " selected").count == 3, "only 'Choose a user' and 24 hours are chosen: \(form)")
            let nobody = try await admin.form("/account/invitations", ["csrf": try await admin.sessionToken(), "user": "", "expires": "1h"])
            #expect(nobody.status == 400 && nobody.text.contains("Choose whom to invite."), "\(nobody.text)")
        }
    }

    @Test func thePasswordIsSetTwiceTheSameAndChangedWithTheCurrentOne() async throws {
        let fixture = try await Fixture()
        try await fixture.test { client in
            let browser = Browser(client)
            #expect(try await browser.accept(try await fixture.invite()).status == 303)
            let csrf = try await browser.sessionToken()
            #expect(try await browser.form("/account/password", ["csrf": csrf, "new": "abcdefgh1", "again": "abcdefgh2"]).status == 400)
            #expect(try await browser.form("/account/password", ["csrf": csrf, "new": "short", "again": "short"]).status == 400)
            #expect(try await browser.form("/account/password", ["csrf": csrf, "new": "abcdefgh1", "again": "abcdefgh1"]).location
                    == "/account?done=password-set")
            let hash = try #require(try await fixture.store.passwordHash(user: "carol"))
            #expect(hash.hasPrefix("$argon2id$") && !hash.contains("abcdefgh1"))
            #expect(try await browser.form("/account/password", ["csrf": csrf, "current": "nope", "new": "zyxwvuts9", "again": "zyxwvuts9"]).status == 403)
            #expect(try await browser.form("/account/password", ["csrf": csrf, "current": "abcdefgh1", "new": "zyxwvuts9", "again": "zyxwvuts9"]).status == 303)
            // Signed out, the new password signs in.
            let other = Browser(client)
            let token = try await other.signInToken()
            #expect(try await other.form("/signin", ["user": "carol", "password": "zyxwvuts9", "csrf": token]).status == 303)
            let sessions = try await fixture.store.sessions(user: "carol", now: Date())
            #expect(sessions.count == 2)
            // Signing out another device from the account page.
            let theirs = try #require(sessions.first { $0.method == "password" })
            #expect(try await browser.form("/account/sessions/\(theirs.id)/end", ["csrf": csrf]).location == "/account?done=session-ended")
            #expect(try await other.get("/").location == "/signin")
        }
    }
}
