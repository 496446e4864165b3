import Foundation
import Testing
import ReceiptKit
@testable import ReceiptServer
import ReceiptServerStore
@testable import TestHelpers

/// What a token may do: its scopes, its expiry and its rate limit, as the routes enforce them.
/// The parsing and the bucket alone first; then `receipts serve` in process (`LiveServer`).
@Suite struct TokenRulesTests {
    @Test func scopesGrantWhatTheirNamesSay() throws {
        #expect(TokenPermission.allows([.admin], .read) && TokenPermission.allows([.admin], .upload) && TokenPermission.allows([.admin], .review))
        #expect(TokenPermission.allows([.review], .read) && !TokenPermission.allows([.review], .upload) && !TokenPermission.allows([.review], .admin))
        #expect(!TokenPermission.allows([.upload], .read) && !TokenPermission.allows([.read], .upload) && !TokenPermission.allows([.read, .upload, .review], .admin))
        #expect(try TokenPermission.parse("upload,read") == [.read, .upload])
        #expect(try TokenPermission.parse("review admin") == [.review, .admin])
        #expect(TokenPermission.text([.upload, .read]) == "read,upload")
        #expect(throws: ReceiptError.self) { try TokenPermission.parse("write") }
        #expect(throws: ReceiptError.self) { try TokenPermission.parse(",") }
    }

    @Test func rateLimitsReadAsRequestsPerPeriod() throws {
        #expect(try RateLimit.parse("600/min") == RateLimit(requests: 600, seconds: 60))
        #expect(try RateLimit.parse("10/s") == RateLimit(requests: 10, seconds: 1))
        #expect(try RateLimit.parse("5000/hour") == RateLimit(requests: 5000, seconds: 3600))
        #expect(try RateLimit.parse("100/30s") == RateLimit(requests: 100, seconds: 30))
        #expect(try RateLimit.parse("off").isUnlimited)
        for text in ["600", "600/fortnight", "-1/min", "x/min", "10/0s"] {
            #expect(throws: ReceiptError.self, "\(text)") { try RateLimit.parse(text) }
        }
        for text in ["600/min", "10/s", "5000/hour", "20000/day", "100/30s", "off"] {
            #expect(try RateLimit.parse(text).description == text)
        }
    }

    @Test func expiriesAreDurationsDatesOrTimes() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try APIToken.expiry("90d", now: now) == now.addingTimeInterval(90 * 86400))
        #expect(try APIToken.expiry("12h", now: now) == now.addingTimeInterval(12 * 3600))
        #expect(try APIToken.expiry("2w", now: now) == now.addingTimeInterval(14 * 86400))
        #expect(try APIToken.expiry("30min", now: now) == now.addingTimeInterval(1800))
        // A date: the end of that day, UTC.
        #expect(try APIToken.expiry("2027-01-31", now: now) == ISO8601DateFormatter().date(from: "2027-02-01T00:00:00Z"))
        #expect(try APIToken.expiry("2027-01-31T18:00:00Z", now: now) == ISO8601DateFormatter().date(from: "2027-01-31T18:00:00Z"))
        for text in ["90", "90y", "0d", "2020-01-01", "2027-02-30", "tomorrow"] {
            #expect(throws: ReceiptError.self, "\(text)") { try APIToken.expiry(text, now: now) }
        }
    }

    @Test func theBucketAllowsItsLimitThenSaysHowLongToWait() {
        let limiter = RateLimiter()
        let limit = RateLimit(requests: 3, seconds: 60)
        #expect((0..<3).allSatisfy { _ in limiter.take("a", limit: limit, now: 100) == nil })
        #expect(limiter.take("a", limit: limit, now: 100) == 20, "one request comes back every 20 s")
        #expect(limiter.take("b", limit: limit, now: 100) == nil, "each token has its own bucket")
        #expect(limiter.take("a", limit: limit, now: 119) == 1)
        #expect(limiter.take("a", limit: limit, now: 120) == nil)
        #expect(limiter.take("a", limit: .unlimited, now: 120) == nil)
    }

    @Test func aTokensUseIsWrittenAtMostOnceAMinute() {
        let usage = TokenUsage()
        let start = Date()
        #expect(usage.due("a", now: start))
        #expect(!usage.due("a", now: start.addingTimeInterval(59)))
        #expect(usage.due("b", now: start.addingTimeInterval(59)))
        #expect(usage.due("a", now: start.addingTimeInterval(61)))
    }
}

extension LiveRouteTests {
    @Suite struct TokenRoutesTests {
        static let uuid = "6f9619ff-8b86-d011-b42d-00c04fc964ff"

        /// Each operation of `/openapi.yaml` (method and path) with its `x-required-scope`, or nil.
        static func documentedScopes(_ yaml: String) -> [String: String?] {
            var operations: [String: String?] = [:], path: String?, operation: String?
            for line in yaml.split(separator: "\n", omittingEmptySubsequences: false).drop(while: { $0 != "paths:" }) {
                if line.hasPrefix("  /"), line.hasSuffix(":") {
                    path = String(line.dropFirst(2).dropLast())
                } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                    operation = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased() + " " + path
                    operations[operation!] = .some(nil)
                } else if let operation, line.hasPrefix("      x-required-scope: ") {
                    operations[operation] = String(line.dropFirst("      x-required-scope: ".count))
                }
            }
            return operations
        }

        /// Issue "hardened": for every route of the OpenAPI document, a token lacking the scope it
        /// names gets 403 naming the scope, a token holding just that scope gets past the door
        /// (neither 401 nor 403), and an expired token gets 401 saying so; no answer holds a token.
        @Test func everyRouteEnforcesTheScopeTheDocumentNamesAndExpiry() async throws {
            let dir = try TemporaryDirectory()
            let live = try LiveServer(dir, workers: 1)
            let now = Date()
            var with: [TokenPermission: String] = [:], without: [TokenPermission: String] = [:]
            for scope in TokenPermission.allCases {
                with[scope] = try await live.store.createToken(name: "only-\(scope)", user: Ownership.defaultAdmin, scopes: [scope], expiresAt: now.addingTimeInterval(3600),
                                                               rateLimit: nil, now: now)
                // Every scope that does not grant this one.
                let others = Set(TokenPermission.allCases.filter { !$0.grants.contains(scope) })
                without[scope] = try await live.store.createToken(name: "all-but-\(scope)", user: Ownership.defaultAdmin, scopes: others, expiresAt: nil, rateLimit: nil, now: now)
            }
            let expired = try await live.store.createToken(name: "expired", user: Ownership.defaultAdmin, scopes: [.admin], expiresAt: now.addingTimeInterval(-1),
                                                           rateLimit: nil, now: now.addingTimeInterval(-3600))
            let secrets = Array(with.values) + Array(without.values) + [expired]
            let (holding, lacking) = (with, without)

            try await live.run { server in
                let yaml = String(decoding: try await server.send("GET", "/openapi.yaml").body, as: UTF8.self)
                let documented = Self.documentedScopes(yaml)
                // The document and the server's table say the same, and every /v1 route has a scope.
                #expect(documented.mapValues { $0 } == Dictionary(uniqueKeysWithValues: ReceiptServer.routes.map {
                    ("\($0.method) \($0.path)", $0.scope?.rawValue)
                }))
                var checked = 0
                for (operation, scopeName) in documented.sorted(by: { $0.key < $1.key }) {
                    let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
                    let (method, path) = (parts[0], parts[1].replacingOccurrences(of: "{id}", with: Self.uuid)
                        .replacingOccurrences(of: "{page}", with: "1"))
                    func send(_ token: String?) async throws -> (status: Int, detail: String, body: String) {
                        let answer = try await server.send(method, path, body: method == "POST" || method == "PATCH" ? Data("{}".utf8) : nil,
                                                           headers: ["Content-Type": "application/json"].merging(
                                                               token.map { ["Authorization": "Bearer \($0)"] } ?? [:]) { $1 })
                        let body = String(decoding: answer.body, as: UTF8.self)
                        return (answer.status, (try? JSONValue.parse(answer.body))?["detail"]?.stringValue ?? "", body)
                    }
                    guard let scopeName else {
                        #expect(!path.hasPrefix("/v1/"), "\(operation) names no scope")
                        let open = try await send(nil)
                        #expect(![401, 403].contains(open.status), "\(operation) needs no token: \(open)")
                        continue
                    }
                    let scope = try #require(TokenPermission(rawValue: scopeName), "\(operation): \(scopeName)")
                    let refused = try await send(lacking[scope])
                    #expect(refused.status == 403, "\(operation) without \(scope): \(refused)")
                    #expect(refused.detail.contains("lacks the '\(scope)' scope"), "\(operation): \(refused.detail)")
                    let allowed = try await send(holding[scope])
                    #expect(![401, 403].contains(allowed.status), "\(operation) with \(scope): \(allowed)")
                    let late = try await send(expired)
                    #expect(late.status == 401 && late.detail.contains("expired"), "\(operation) expired: \(late)")
                    let none = try await send(nil)
                    #expect(none.status == 401, "\(operation) without a token: \(none)")
                    for answer in [refused, allowed, late, none] {
                        #expect(!secrets.contains { answer.body.contains($0) } && !answer.body.contains("rcp_"), "\(operation): \(answer.body)")
                    }
                    checked += 1
                }
                #expect(checked == ReceiptServer.routes.filter { $0.path.hasPrefix("/v1/") }.count)
            }
            // Used tokens say when; the expired one was never let through.
            let listed = Dictionary(uniqueKeysWithValues: try await live.store.tokens().map { ($0.name, $0) })
            #expect(listed["only-read"]?.lastUsedAt != nil && listed["all-but-read"]?.lastUsedAt != nil)
            #expect(listed["expired"]?.lastUsedAt == nil)
        }

        /// A token over its rate limit gets 429 with Retry-After and a problem document; its own
        /// limit wins over the server's, `off` has none, and another token is not held back by it.
        @Test func aTokenOverItsRateLimitGets429WithRetryAfter() async throws {
            let dir = try TemporaryDirectory()
            let live = try LiveServer(dir, workers: 1, rateLimit: RateLimit(requests: 4, seconds: 3600))
            let now = Date()
            let tight = try await live.store.createToken(name: "tight", user: Ownership.defaultAdmin, scopes: [.read], expiresAt: nil,
                                                         rateLimit: RateLimit(requests: 2, seconds: 60), now: now)
            let usual = try await live.store.createToken(name: "usual", user: Ownership.defaultAdmin, scopes: [.read], expiresAt: nil, rateLimit: nil, now: now)
            let free = try await live.store.createToken(name: "free", user: Ownership.defaultAdmin, scopes: [.read], expiresAt: nil, rateLimit: .unlimited, now: now)
            try await live.run { server in
                func get(_ token: String) async throws -> (status: Int, headers: [String: String], body: Data) {
                    try await server.send("GET", "/v1/receipts", headers: ["Authorization": "Bearer \(token)"])
                }
                #expect(try await get(tight).status == 200)
                #expect(try await get(tight).status == 200)
                let over = try await get(tight)
                #expect(over.status == 429 && over.headers["content-type"] == "application/problem+json")
                #expect(over.headers["retry-after"] == "30", "2 a minute: one comes back every 30 s (\(over.headers))")
                let detail = try JSONValue.parse(over.body)["detail"]?.stringValue ?? ""
                #expect(detail.contains("'tight'") && detail.contains("2/min") && !detail.contains(tight), "\(detail)")
                for _ in 0..<4 { #expect(try await get(usual).status == 200) }
                #expect(try await get(usual).status == 429, "the server's limit: 4 an hour")
                for _ in 0..<10 { #expect(try await get(free).status == 200) }
                let metrics = String(decoding: try await server.send("GET", "/metrics").body, as: UTF8.self)
                #expect(metrics.contains("http_requests_total{route=\"/v1/receipts\",method=\"GET\",status=\"429\"} 2\n"), "\(metrics)")
                #expect(![tight, usual, free].contains { metrics.contains($0) } && !metrics.contains("rcp_"))
            }
        }

        /// A signed-in person opening the review page of a receipt they may not see (someone
        /// else's, or one that is gone) gets a page of the app saying it is not found, with the way
        /// back to the inbox — not a raw problem document.
        @Test func aReviewPageOfAReceiptOneMayNotSeeIsAPage() async throws {
            let dir = try TemporaryDirectory()
            let live = try LiveServer(dir, workers: 1)
            let now = Date()
            _ = try await live.store.addUser(name: "bob", isAdmin: false, defaultGroup: nil, now: now)
            let bobs = try await live.store.createToken(name: "bob", user: "bob", scopes: [.admin], expiresAt: nil, rateLimit: nil, now: now)
            let admins = try await live.store.insert(Receipt(filePath: "admins.jpg", contentHash: "h"), imagePath: nil, deduplicate: true).receipt
            try await live.run { server in
                let signedIn = try await server.signIn(token: bobs)
                let cookie = try #require(signedIn.headers["set-cookie"]?.split(separator: ";").first.map(String.init), "\(signedIn.headers)")
                for id in [admins.id.uuidString.lowercased(), Self.uuid] {
                    let answer = try await server.send("GET", "/review/\(id)", headers: ["Cookie": cookie])
                    let page = String(decoding: answer.body, as: UTF8.self)
                    #expect(answer.status == 404)
                    #expect(answer.headers["content-type"]?.hasPrefix("text/html") == true, "\(answer.headers)")
                    #expect(page.contains("no receipt with id \(id)") && page.contains("href=\"/\"")
                            && page.contains("id=\"user\""), "\(page)")
                    #expect(!page.contains("admins.jpg"))
                }
            }
        }

        /// The review page's session has its token's scopes: a read-only token views but cannot
        /// confirm; a token that cannot read does not sign in; an expired one neither.
        @Test func aSessionHasItsTokensScopes() async throws {
            let dir = try TemporaryDirectory()
            let live = try LiveServer(dir, workers: 1)
            let now = Date()
            let reader = try await live.store.createToken(name: "viewer", user: Ownership.defaultAdmin, scopes: [.read], expiresAt: nil, rateLimit: nil, now: now)
            let scanner = try await live.store.createToken(name: "scanner", user: Ownership.defaultAdmin, scopes: [.upload], expiresAt: nil, rateLimit: nil, now: now)
            let expired = try await live.store.createToken(name: "old", user: Ownership.defaultAdmin, scopes: [.admin], expiresAt: now.addingTimeInterval(-60),
                                                           rateLimit: nil, now: now.addingTimeInterval(-3600))
            try await live.run { server in
                func signIn(_ token: String) async throws -> (status: Int, headers: [String: String], body: Data) {
                    try await server.signIn(token: token)
                }
                #expect(try await signIn(scanner).status == 403)
                #expect(try await signIn(expired).status == 401)
                let signedIn = try await signIn(reader)
                #expect(signedIn.status == 303, "\(signedIn)")
                let cookie = try #require(signedIn.headers["set-cookie"]?.split(separator: ";").first.map(String.init), "\(signedIn.headers)")
                let page = String(decoding: try await server.send("GET", "/", headers: ["Cookie": cookie]).body, as: UTF8.self)
                let csrf = try #require(page.range(of: #"<meta name="csrf" content="[^"]+""#, options: .regularExpression)
                    .map { String(page[$0].dropFirst(#"<meta name="csrf" content=""#.count).dropLast()) }, "\(page)")
                #expect(try await server.send("GET", "/v1/receipts", headers: ["Cookie": cookie]).status == 200)
                let confirm = try await server.send("PATCH", "/v1/expenses/\(Self.uuid)", body: Data(#"{"status": "confirmed"}"#.utf8),
                                                    headers: ["Cookie": cookie, "X-CSRF-Token": csrf, "Content-Type": "application/json"])
                #expect(confirm.status == 403, "\(confirm)")
                #expect(String(decoding: confirm.body, as: UTF8.self).contains("lacks the 'review' scope"))
            }
        }
    }
}
