import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptKit
import ReceiptServerStore

/// Signing people in (`docs/review-ui.md`): the sign-in page (a passkey, a password, or an API
/// token), invitation links, passkeys' two ceremonies, signing out. The account page is in
/// `ReceiptServer+Account.swift`.
extension ReceiptServer {
    func addSignInRoutes(to router: Router<ReceiptRequestContext>) {
        router.get("/signin") { request, _ in
            _ = try QueryParameters(request, allowed: [])
            return try await self.signInPage(request, message: nil)
        }
        router.post("/signin") { request, context in try await self.signIn(request, context) }
        router.post("/signin/passkey/options") { request, context in try await self.passkeySignInOptions(request, context) }
        router.post("/signin/passkey") { request, context in try await self.passkeySignIn(request, context) }
        router.post("/signout") { request, context in try await self.signOut(request, context) }
        router.get("/invite/:secret") { request, context in
            _ = try QueryParameters(request, allowed: [])
            return try await self.invitationPage(request, secret: context.parameters.get("secret") ?? "")
        }
        router.post("/invite") { request, context in try await self.acceptInvitation(request, context) }
        addAccountRoutes(to: router)
    }

    var passwords: PasswordHasher { PasswordHasher(cost: configuration.signIn.passwordCost) }

    /// The address a request came from (the connection's; a proxy's own when behind one).
    static func address(_ context: ReceiptRequestContext) -> String? {
        context.channel.remoteAddress?.ipAddress
    }

    // MARK: The sign-in page

    /// The sign-in page's CSRF token: the browser's, or a new one set with this response.
    private func signInToken(_ request: Request) -> (token: String, isNew: Bool) {
        if let token = request.cookies[WebAuth.signInCookie]?.value, token.count >= 32 { return (token, false) }
        return (signInSecret(), true)
    }

    private func withSignInCookie(_ response: Response, _ token: (token: String, isNew: Bool)) -> Response {
        guard token.isNew else { return response }
        var response = response
        response.setCookie(Cookie(name: WebAuth.signInCookie, value: token.token, maxAge: 24 * 3600, path: "/", secure: secureCookies,
                                  httpOnly: true, sameSite: .strict))
        return response
    }

    /// Cookies are `Secure` when the server speaks HTTPS or is reached over it (`--public-url https://…`).
    var secureCookies: Bool {
        configuration.tls != nil || configuration.signIn.publicURL?.scheme?.lowercased() == "https"
    }

    func signInPage(_ request: Request, message: String?, status: HTTPResponse.Status = .ok, user: String = "") async throws -> Response {
        let csrf = signInToken(request)
        // While nobody can sign in, the API answers this computer as the administrator (`OpenMode`).
        let note = try await store.canAnyoneSignIn(now: Date()) ? ""
            : "<p class=\"note\" id=\"nobody\">Nobody can sign in yet: an administrator invites people with <code>receipts user invite NAME</code> "
                + "(or makes an API token with <code>receipts token create</code>). Until then the API answers requests from this computer "
                + "as the administrator.</p>"
        let error: String = message.map { (text: String) -> String in "<p class=\"error\" id=\"signin-error\" role=\"alert\">\(HTML.escape(text))</p>" } ?? ""
        let passkeys = configuration.signIn.relyingParty != nil
        let field = "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf.token))\">"
        let page = HTML.page(title: "Sign in", csrf: nil, active: "", status: status, pageName: "signin",
                             data: passkeys ? ["passkeys": "true"] : [:], body: """
            <main class="signin">
              <h1>Receipts</h1>
              \(error)
              <section class="passkey-signin" id="passkey-signin" hidden>
                <button type="button" id="passkey-button">Sign in with a passkey</button>
                <p class="error" id="passkey-error" role="alert" hidden></p>
              </section>
              <form method="post" action="/signin" id="password-form">
                \(field)
                <label for="user">User name</label>
                <input id="user" name="user" autocomplete="username webauthn" autocapitalize="none" value="\(HTML.escape(user))">
                <label for="password">Password</label>
                <input id="password" name="password" type="password" autocomplete="current-password">
                <button type="submit" id="password-button">Sign in</button>
              </form>
              <details class="token-signin" id="token-signin">
                <summary>Sign in with an API token</summary>
                <form method="post" action="/signin">
                  \(field)
                  <label for="token">API token</label>
                  <input id="token" name="token" type="password" autocomplete="off" placeholder="rcp_…">
                  <button type="submit" id="token-button">Sign in with the token</button>
                </form>
                <p class="hint">A token from <code>receipts token create</code> signs this browser in with the token's scopes; the browser keeps a session, not the token.</p>
              </details>
              \(note)
              <p id="waiting" class="waiting" aria-live="polite" hidden></p>
              <p class="hint">New here? Open the invitation link (or scan its QR code) an administrator gave you.</p>
              <script src="/assets/signin.js" defer></script>
            </main>
            """)
        return withSignInCookie(page, csrf)
    }

    private func signIn(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let body = try await BoundedBody.collect(request, context: context, limit: 8 * 1024, reported: 8 * 1024, what: "the sign-in form", setting: "")
        let form = WebAuth.form(String(buffer: body))
        try WebAuth.checkSignIn(request, given: form["csrf"])
        let address = Self.address(context), agent = request.headers[.userAgent]
        if let secret = form["token"]?.trimmingCharacters(in: .whitespacesAndNewlines), !secret.isEmpty {
            return try await signIn(request, token: secret, address: address, agent: agent)
        }
        let user = (form["user"] ?? "").trimmingCharacters(in: .whitespaces), password = form["password"] ?? ""
        guard !user.isEmpty, !password.isEmpty else {
            return try await signInPage(request, message: "Give your user name and password, or sign in with a passkey.", status: .badRequest, user: user)
        }
        let wait = throttle.wait(user: user, address: address)
        guard wait == 0 else {
            metrics.recordSignIn(method: "password", result: "slowed")
            logger.notice("Sign-in slowed: too many failures", metadata: ["user": "\(user)", "address": "\(address ?? "-")"])
            var page = try await signInPage(request, message: "Too many failed sign-ins: try again in \(wait) s.", status: .tooManyRequests, user: user)
            page.headers[.retryAfter] = String(wait)
            return page
        }
        // An unknown user costs a hash too, so that the answer's time does not tell which users exist.
        let hash = Ownership.isValidName(user) ? try await store.passwordHash(user: user) : nil
        let checked: String
        if let hash { checked = hash } else { checked = await dummyHash() }
        let valid = await passwords.verify(password, hash: checked)
        guard let hash, valid else {
            throttle.failed(user: user, address: address)
            metrics.recordSignIn(method: "password", result: "refused")
            logger.notice("Sign-in refused: wrong user name or password", metadata: ["user": "\(user)", "address": "\(address ?? "-")"])
            return try await signInPage(request, message: "Wrong user name or password.", status: .unauthorized, user: user)
        }
        throttle.succeeded(user: user)
        if passwords.needsRehash(hash), let again = try? await passwords.hash(password) {
            try await store.setPasswordHash(user: user, hash: again, now: Date())
        }
        return try await startSession(user: user, method: "password", address: address, agent: agent)
    }

    /// A hash of nothing anyone types, made once with this server's cost: what an unknown user's
    /// password is checked against.
    private func dummyHash() async -> String {
        if let made = throttle.dummyHash.withLock({ $0 }) { return made }
        let made = (try? await passwords.hash(signInSecret())) ?? ""
        throttle.dummyHash.withLock { $0 = made }
        return made
    }

    private func signIn(_ request: Request, token secret: String, address: String?, agent: String?) async throws -> Response {
        guard let token = try await store.token(secret: secret), !token.isExpired(at: Date()) else {
            let known = try await store.token(secret: secret)
            throttle.failed(user: nil, address: address)
            metrics.recordSignIn(method: "token", result: "refused")
            return try await signInPage(request, message: known != nil ? "That token has expired." : "That token is unknown or revoked.",
                                        status: .unauthorized)
        }
        guard TokenPermission.allows(token.scopes, .read) else {
            metrics.recordSignIn(method: "token", result: "refused")
            return try await signInPage(request, message: "That token may not read receipts (its scopes: \(TokenPermission.text(token.scopes))): the review pages need read.",
                                        status: .forbidden)
        }
        return try await startSession(user: token.user, method: "token", token: token, address: address, agent: agent)
    }

    /// A new session's cookie and a redirect to `location`.
    func startSession(user: String, method: String, token: APIToken? = nil, address: String?, agent: String?,
                      location: String = "/") async throws -> Response {
        let secret = try await sessions.create(user: user, method: method, token: token, userAgent: agent, address: address)
        metrics.recordSignIn(method: method, result: "ok")
        logger.info("Signed in", metadata: ["user": "\(user)", "method": "\(method)", "address": "\(address ?? "-")"])
        var response = Response(status: .seeOther, headers: [.location: location])
        response.setCookie(sessionCookie(secret))
        return response
    }

    func sessionCookie(_ secret: String) -> Cookie {
        Cookie(name: WebAuth.cookieName, value: secret, maxAge: secret.isEmpty ? 0 : Int(sessions.lifetime), path: "/", secure: secureCookies,
               httpOnly: true, sameSite: .strict)
    }

    private func signOut(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let body = try await BoundedBody.collect(request, context: context, limit: 8 * 1024, reported: 8 * 1024, what: "the sign-out form", setting: "")
        if let secret = request.cookies[WebAuth.cookieName]?.value, let signedIn = try await WebAuth.session(request, sessions: sessions) {
            try WebAuth.checkChange(request, csrf: signedIn.csrf, given: WebAuth.form(String(buffer: body))["csrf"])
            try await sessions.end(secret: secret)
        }
        var response = Response(status: .seeOther, headers: [.location: "/signin"])
        response.setCookie(sessionCookie(""))
        return response
    }

    // MARK: Invitations

    private func invitationPage(_ request: Request, secret: String) async throws -> Response {
        let csrf = signInToken(request)
        guard let invitation = try await store.invitation(secretHash: APIToken.hash(secret)) else {
            return invitationRefused("This invitation link is not known here: check it was copied whole, or ask for a new one.", status: .notFound)
        }
        let state = invitation.state(at: Date())
        guard state == .open else { return invitationRefused(Self.refusal(invitation, state), status: .gone) }
        let page = HTML.page(title: "Invitation", csrf: nil, active: "", pageName: "invite", body: """
            <main class="signin invite">
              <h1>Welcome, \(HTML.escape(invitation.user))</h1>
              <p>This link signs you in to Receipts on this device, once. Then add a passkey (Face ID, a fingerprint or the phone's PIN), so you sign in without it next time.</p>
              <form method="post" action="/invite" id="accept-form">
                <input type="hidden" name="csrf" value="\(HTML.escape(csrf.token))">
                <input type="hidden" name="secret" value="\(HTML.escape(secret))">
                <button type="submit" id="accept">Sign in as \(HTML.escape(invitation.user))</button>
              </form>
              <script src="/assets/signin.js" defer></script>
            </main>
            """)
        return withSignInCookie(page, csrf)
    }

    private static func refusal(_ invitation: Invitation, _ state: Invitation.State) -> String {
        let time = { (date: Date) in TokenGate.time(date) }
        switch state {
        case .used: return "This invitation was used already (\(time(invitation.usedAt ?? invitation.createdAt))): it signs in once. Ask for a new one, or sign in with your passkey."
        case .expired: return "This invitation expired at \(time(invitation.expiresAt)): ask for a new one."
        case .revoked: return "This invitation was withdrawn: ask for a new one."
        case .open: return ""
        }
    }

    private func invitationRefused(_ message: String, status: HTTPResponse.Status) -> Response {
        HTML.page(title: "Invitation", csrf: nil, active: "", status: status, pageName: "invite", body: """
            <main class="signin invite">
              <h1>Receipts</h1>
              <p class="error" id="invite-error" role="alert">\(HTML.escape(message))</p>
              <p><a class="button" href="/signin">Sign in</a></p>
            </main>
            """)
    }

    private func acceptInvitation(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let body = try await BoundedBody.collect(request, context: context, limit: 8 * 1024, reported: 8 * 1024, what: "the invitation", setting: "")
        let form = WebAuth.form(String(buffer: body))
        try WebAuth.checkSignIn(request, given: form["csrf"])
        let address = Self.address(context)
        guard let used = try await store.useInvitation(secretHash: APIToken.hash(form["secret"] ?? ""), now: Date()) else {
            metrics.recordSignIn(method: "invitation", result: "refused")
            return invitationRefused("This invitation link is not known here: ask for a new one.", status: .notFound)
        }
        let (invitation, taken) = used
        guard taken else {
            metrics.recordSignIn(method: "invitation", result: "refused")
            logger.notice("Invitation refused", metadata: ["user": "\(invitation.user)", "invitation": "\(invitation.id)",
                                                           "state": "\(invitation.state(at: Date()).rawValue)", "address": "\(address ?? "-")"])
            return invitationRefused(Self.refusal(invitation, invitation.state(at: Date())), status: .gone)
        }
        return try await startSession(user: invitation.user, method: "invitation", address: address, agent: request.headers[.userAgent],
                                      location: "/account?welcome=1")
    }

    // MARK: Passkeys: signing in

    /// The relying party, or a 409 saying that passkeys need `--public-url`.
    func relyingParty() throws -> WebAuthn {
        guard let party = configuration.signIn.relyingParty else {
            throw Problem(.conflict, "passkeys need the server's address: start it with --public-url https://HOST (an IP address is no relying party)")
        }
        return party
    }

    /// A new challenge kept in the store (once, for `challengeLifetime`): its base64url.
    func newChallenge(purpose: String, user: String?) async throws -> String {
        let challenge = Base64URL.encode(Base64URL.random())
        try await store.addChallenge(hash: APIToken.hash(challenge), purpose: purpose, user: user,
                                     expiresAt: Date().addingTimeInterval(configuration.signIn.challengeLifetime))
        return challenge
    }

    /// `POST /signin/passkey/options`: what `navigator.credentials.get` needs (any passkey of this
    /// relying party: no user name to type).
    private func passkeySignInOptions(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        try WebAuth.checkSignIn(request, given: request.headers[WebAuth.csrfHeader])
        let party = try relyingParty()
        let challenge = try await newChallenge(purpose: "sign-in", user: nil)
        return Self.json(.object([
            ("challenge", .string(challenge)), ("rpId", .string(party.rpID)),
            ("timeout", .number(String(Int(configuration.signIn.challengeLifetime * 1000)))),
            ("userVerification", .string("required")), ("allowCredentials", .array([])),
        ]))
    }

    /// The fields of a JSON body as base64url bytes.
    static func jsonBody(_ request: Request, _ context: ReceiptRequestContext, what: String) async throws -> JSONValue {
        let body = try await BoundedBody.collect(request, context: context, limit: 64 * 1024, reported: 64 * 1024, what: what, setting: "")
        guard let json = try? JSONValue.parse([UInt8](buffer: body)), json.objectValue != nil else {
            throw Problem(.badRequest, "\(what) is not a JSON object")
        }
        return json
    }

    static func bytes(_ json: JSONValue, _ name: String) throws -> [UInt8] {
        guard let text = json[name]?.stringValue, let bytes = Base64URL.decode(text) else {
            throw Problem(.badRequest, "\(name) is missing or not base64url")
        }
        return bytes
    }

    /// `POST /signin/passkey`: a passkey's assertion; a session when it verifies.
    private func passkeySignIn(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        try WebAuth.checkSignIn(request, given: request.headers[WebAuth.csrfHeader])
        let party = try relyingParty()
        let address = Self.address(context)
        let wait = throttle.wait(user: nil, address: address)
        guard wait == 0 else {
            metrics.recordSignIn(method: "passkey", result: "slowed")
            throw Problem(.tooManyRequests, "too many failed sign-ins from this address: try again in \(wait) s", headers: [.retryAfter: String(wait)])
        }
        let json = try await Self.jsonBody(request, context, what: "the passkey's answer")
        let rawID = try Self.bytes(json, "rawId")
        func refuse(_ reason: String, user: String? = nil) -> Problem {
            throttle.failed(user: user, address: address)
            metrics.recordSignIn(method: "passkey", result: "refused")
            logger.notice("Passkey sign-in refused", metadata: ["reason": "\(reason)", "user": "\(user ?? "-")", "address": "\(address ?? "-")"])
            return Problem(.unauthorized, reason)
        }
        guard let passkey = try await store.passkey(id: Base64URL.encode(rawID)) else {
            throw refuse("this passkey is not registered here: sign in another way and add it on your account page")
        }
        // The challenge is taken (single use) whatever follows: an answer is tried once.
        let clientDataJSON = try Self.bytes(json, "clientDataJSON")
        let challenge = (try? WebAuthn.clientData(clientDataJSON))?.challenge ?? ""
        let fresh = try await store.takeChallenge(hash: APIToken.hash(challenge), purpose: "sign-in", user: nil, now: Date())
        let assertion: WebAuthn.Assertion
        do {
            assertion = try party.signIn(clientDataJSON: clientDataJSON, authenticatorData: try Self.bytes(json, "authenticatorData"),
                                         signature: try Self.bytes(json, "signature"), publicKey: passkey.publicKey, storedSignCount: passkey.signCount)
        } catch let failure as WebAuthn.Failure {
            throw refuse(failure.description, user: passkey.user)
        }
        if let handle = json["userHandle"]?.stringValue, !handle.isEmpty, handle != passkey.userHandle {
            throw refuse("the passkey's user handle is not its user's", user: passkey.user)
        }
        guard fresh else {
            throw refuse("the sign-in's challenge is unknown, expired or used already: try again", user: passkey.user)
        }
        guard try await store.recordPasskeyUse(id: passkey.id, previous: passkey.signCount, signCount: assertion.signCount, at: Date()) else {
            throw refuse("the passkey was used by another sign-in at the same moment: try again", user: passkey.user)
        }
        throttle.succeeded(user: passkey.user)
        var response = try await startSession(user: passkey.user, method: "passkey", address: address, agent: request.headers[.userAgent])
        let cookies = response.headers[values: .setCookie]
        response = Self.json(.object([("location", .string("/")), ("user", .string(passkey.user))]))
        for cookie in cookies { response.headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return response
    }
}
