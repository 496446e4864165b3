import Foundation
import HTTPTypes
import Hummingbird
import ReceiptServerStore

/// How a browser proves who it is: the session cookie, and for every change the session's CSRF
/// token (a header, or a form field) from a page of this server's own origin. Before a session
/// exists, the sign-in forms carry a CSRF token of their own (`signInCookie`).
enum WebAuth {
    static let cookieName = "receipts_session"
    /// The sign-in pages' CSRF token: a random value in this cookie and in the page's form; a
    /// sign-in POST (a password, a token, a passkey, an invitation) must carry both, equal.
    static let signInCookie = "receipts_signin"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    static let fetchSite = HTTPField.Name("Sec-Fetch-Site")!

    /// The browser's live session, or nil. A session whose token was revoked or has expired ends here.
    static func session(_ request: Request, sessions: WebSessions) async throws -> WebSessions.SignedIn? {
        guard let secret = request.cookies[cookieName]?.value, !secret.isEmpty else { return nil }
        return try await sessions.session(secret: secret)
    }

    /// A request from another site's page is refused: its `Origin` must be this server's (a
    /// browser sends it with every change), and `Sec-Fetch-Site` must not say cross-site.
    static func checkOrigin(_ request: Request) throws {
        if let origin = request.headers[.origin] {
            let host = request.head.authority ?? ""
            guard !host.isEmpty, origin == "http://\(host)" || origin == "https://\(host)" else {
                throw Problem(.forbidden, "cross-site request refused: Origin \(origin) is not this server's")
            }
        }
        if let site = request.headers[fetchSite], site == "cross-site" {
            throw Problem(.forbidden, "cross-site request refused (Sec-Fetch-Site: cross-site)")
        }
    }

    /// A change (any method but GET, HEAD and OPTIONS) needs this origin and the session's CSRF token.
    static func checkChange(_ request: Request, csrf: String, given: String?) throws {
        guard ![.get, .head, .options].contains(request.method) else { return }
        try checkOrigin(request)
        guard let given, WebSessions.same(given, csrf) else {
            throw Problem(.forbidden, "the CSRF token is missing or wrong: reload the page and try again")
        }
    }

    /// A sign-in POST: this origin, and the sign-in page's CSRF token (`given`, from the form or
    /// the header) equal to its cookie's.
    static func checkSignIn(_ request: Request, given: String?) throws {
        try checkOrigin(request)
        guard let cookie = request.cookies[signInCookie]?.value, !cookie.isEmpty, let given, WebSessions.same(given, cookie) else {
            throw Problem(.forbidden, "the sign-in form's CSRF token is missing or wrong: reload the page and try again")
        }
    }

    /// The fields of an `application/x-www-form-urlencoded` body.
    static func form(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let name = parts.first { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }
}
