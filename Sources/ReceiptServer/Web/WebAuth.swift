import Foundation
import HTTPTypes
import Hummingbird
import ReceiptServerStore

/// How a browser proves who it is: the session cookie, and for every change the session's CSRF
/// token (a header, or a form field) from a page of this server's own origin.
enum WebAuth {
    static let cookieName = "receipts_session"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    static let fetchSite = HTTPField.Name("Sec-Fetch-Site")!

    /// The browser's live session and its token, or nil. A session whose token was revoked or has
    /// expired ends here.
    static func session(_ request: Request, sessions: WebSessions, store: any ServerStore,
                        now: Date = Date()) async throws -> (session: WebSessions.Session, token: APIToken)? {
        guard let id = request.cookies[cookieName]?.value, !id.isEmpty, let session = sessions.session(id: id) else { return nil }
        guard let token = try await store.token(secret: session.secret), !token.isExpired(at: now) else {
            sessions.end(id: id)
            return nil
        }
        return (session, token)
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
