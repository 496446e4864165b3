import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptKit
import ReceiptServerStore

/// The review pages (`docs/review-ui.md`): sign-in, the inbox, one receipt's review and the
/// expenses. Plain HTML from here, a little CSS and JavaScript from `WebAssets`; the pages read
/// and change receipts through the `/v1` API with the session cookie, so a correction made on the
/// page is the one `PATCH /v1/expenses/{id}` makes.
extension ReceiptServer {
    func addWebRoutes(to router: Router<ReceiptRequestContext>) {
        addSignInRoutes(to: router)
        router.get("/") { request, _ in
            _ = try QueryParameters(request, allowed: [])
            return try await self.signedIn(request) { page in try await self.inboxPage(page) }
        }
        router.get("/review/:id") { request, context in
            _ = try QueryParameters(request, allowed: [])
            let id = try self.id(context)
            return try await self.signedIn(request) { page in try await self.reviewPage(id: id, page) }
        }
        router.get("/expenses") { request, _ in
            try await self.signedIn(request) { page in try await self.expensesPage(request, page) }
        }
        router.get("/receipts/:id/view") { request, context in
            _ = try QueryParameters(request, allowed: [])
            let id = try self.id(context)
            return try await self.signedIn(request) { page in try await self.viewableImage(id, page.principal) }
        }
        router.get("/assets/app.js") { _, _ in WebAssets.response(WebAssets.javaScript, type: "text/javascript; charset=utf-8") }
        router.get("/assets/app.css") { _, _ in WebAssets.response(WebAssets.css, type: "text/css; charset=utf-8") }
        addAppRoutes(to: router)
    }

    /// Who a page is for: the signed-in user (and what they may see) and the session's CSRF token.
    struct PageContext {
        var principal: Principal
        /// The API token of a token's session (nil: a person signed in).
        var token: APIToken?
        var csrf: String
        var session: WebSession? = nil

        /// The user's name and role for the page's header.
        var who: HTML.Who {
            HTML.Who(user: principal.user, admin: principal.isAdmin,
                     viewerOnly: token.map { !TokenPermission.allows($0.scopes, .review) } ?? false)
        }
    }

    /// The page for a signed-in browser whose token may read (403 otherwise), or a redirect to the
    /// sign-in page. The page shows what the token's user may see.
    func signedIn(_ request: Request, _ page: (PageContext) async throws -> Response) async throws -> Response {
        guard let signedIn = try await WebAuth.session(request, sessions: sessions) else {
            var response = Response(status: .seeOther, headers: [.location: "/signin"])
            // A session that ended (signed out elsewhere, revoked): the browser forgets its cookie.
            if request.cookies[WebAuth.cookieName] != nil { response.setCookie(sessionCookie("")) }
            return response
        }
        let principal: Principal
        if let token = signedIn.token {
            try await gate.authorize(token, for: .read, route: "the review pages")
            principal = try await Principal.resolve(token: token, externalUser: nil, store: store)
        } else {
            principal = try await gate.authorize(person: signedIn.session.user, route: "the review pages", externalUser: nil)
        }
        var response = try await page(PageContext(principal: principal, token: signedIn.token, csrf: signedIn.csrf, session: signedIn.session))
        response.headers[.cacheControl] = response.headers[.cacheControl] ?? "no-store"
        // The cookie's life starts again with each page, as the session's does.
        if let secret = request.cookies[WebAuth.cookieName]?.value, response.headers[.setCookie] == nil,
           response.headers[.contentType]?.hasPrefix("text/html") == true {
            response.setCookie(sessionCookie(secret))
        }
        return response
    }

    // MARK: Pages

    private func inboxPage(_ page: PageContext) async throws -> Response {
        let measure = try await CorrectionMeasure.measure(pipeline.scoped(to: page.principal).records)
        var panel = "<p>Confirm receipts to see how often each drafted field was right on your own receipts.</p>"
        if measure.confirmed > 0 {
            panel = "<p>\(measure.confirmed) confirmed: the drafted value was kept</p><table class=\"kept\">"
                + measure.kept.map { label, count in
                    let share = Int((100 * (measure.share(count) ?? 0)).rounded())
                    return "<tr><th>\(HTML.escape(label))</th><td>\(count)/\(measure.confirmed)</td><td><meter min=\"0\" max=\"100\" value=\"\(share)\"></meter> \(share)%</td></tr>"
                }.joined() + "</table>"
        }
        let owners = page.principal.isAdmin
            ? "<label class=\"owner-filter\">Owner <select id=\"owner-filter\"><option value=\"\">everyone</option>"
                + (try await store.users()).map { "<option>\(HTML.escape($0.name))</option>" }.joined() + "</select></label>"
            : ""
        return HTML.page(title: "Inbox", csrf: page.csrf, who: page.who, active: "inbox", pageName: "inbox", body: """
            <main class="inbox">
              <section id="counts" class="counts" aria-live="polite"></section>
              <section id="drop" class="drop" tabindex="0">
                <p><label class="button camera" for="camera">Take a photo</label>
                   <span class="drop-text">Drop receipts here (photos, HEIC, PDF) or </span><label class="button" for="files">Choose files</label></p>
                <input id="camera" type="file" accept="image/*,application/pdf" capture="environment" hidden>
                <input id="files" type="file" multiple accept="image/*,.heic,.heif,.pdf,application/pdf" hidden>
                <input id="more" type="file" accept="image/*" capture="environment" hidden>
                <p id="waiting" class="waiting" aria-live="polite" hidden></p>
                <ul id="uploads"></ul>
              </section>
              \(owners)
              <section id="receipts" class="receipts" aria-live="polite"><p>Loading…</p></section>
              <aside class="panel" id="measure"><h2>What you corrected</h2>\(panel)</aside>
            </main>
            """)
    }

    private func reviewPage(id: UUID, _ page: PageContext) async throws -> Response {
        let principal = page.principal
        guard let receipt = try await pipeline.scoped(to: principal).receipt(id: id) else { return notFoundPage(id, page) }
        let readOnly = !principal.mayChange(receipt) || page.who.viewerOnly
        let categories = taxonomy.names.map { "<option>\(HTML.escape($0))</option>" }.joined()
        let key = id.uuidString.lowercased()
        var data = ["id": key]
        if readOnly { data["read-only"] = "true" }
        var picture = "/receipts/\(key)/view", pageTools = ""
        // A long receipt photographed in several pictures: all of them, one under another.
        let pictures = try await pipeline.scoped(to: principal).pictures(ofReceipt: id)
        var morePictures = ""
        if pictures.count > 1 {
            data["pictures"] = String(pictures.count)
            picture = "/v1/receipts/\(key)/pages/1"
            morePictures = pictures.dropFirst().map { p in
                """
                <div class="frame" data-picture="\(p.position)"><img class="picture" alt="Picture \(p.position) of the receipt" \
                src="/v1/receipts/\(key)/pages/\(p.position)"><div class="boxes"></div></div>
                """
            }.joined(separator: "\n")
        // A PDF is shown a page at a time; the page sizes (in points) place OCR's word boxes,
        // which are in the pages stacked one below the other, on the page shown.
        } else if let pages = await pdfPageSizes(id, for: pipeline.scoped(to: principal)), !pages.isEmpty {
            data["pages"] = String(pages.count)
            data["page-sizes"] = pages.map { "\($0.width)x\($0.height)" }.joined(separator: ",")
            picture = "/v1/receipts/\(key)/pages/1"
            pageTools = """
                  <span class="pages" id="pages"><button type="button" id="page-prev" title="Previous page ([)" disabled>‹</button>\
                  <span id="page-number">Page 1 of \(pages.count)</span>\
                  <button type="button" id="page-next" title="Next page (])"\(pages.count > 1 ? "" : " disabled")>›</button></span>
                """
        }
        // The rest of a long receipt, photographed now: not on a PDF, nor for someone who may only look.
        let addMore = readOnly || data["pages"] != nil ? "" : """
            <p class="more"><label class="button secondary" for="more" id="add-more">Add the rest of this receipt</label></p>
            <input id="more" type="file" accept="image/*" capture="environment" hidden>
            """
        // Pictures of different receipts sent as one: offered apart when the analysis flags them
        // (the script shows it), for someone who may change the receipt.
        let split = readOnly || pictures.count < 2 ? "" : """
            <div id="split" class="split" hidden>
              <p class="hint" id="split-why"></p>
              <button type="button" id="split-button" class="secondary">Split into \(pictures.count) receipts</button>
            </div>
            """
        let owner = receipt.ownership.owner == principal.user ? ""
            : "<p class=\"owner\" id=\"owner\">\(HTML.escape(receipt.ownership.owner))'s receipt"
                + (receipt.ownership.group.map { " · shared with \(HTML.escape($0))" } ?? "")
                + (readOnly ? " · you may view it, not change it" : "") + "</p>"
        return HTML.page(title: "Review", csrf: page.csrf, who: page.who, active: "inbox", pageName: "review", data: data, body: """
            <main class="review">
              <section class="viewer">
                <div class="tools">
                  <button type="button" id="zoom-out" title="Zoom out (-)">−</button>
                  <button type="button" id="zoom-in" title="Zoom in (+)">+</button>
                  <button type="button" id="rotate" title="Rotate (r)">⟳</button>
                  \(pageTools)
                </div>
                <div class="stage" id="stage"><div class="sheet" id="sheet">
                  <div class="frame" data-picture="1"><img id="image" alt="The receipt" src="\(picture)"><div id="boxes" class="boxes"></div></div>
                  \(morePictures)
                </div></div>
                \(addMore)
              </section>
              <section class="fields">
                <p class="position" id="position"></p>
                <h1 id="file"></h1>
                \(owner)
                <p id="status" class="status" aria-live="polite"></p>
                <form id="fields" autocomplete="off" hidden>
                  <datalist id="categories">\(categories)</datalist>
                  <select id="category-options" hidden>\(categories)</select>
                </form>
                \(split)
                <div id="failed" hidden>
                  <p class="error" id="error-line"></p>
                  <button type="button" id="retry">Retry</button>
                </div>
                <p class="hint keys">Enter confirms and opens the next receipt to review · Tab moves between fields · Esc then <kbd>j</kbd>/<kbd>k</kbd> next/previous · <kbd>?</kbd> keys</p>
              </section>
              <nav class="actions" id="actions" aria-label="Receipt">
                <button type="button" id="previous" class="secondary" title="Previous receipt (k)">‹</button>
                <button type="button" id="confirm" title="Confirm and open the next receipt to review (Enter)">Confirm</button>
                <button type="button" id="next" class="secondary" title="Next receipt (j)">Next ›</button>
              </nav>
              <div id="help" class="help" hidden role="dialog" aria-label="Keys">
                <h2>Keys</h2>
                <dl>
                  <dt>Enter</dt><dd>confirm this receipt (with your corrections) and open the next one to review</dd>
                  <dt>Tab / Shift+Tab</dt><dd>next / previous field; focusing a field shows on the image the words it was read from</dd>
                  <dt>typing</dt><dd>corrects the focused field</dd>
                  <dt>Esc</dt><dd>leave the field (then the keys below work)</dd>
                  <dt>j / k</dt><dd>next / previous receipt</dd>
                  <dt>+ / − / r</dt><dd>zoom in / out, rotate the image</dd>
                  <dt>[ / ]</dt><dd>previous / next page of a PDF</dd>
                  <dt>?</dt><dd>this list (Esc closes it)</dd>
                </dl>
              </div>
            </main>
            """)
    }

    /// A receipt the signed-in person may not see (or that is gone), as a page of the app: 404,
    /// saying so the way the API does (whether it exists is not said), with the way back.
    private func notFoundPage(_ id: UUID, _ page: PageContext) -> Response {
        HTML.page(title: "Not found", csrf: page.csrf, who: page.who, active: "inbox", status: .notFound, pageName: "not-found", body: """
            <main class="not-found">
              <h1>Not found</h1>
              <p id="not-found">\(HTML.escape(Self.unknown(id).detail)): it was deleted, or it is not one you may see.</p>
              <p><a class="button" href="/">Back to the inbox</a></p>
            </main>
            """)
    }

    private func expensesPage(_ request: Request, _ page: PageContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["from", "to", "category", "status", "after"])
        var filter = ExpenseQuery(from: try query.date("from"), to: try query.date("to"))
        if let category = query["category"], !category.isEmpty { filter.category = category }
        if let status = query["status"], !status.isEmpty {
            guard let parsed = ExpenseStatus(rawValue: status) else { throw Problem(.badRequest, "status must be draft or confirmed (got '\(status)')") }
            filter.status = parsed
        }
        // The totals and charts: summed by the store over every expense that matches. The table:
        // a page of them, the next by its link.
        let summary = ExpenseSummary(try await pipeline.scoped(to: page.principal).records.expenseTotals(filter))
        var listed = filter
        listed.after = try query.id("after")
        listed.limit = Self.expensesPerPage + 1
        let found = try await pipeline.scoped(to: page.principal).expenses(listed)
        let expenses = Array(found.prefix(Self.expensesPerPage))
        var exportQuery: [String] = []
        for name in ["from", "to", "category", "status"] {
            if let value = query[name], !value.isEmpty {
                exportQuery.append("\(name)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
            }
        }
        let csvLink = "/v1/expenses/export.csv" + (exportQuery.isEmpty ? "" : "?" + exportQuery.joined(separator: "&"))
        let nextLink = found.count > expenses.count ? expenses.last.map { last in
            "<p class=\"more\"><a class=\"button\" id=\"next-page\" href=\"/expenses?"
                + HTML.escape((exportQuery + ["after=\(last.id.uuidString.lowercased())"]).joined(separator: "&")) + "\">Next \(Self.expensesPerPage) ›</a></p>"
        } ?? "" : ""
        func selected(_ name: String, _ value: String) -> String { query[name] == value ? " selected" : "" }
        let categoryOptions = "<option value=\"\">All</option>" + taxonomy.names.map {
            "<option\(selected("category", $0))>\(HTML.escape($0))</option>"
        }.joined()
        let rows = expenses.map { e in
            """
            <tr><td>\(e.date?.description ?? "—")</td><td><a href="/review/\(e.receiptId.uuidString.lowercased())">\(HTML.escape(e.description))</a></td>\
            <td>\(HTML.escape(e.category))</td><td class="num">\(e.amount.map { Money.format($0, currency: e.currency) } ?? "—")</td>\
            <td class="currency">\(e.currency ?? "")</td><td>\(e.status.rawValue)\(e.needsReview ? " · review" : "")</td></tr>
            """
        }.joined(separator: "\n")
        return HTML.page(title: "Expenses", csrf: page.csrf, who: page.who, active: "expenses", pageName: "expenses", body: """
            <main class="expenses">
              <form class="filters" method="get" action="/expenses">
                <label>From <input type="date" name="from" value="\(HTML.escape(query["from"] ?? ""))"></label>
                <label>To <input type="date" name="to" value="\(HTML.escape(query["to"] ?? ""))"></label>
                <label>Category <select name="category">\(categoryOptions)</select></label>
                <label>Status <select name="status"><option value="">All</option><option\(selected("status", "draft"))>draft</option><option\(selected("status", "confirmed"))>confirmed</option></select></label>
                <button type="submit">Filter</button>
                <a class="button" id="csv" href="\(HTML.escape(csvLink))" download="expenses.csv">Download CSV</a>
              </form>
              \(summary.html)
              <table class="list" id="expense-list"><thead><tr><th>Date</th><th>Vendor</th><th>Category</th><th class="num">Amount</th><th class="currency">Currency</th><th>Status</th></tr></thead>
              <tbody>\(rows.isEmpty ? "<tr><td colspan=\"6\">No expenses match.</td></tr>" : rows)</tbody></table>
              \(nextLink)
            </main>
            """)
    }

    /// Expenses listed on one page of `/expenses` (the totals count them all).
    static let expensesPerPage = 200

    /// The sizes of a stored PDF's pages, or nil for an image (or a PDF that cannot be read).
    private func pdfPageSizes(_ id: UUID, for mine: ScopedPipeline) async -> [PDFPageSize]? {
        guard let engine = processor.ocrEngine,
              let data = try? await mine.image(ofReceipt: id), ImageFormat.sniff(data) == .pdf else { return nil }
        return try? await engine.pdfPageSizes(data, file: "receipt \(id.uuidString.lowercased())")
    }

    /// The receipt's image as a browser shows it: JPEG, PNG, GIF, WebP and BMP as stored; HEIC,
    /// AVIF, TIFF and PDF made into a JPEG (upright, at most 2400 pixels on its long side) on an
    /// OCR thread.
    private func viewableImage(_ id: UUID, _ principal: Principal) async throws -> Response {
        guard try await pipeline.scoped(to: principal).receipt(id: id) != nil else { throw Self.unknown(id) }
        guard let data = try await pipeline.scoped(to: principal).image(ofReceipt: id) else {
            throw Problem(.notFound, "the image of receipt \(id.uuidString.lowercased()) is no longer stored")
        }
        // An e-mail's body read as rows is shown as those rows (ReceiptServer+Email.swift).
        if let eReceipt = Self.eReceiptPicture(data) { return eReceipt }
        let format = ImageFormat.sniff(data)
        var headers: HTTPFields = [.cacheControl: "private, max-age=86400"]
        if let format, ["image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp"].contains(format.mimeType) {
            headers[.contentType] = format.mimeType
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        guard let engine = processor.ocrEngine else { throw Problem(.notFound, "this server has no image decoder to show the receipt") }
        let shown = try await engine.imagePreparer(ImagePreparationRequest(image: data, mimeType: format?.mimeType, maxBytes: 8 << 20,
                                                                             maxDimension: 2400, acceptedMimeTypes: ["image/jpeg"]))
        headers[.contentType] = shown.mimeType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: shown.data)))
    }
}
