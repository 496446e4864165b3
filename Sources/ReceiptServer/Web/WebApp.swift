import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// What makes the review page an app a phone installs (Add to Home Screen): the web app manifest,
/// the icons (`WebIcon`), and a service worker that keeps the page's own files (and a page for when
/// the phone is offline) so the app opens without a connection. The service worker caches nothing
/// else: never a receipt, a record, a page holding a session's CSRF token, or a token. Uploads
/// made offline wait in the page's own queue (IndexedDB, in `WebAssets.javaScript`), not here.
enum WebApp {
    /// The files the service worker keeps: the page's own, the same for every user.
    static let cachedPaths = ["/offline", "/assets/app.css", "/assets/app.js", "/assets/icon.svg", "/manifest.webmanifest"]
        + WebIcon.sizes.map { "/assets/icon-\($0).png" } + ["/assets/icon-512-maskable.png"]

    static let manifest: String = {
        var icons: [String] = [#"{"src": "/assets/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"}"#]
        icons += [192, 512].map { #"{"src": "/assets/icon-\#($0).png", "sizes": "\#($0)x\#($0)", "type": "image/png", "purpose": "any"}"# }
        icons.append(#"{"src": "/assets/icon-512-maskable.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"}"#)
        return """
            {
              "name": "Receipts",
              "short_name": "Receipts",
              "description": "Photograph receipts and confirm what was read from them.",
              "id": "/",
              "start_url": "/",
              "scope": "/",
              "display": "standalone",
              "orientation": "portrait",
              "background_color": "#ffffff",
              "theme_color": "\(WebIcon.blue.hex)",
              "icons": [
                \(icons.joined(separator: ",\n    "))
              ]
            }

            """
    }()

    static let svgIcon = WebIcon.svg()
    /// The PNG icons by path, drawn once when first asked for.
    static let pngIcons: [String: [UInt8]] = {
        var icons: [String: [UInt8]] = [:]
        for size in WebIcon.sizes { icons["/assets/icon-\(size).png"] = WebIcon.png(size: size, maskable: size == 180) }
        icons["/assets/icon-512-maskable.png"] = WebIcon.png(size: 512, maskable: true)
        return icons
    }()

    /// Changes whenever a cached file does: the service worker's cache name, so that a new server
    /// version's files replace the old ones.
    static let version: String = {
        let text = WebAssets.css + WebAssets.javaScript + manifest + svgIcon + offlinePageBody
        return SHA256.hash(data: Data(text.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
    }()

    static let serviceWorker: String = """
        "use strict";
        // The review page's service worker (version \(version)): it keeps the page's own files so the
        // app opens offline, and nothing else. Every other request (receipts, records, pages with a
        // session, uploads) goes to the network untouched; an upload made offline waits in the
        // page's queue (IndexedDB), not here.
        const CACHE = "receipts-\(version)";
        const OWN = \(cachedPaths.map { "\"\($0)\"" }.joined(separator: ", ").wrappedInBrackets);
        self.addEventListener("install", (event) => {
          event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(OWN)).then(() => self.skipWaiting()));
        });
        self.addEventListener("activate", (event) => {
          event.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
            .then(() => self.clients.claim()));
        });
        self.addEventListener("fetch", (event) => {
          const request = event.request, url = new URL(request.url);
          if (request.method !== "GET" || url.origin !== location.origin) return;
          if (request.mode === "navigate") {
            // A page: always from the network (it is the user's); offline, the page that keeps photos for later.
            event.respondWith(fetch(request).catch(() => caches.match("/offline")));
            return;
          }
          if (!OWN.includes(url.pathname) || url.search) return;
          // The newest from the network (and kept), the kept one offline.
          event.respondWith(fetch(request).then((response) => {
            if (response.ok) { const copy = response.clone(); caches.open(CACHE).then((cache) => cache.put(url.pathname, copy)); }
            return response;
          }).catch(() => caches.match(url.pathname)));
        });

        """

    /// The page the service worker shows when a page cannot be loaded: the same for everyone, no
    /// user's data. Photos taken here wait in the queue until a signed-in page sends them.
    static let offlinePageBody = """
        <main class="offline">
          <h1>Offline</h1>
          <p>The server cannot be reached. Photos you take now are kept on this device and sent when it can: open the inbox again then.</p>
          <section id="drop" class="drop">
            <p><label class="button camera" for="camera">Take a photo</label> <label class="button" for="files">Choose files</label></p>
            <input id="camera" type="file" accept="image/*,application/pdf" capture="environment" hidden>
            <input id="files" type="file" multiple accept="image/*,.heic,.heif,.pdf,application/pdf" hidden>
            <p id="waiting" class="waiting" aria-live="polite" hidden></p>
            <ul id="uploads"></ul>
          </section>
          <p><a class="button" href="/">Try again</a></p>
        </main>
        """

    static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

extension String {
    fileprivate var wrappedInBrackets: String { "[" + self + "]" }
}

extension ReceiptServer {
    func addAppRoutes(to router: Router<ReceiptRequestContext>) {
        router.get("/manifest.webmanifest") { _, _ in WebApp.asset(WebApp.manifest, type: "application/manifest+json") }
        router.get("/sw.js") { _, _ in
            var response = WebApp.asset(WebApp.serviceWorker, type: "text/javascript; charset=utf-8")
            response.headers[HTTPField.Name("Service-Worker-Allowed")!] = "/"
            return response
        }
        router.get("/offline") { _, _ in HTML.page(title: "Offline", csrf: nil, active: "", pageName: "offline", body: WebApp.offlinePageBody) }
        router.get("/assets/icon.svg") { _, _ in WebApp.asset(WebApp.svgIcon, type: "image/svg+xml") }
        for path in WebApp.pngIcons.keys.sorted() {
            router.get(RouterPath(path)) { _, _ in
                Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: "no-cache"],
                         body: .init(byteBuffer: ByteBuffer(bytes: WebApp.pngIcons[path] ?? [])))
            }
        }
    }
}
