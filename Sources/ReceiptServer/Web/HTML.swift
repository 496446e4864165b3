import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The frame of every page: one stylesheet and one script of this server (no CDN), the session's
/// CSRF token for the script's changes, and headers that keep other sites from framing or
/// scripting it.
enum HTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("Referrer-Policy")!: "same-origin",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
    ]

    /// Who is signed in, for the header: their name, whether they administer (they see everyone's
    /// receipts), and whether their token may only look.
    struct Who {
        var user: String
        var admin: Bool
        var viewerOnly: Bool
    }

    static func page(title: String, csrf: String?, who: Who? = nil, active: String, status: HTTPResponse.Status = .ok, pageName: String = "",
                     data: [String: String] = [:], body: String) -> Response {
        var data = data
        if let who {
            data["user"] = who.user
            if who.admin { data["admin"] = "true" }
        }
        let attributes = data.sorted { $0.key < $1.key }.map { " data-\($0.key)=\"\(escape($0.value))\"" }.joined()
        // One line on every width: the account (who, their account page, and signing out) is a menu
        // under the user's name.
        let user = who.map { "<span class=\"user\" id=\"user\">\(escape($0.user))\($0.admin ? "<span class=\"role\"> · admin</span>" : "")</span>" } ?? ""
        let nav = csrf.map { csrf in
            """
            <header class="top">
              <a class="brand" href="/">Receipts</a>
              <nav><a href="/"\(active == "inbox" ? " aria-current=\"page\"" : "")>Inbox</a>
                   <a href="/expenses"\(active == "expenses" ? " aria-current=\"page\"" : "")>Expenses</a></nav>
              <details class="account-menu" id="account-menu"><summary title="Account">\(user)</summary>
                <div class="menu"><a id="account-page" href="/account" title="Your account: passkeys, password, devices">Your account</a>
                  <form method="post" action="/signout" class="signout"><input type="hidden" name="csrf" value="\(escape(csrf))"><button type="submit" id="signout">Sign out</button></form></div>
              </details>
            </header>
            """
        } ?? ""
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
            \(csrf.map { "<meta name=\"csrf\" content=\"\(escape($0))\">" } ?? "")
            <title>\(escape(title)) · Receipts</title>
            <meta name="theme-color" content="\(WebIcon.blue.hex)">
            <meta name="mobile-web-app-capable" content="yes">
            <meta name="apple-mobile-web-app-capable" content="yes">
            <meta name="apple-mobile-web-app-title" content="Receipts">
            <link rel="manifest" href="/manifest.webmanifest">
            <link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
            <link rel="apple-touch-icon" href="/assets/icon-180.png">
            <link rel="stylesheet" href="/assets/app.css">
            <script src="/assets/app.js" defer></script>
            </head>
            <body data-page="\(escape(pageName))"\(attributes)>
            \(nav)
            \(body)
            </body>
            </html>

            """
        var headers = securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
