import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptKit
import ReceiptServerStore

/// The account page (`/account`): the signed-in person's passkeys (add, rename, remove), password,
/// and the devices they are signed in on (sign one out, or all others); for an administrator, an
/// invitation for someone with its QR code on screen. Forms post back here and return to the page.
extension ReceiptServer {
    func addAccountRoutes(to router: Router<ReceiptRequestContext>) {
        router.get("/account") { request, _ in
            let query = try QueryParameters(request, allowed: ["welcome", "done"])
            return try await self.signedIn(request) { page in
                try await self.accountPage(page, note: query["done"].flatMap { Self.notes[$0] },
                                           welcome: query["welcome"] != nil)
            }
        }
        router.post("/account/passkeys/options") { request, context in
            try await self.signedInChange(request, context, header: true) { page, _ in try await self.passkeyOptions(page) }
        }
        router.post("/account/passkeys") { request, context in
            try await self.signedInChange(request, context, header: true) { page, _ in try await self.registerPasskey(request, context, page) }
        }
        router.post("/account/passkeys/:id/rename") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await self.signedInChange(request, context) { page, form in
                let name = (form["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                guard (1...64).contains(name.count) else {
                    return try await self.accountPage(page, error: "A passkey's name is 1 to 64 characters.", status: .badRequest)
                }
                try await self.store.renamePasskey(id: id, user: page.principal.user, name: name)
                return Self.back("passkey-renamed")
            }
        }
        router.post("/account/passkeys/:id/remove") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await self.signedInChange(request, context) { page, form in
                let user = page.principal.user
                guard try await self.store.passkeys(user: user).contains(where: { $0.id == id }) else {
                    return try await self.accountPage(page, error: "No passkey of yours has this ID.", status: .notFound)
                }
                let ways = try await self.store.waysToSignIn(user: user)
                if ways.passkeys == 1, !ways.password, ways.tokens == 0, form["anyway"] != "yes" {
                    return try await self.accountPage(page, error: "This is your last way to sign in: without it, only a new invitation lets you in. "
                                                      + "Add another passkey or a password first, or tick “Remove it anyway”.", status: .conflict,
                                                      lastWay: id)
                }
                try await self.store.removePasskey(id: id, user: user)
                return Self.back("passkey-removed")
            }
        }
        router.post("/account/password") { request, context in
            try await self.signedInChange(request, context) { page, form in try await self.setPassword(page, form) }
        }
        router.post("/account/sessions/:id/end") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await self.signedInChange(request, context) { page, _ in
                guard try await self.store.endSession(id: id, user: page.principal.user) else {
                    return try await self.accountPage(page, error: "No session of yours has this ID (it may have ended).", status: .notFound)
                }
                return id == page.session?.id ? Response(status: .seeOther, headers: [.location: "/signin"]) : Self.back("session-ended")
            }
        }
        router.post("/account/sessions/end-others") { request, context in
            try await self.signedInChange(request, context) { page, _ in
                for session in try await self.store.sessions(user: page.principal.user, now: Date()) where session.id != page.session?.id {
                    _ = try await self.store.endSession(id: session.id, user: page.principal.user)
                }
                return Self.back("sessions-ended")
            }
        }
        router.post("/account/invitations") { request, context in
            try await self.signedInChange(request, context) { page, form in try await self.inviteFromPage(request, page, form) }
        }
        router.get("/assets/signin.js") { _, _ in WebAssets.response(WebAssets.signInScript, type: "text/javascript; charset=utf-8") }
    }

    static let notes = [
        "passkey-added": "Passkey added: this device signs you in with it from now on.",
        "passkey-renamed": "Passkey renamed.", "passkey-removed": "Passkey removed.", "password-set": "Password set.",
        "session-ended": "That device is signed out.", "sessions-ended": "Every other device is signed out.",
    ]

    static func back(_ done: String) -> Response {
        Response(status: .seeOther, headers: [.location: "/account?done=\(done)"])
    }

    /// A change from the account page: a signed-in session, this origin, and the session's CSRF
    /// token (the form's `csrf` field, or with `header` the X-CSRF-Token header of a script's request).
    private func signedInChange(_ request: Request, _ context: ReceiptRequestContext, header: Bool = false,
                                _ change: @escaping (PageContext, [String: String]) async throws -> Response) async throws -> Response {
        var form: [String: String] = [:]
        var given = request.headers[WebAuth.csrfHeader]
        if !header {
            let body = try await BoundedBody.collect(request, context: context, limit: 8 * 1024, reported: 8 * 1024, what: "the form", setting: "")
            form = WebAuth.form(String(buffer: body))
            given = form["csrf"]
        }
        guard let signedIn = try await WebAuth.session(request, sessions: sessions) else {
            throw Problem(.unauthorized, "this browser is not signed in (any more): sign in again")
        }
        try WebAuth.checkChange(request, csrf: signedIn.csrf, given: given)
        return try await self.signedIn(request) { page in try await change(page, form) }
    }

    // MARK: The page

    func accountPage(_ page: PageContext, note: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok,
                     welcome: Bool = false, lastWay: String? = nil, invitation: String = "", invited: String? = nil) async throws -> Response {
        let user = page.principal.user, now = Date()
        let csrf = "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(page.csrf))\">"
        let passkeys = try await store.passkeys(user: user)
        let sessions = try await store.sessions(user: user, now: now)
        let hasPassword = try await store.passwordHash(user: user) != nil
        let party = configuration.signIn.relyingParty
        var lines: [String] = []
        if welcome {
            lines.append("<p class=\"note\" id=\"welcome\">You are signed in. Add a passkey now, so this device signs you in next time with Face ID, a fingerprint or its PIN — nothing to type. Or set a password below.</p>")
        }
        if let note { lines.append("<p class=\"note\" id=\"note\" role=\"status\">\(HTML.escape(note))</p>") }
        if let error { lines.append("<p class=\"error\" id=\"account-error\" role=\"alert\">\(HTML.escape(error))</p>") }
        // Each passkey: its name (renamed in place), when it was added (two named alike are told
        // apart by it) and last used, and Remove, a quiet destructive button apart from Rename.
        // Two of one name added in the same minute: also the end of each one's credential ID.
        let alike = Dictionary(grouping: passkeys) { "\($0.name)\u{0}\(Self.clock($0.createdAt))" }.filter { $0.value.count > 1 }
        let keyRows = passkeys.map { key -> String in
            var last = key.lastUsedAt.map { "last used " + Self.ago($0, now: now) } ?? "not used yet"
            if alike["\(key.name)\u{0}\(Self.clock(key.createdAt))"] != nil { last += " · key …" + key.id.suffix(6) }
            let id = HTML.escape(key.id), anyway = lastWay == key.id
                ? "<label class=\"anyway\"><input type=\"checkbox\" name=\"anyway\" value=\"yes\" id=\"remove-anyway\"> Remove it anyway</label>" : ""
            return """
                <li class="passkey" data-id="\(id)"><form method="post" action="/account/passkeys/\(id)/rename" class="rename">\(csrf)\
                <input name="name" value="\(HTML.escape(key.name))" aria-label="Passkey name" maxlength="64"><button type="submit" class="secondary">Rename</button></form>\
                <span class="when">added \(HTML.escape(Self.clock(key.createdAt))) · \(last)</span>\
                <form method="post" action="/account/passkeys/\(id)/remove" class="remove">\(csrf)\(anyway)<button type="submit" class="danger">Remove</button></form></li>
                """
        }.joined()
        // A new passkey's name: this device's (`iPhone Safari`), numbered when a passkey has it already.
        let device = page.session?.device ?? "Passkey"
        let names = Set(passkeys.map(\.name))
        let newName = names.contains(device) ? (2...).lazy.map { "\(device) \($0)" }.first { !names.contains($0) }! : device
        let addPasskey = party == nil
            ? "<p class=\"hint\">Passkeys need the server's public address: start it with <code>receipts serve --public-url https://HOST</code>.</p>"
            : """
                <div class="add-passkey"><label for="passkey-name">Name</label><input id="passkey-name" value="\(HTML.escape(newName))" maxlength="64">\
                <button type="button" id="add-passkey">Add a passkey</button></div><p class="error" id="passkey-error" role="alert" hidden></p>
                """
        let sessionRows = sessions.map { session -> String in
            let this = session.id == page.session?.id
            return """
                <li class="session" data-id="\(session.id)"\(this ? " data-current=\"true\"" : "")><span><b>\(HTML.escape(session.device))</b>\
                \(this ? " · this device" : ""), last used \(Self.ago(session.lastUsedAt, now: now))\
                \(session.address.map { " · from \(HTML.escape($0))" } ?? "") · signed in with \(HTML.escape(session.method))</span>\
                <form method="post" action="/account/sessions/\(session.id)/end">\(csrf)<button type="submit" class="secondary">Sign out</button></form></li>
                """
        }.joined()
        var admin = ""
        if page.principal.isAdmin {
            // Nobody is chosen until the administrator chooses (the first user in order is often themself).
            let users: String = "<option value=\"\"\(invited == nil ? " selected" : "") disabled>Choose a user</option>"
                + (try await store.users().map { user -> String in
                    "<option\(user.name == invited ? " selected" : "")>\(HTML.escape(user.name))</option>"
                }.joined())
            admin = """
                <section class="panel" id="invite">
                  <h2>Invite someone</h2>
                  <form method="post" action="/account/invitations" class="invite-form">\(csrf)
                    <label>User <select name="user" id="invite-user" required>\(users)</select></label>
                    <label>Valid for <select name="expires" id="invite-expires"><option value="1h">1 hour</option>\
                <option value="24h" selected>24 hours</option><option value="7d">7 days</option></select></label>
                    <button type="submit" id="invite-button">Make an invitation</button>
                  </form>
                  \(invitation)
                </section>
                """
        }
        return HTML.page(title: "Account", csrf: page.csrf, who: page.who, active: "account", status: status, pageName: "account",
                         data: party == nil ? [:] : ["passkeys": "true"], body: """
            <main class="account">
              <h1>\(HTML.escape(user))</h1>
              \(lines.joined(separator: "\n"))
              <section class="panel" id="passkeys">
                <h2>Passkeys</h2>
                <ul class="passkeys">\(keyRows.isEmpty ? "<li class=\"none\">No passkey yet.</li>" : keyRows)</ul>
                \(addPasskey)
              </section>
              <section class="panel" id="password">
                <h2>Password</h2>
                <form method="post" action="/account/password" class="password-form">\(csrf)
                  <input type="text" name="user" value="\(HTML.escape(user))" autocomplete="username" hidden>
                  \(hasPassword ? "<label>Current password <input type=\"password\" name=\"current\" autocomplete=\"current-password\" id=\"current-password\"></label>" : "")
                  <label>New password <input type="password" name="new" autocomplete="new-password" minlength="8" id="new-password"></label>
                  <label>Again <input type="password" name="again" autocomplete="new-password" minlength="8" id="again-password"></label>
                  <button type="submit" id="password-button">\(hasPassword ? "Change the password" : "Set a password")</button>
                </form>
              </section>
              <section class="panel" id="devices">
                <h2>Signed in on</h2>
                <ul class="sessions">\(sessionRows)</ul>
                \(sessions.count > 1 ? "<form method=\"post\" action=\"/account/sessions/end-others\">\(csrf)<button type=\"submit\" class=\"secondary\" id=\"end-others\">Sign out every other device</button></form>" : "")
              </section>
              \(admin)
              <script src="/assets/signin.js" defer></script>
            </main>
            """)
    }

    /// `2 min ago`, `3 h ago`, `just now`, or a date for what is older than a week.
    static func ago(_ date: Date, now: Date) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(seconds / 60) min ago"
        case ..<86400: return "\(seconds / 3600) h ago"
        case ..<(7 * 86400): return "\(seconds / 86400) d ago"
        default: return "on " + String(TokenGate.time(date).prefix(10))
        }
    }

    /// `2026-11-29 18:00 UTC`.
    static func clock(_ date: Date) -> String {
        let text = TokenGate.time(date)
        return text.prefix(10) + " " + text.dropFirst(11).prefix(5) + " UTC"
    }

    // MARK: Password

    private func setPassword(_ page: PageContext, _ form: [String: String]) async throws -> Response {
        let user = page.principal.user
        let new = form["new"] ?? ""
        guard new == form["again"] else { return try await accountPage(page, error: "The two new passwords differ.", status: .badRequest) }
        do { _ = try PasswordHasher.check(new) } catch let error as PasswordHasher.PasswordError {
            return try await accountPage(page, error: "Not set: \(error.description).", status: .badRequest)
        }
        if let current = try await store.passwordHash(user: user) {
            let wait = throttle.wait(user: user, address: nil)
            guard wait == 0 else { return try await accountPage(page, error: "Too many wrong passwords: try again in \(wait) s.", status: .tooManyRequests) }
            guard await passwords.verify(form["current"] ?? "", hash: current) else {
                throttle.failed(user: user, address: nil)
                return try await accountPage(page, error: "The current password is wrong.", status: .forbidden)
            }
        }
        try await store.setPasswordHash(user: user, hash: try await passwords.hash(new), now: Date())
        logger.info("Password set", metadata: ["user": "\(user)"])
        return Self.back("password-set")
    }

    // MARK: Passkeys: registering

    /// `POST /account/passkeys/options`: what `navigator.credentials.create` needs: this relying
    /// party, the user's handle, ES256 or RS256, a resident key, user verification, attestation
    /// none, and the user's passkeys to exclude.
    private func passkeyOptions(_ page: PageContext) async throws -> Response {
        let party = try relyingParty()
        let user = page.principal.user
        let existing = try await store.passkeys(user: user)
        let handle = existing.first?.userHandle ?? Base64URL.encode(Base64URL.random(16))
        let challenge = try await newChallenge(purpose: "register:" + handle, user: user)
        return Self.json(.object([
            ("rp", .object([("id", .string(party.rpID)), ("name", .string("Receipts"))])),
            ("user", .object([("id", .string(handle)), ("name", .string(user)), ("displayName", .string(user))])),
            ("challenge", .string(challenge)),
            ("pubKeyCredParams", .array([WebAuthn.es256, WebAuthn.rs256].map {
                .object([("type", .string("public-key")), ("alg", .number(String($0)))])
            })),
            ("timeout", .number(String(Int(configuration.signIn.challengeLifetime * 1000)))),
            ("attestation", .string("none")),
            ("authenticatorSelection", .object([("residentKey", .string("required")), ("requireResidentKey", .bool(true)),
                                                ("userVerification", .string("required"))])),
            ("excludeCredentials", .array(existing.map { .object([("type", .string("public-key")), ("id", .string($0.id))]) })),
        ]))
    }

    /// `POST /account/passkeys`: a registration (`navigator.credentials.create`'s answer), kept
    /// when it checks out.
    private func registerPasskey(_ request: Request, _ context: ReceiptRequestContext, _ page: PageContext) async throws -> Response {
        let party = try relyingParty()
        let user = page.principal.user
        let json = try await Self.jsonBody(request, context, what: "the new passkey")
        let clientDataJSON = try Self.bytes(json, "clientDataJSON")
        let challenge = (try? WebAuthn.clientData(clientDataJSON))?.challenge ?? ""
        let existing = try await store.passkeys(user: user)
        // The handle the options gave is in the challenge's purpose: the user's, or a new one for their first passkey.
        var handle: String?
        for candidate in Set([existing.first?.userHandle].compactMap { $0 } + [json["userHandle"]?.stringValue ?? ""]) where !candidate.isEmpty {
            if try await store.takeChallenge(hash: APIToken.hash(challenge), purpose: "register:" + candidate, user: user, now: Date()) {
                handle = candidate
                break
            }
        }
        let credential: WebAuthn.NewCredential
        do {
            credential = try party.register(clientDataJSON: clientDataJSON, attestationObject: try Self.bytes(json, "attestationObject"),
                                            rawID: try Self.bytes(json, "rawId"))
        } catch let failure as WebAuthn.Failure {
            logger.notice("Passkey refused", metadata: ["user": "\(user)", "reason": "\(failure.description)"])
            throw Problem(.badRequest, "the passkey was not added: \(failure.description)")
        }
        guard let handle else { throw Problem(.badRequest, "the passkey was not added: its challenge is unknown, expired or used already: try again") }
        let name = (json["name"]?.stringValue ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        try await store.addPasskey(Passkey(id: Base64URL.encode(credential.id), user: user, userHandle: handle,
                                           name: name.isEmpty ? "Passkey" : String(name.prefix(64)), publicKey: credential.publicKey,
                                           algorithm: credential.algorithm, signCount: credential.signCount, createdAt: Date()))
        logger.info("Passkey added", metadata: ["user": "\(user)", "algorithm": "\(credential.algorithm)"])
        return Self.json(.object([("location", .string("/account?done=passkey-added"))]), status: .created)
    }

    // MARK: Invitations from the page

    private func inviteFromPage(_ request: Request, _ page: PageContext, _ form: [String: String]) async throws -> Response {
        guard page.principal.isAdmin else { throw Problem(.forbidden, "only an administrator invites people") }
        let user = form["user"] ?? ""
        guard !user.isEmpty else { return try await accountPage(page, error: "Choose whom to invite.", status: .badRequest) }
        let lifetime = DurationText.seconds(form["expires"] ?? "") ?? configuration.signIn.invitationLifetime
        guard lifetime <= 30 * 86400 else { return try await accountPage(page, error: "An invitation lasts at most 30 days.", status: .badRequest) }
        // The link's base: --public-url, else the address this browser used.
        var base = configuration.signIn.publicURL
        if base == nil, let host = request.head.authority {
            base = URL(string: "\(configuration.tls == nil ? "http" : "https")://\(host)")
        }
        guard let base else { throw Problem(.conflict, "the server's address is unknown: start it with --public-url URL") }
        let (invitation, secret) = try await makeInvitation(for: user, by: page.principal.user, lifetime: lifetime, store: store)
        let link = SignInConfiguration.invitationLink(base: base, secret: secret)
        let code = QRCode(link)?.svg(label: "Invitation for \(user)") ?? ""
        logger.info("Invitation made", metadata: ["user": "\(user)", "invitation": "\(invitation.id)", "by": "\(page.principal.user)"])
        let shown = """
            <div class="invitation" id="invitation" data-user="\(HTML.escape(user))">
              <p><b>\(HTML.escape(user))</b> scans this with a phone's camera, or opens the link, before \(HTML.escape(Self.clock(invitation.expiresAt))). It signs in once.</p>
              <figure class="qr" id="invite-qr">\(code)</figure>
              <p><input id="invite-link" readonly value="\(HTML.escape(link))" aria-label="Invitation link"></p>
            </div>
            """
        var response = try await accountPage(page, invitation: shown, invited: user)
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
