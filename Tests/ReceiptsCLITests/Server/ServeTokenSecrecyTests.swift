import Foundation
import Testing
import ReceiptKit
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// A token never appears in a log line, a problem document or the metrics: the real `receipts
/// serve` (debug logging on) is sent requests with a valid token, an unknown one, an expired one,
/// one without the route's scope, one over its rate limit, tokens pasted where a path or a query
/// value goes, and sign-ins; its stderr, every answer and /metrics are searched for each secret.
/// (Scopes, expiry and limits per route: ReceiptServerTests' TokenRoutesTests, in process.)
@Suite(.serialized) struct ServeTokenSecrecyTests {
    typealias Server = ServeCommandTests.Server

    @Test func noTokenAppearsInTheLogAProblemDocumentOrTheMetrics() async throws {
        let dir = try TemporaryDirectory()
        func create(_ arguments: [String]) async throws -> String {
            let created = try await ReceiptsCLI.run(["token", "create", "--store", dir.storePath] + arguments)
            #expect(created.status == 0, "\(created.err)")
            return created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let good = try await create(["--name", "good", "--rate-limit", "6/hour"])
        let reader = try await create(["--name", "reader", "--scope", "read"])
        let revoked = try await create(["--name", "gone"])
        #expect(try await ReceiptsCLI.run(["token", "revoke", "gone", "--store", dir.storePath]).status == 0)
        // An expired token cannot be made with the command (the time would be past): through the store.
        let store = try SQLiteReceiptStore(path: dir.storePath)
        let now = Date()
        let expired = try await store.createToken(name: "expired", user: Ownership.defaultAdmin, scopes: [.admin], expiresAt: now.addingTimeInterval(-60),
                                                  rateLimit: nil, now: now.addingTimeInterval(-3600))
        let unknown = APIToken.newSecret()
        let secrets = [good, reader, revoked, expired, unknown]

        let server = try await Server(store: dir.storePath, arguments: ["-vv"])
        var bodies: [String] = []
        func send(_ method: String, _ path: String, token: String?, body: Data? = nil, headers: [String: String] = [:]) async throws -> Int {
            var fields = headers
            if let token { fields["Authorization"] = "Bearer \(token)" }
            let answer = try await server.send(method, path, body: body, headers: fields)
            bodies.append(String(decoding: answer.body, as: UTF8.self) + "\n" + answer.headers.description)
            return answer.status
        }
        let receipt = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
        #expect(try await send("POST", "/v1/receipts?wait=30", token: good, body: receipt, headers: ["Content-Type": "image/jpeg"]) == 200)
        #expect(try await send("GET", "/v1/receipts", token: good) == 200)
        #expect(try await send("GET", "/v1/receipts", token: unknown) == 401)
        #expect(try await send("GET", "/v1/receipts", token: revoked) == 401)
        #expect(try await send("GET", "/v1/receipts", token: expired) == 401)
        #expect(try await send("GET", "/v1/receipts", token: nil) == 401)
        #expect(try await send("DELETE", "/v1/receipts/6f9619ff-8b86-d011-b42d-00c04fc964ff", token: reader) == 403)
        #expect(try await send("POST", "/v1/analyze", token: reader, body: Data("{}".utf8), headers: ["Content-Type": "application/json"]) == 403)
        // Pasted where it does not belong: a path, a query value, a query name.
        #expect(try await send("GET", "/v1/receipts/\(good)", token: reader) == 404)
        #expect(try await send("GET", "/v1/receipts?after=\(good)", token: reader) == 400)
        #expect(try await send("GET", "/v1/receipts?\(good)=1", token: reader) == 400)
        #expect(try await send("GET", "/\(good)", token: nil) == 404)
        // Sign-ins: good, expired, unknown.
        for secret in [reader, expired, unknown] {
            _ = try await send("POST", "/signin", token: nil, body: Data("token=\(secret)".utf8),
                               headers: ["Content-Type": "application/x-www-form-urlencoded"])
        }
        // Over the limit: 6 an hour; 2 spent above, 4 more, then 429.
        var statuses: [Int] = []
        for _ in 0..<5 { statuses.append(try await send("GET", "/v1/expenses", token: good)) }
        #expect(statuses == [200, 200, 200, 200, 429], "\(statuses)")
        let metrics = try await server.send("GET", "/metrics")
        let metricsText = String(decoding: metrics.body, as: UTF8.self)
        #expect(metricsText.contains("status=\"429\"} 1\n") && metricsText.contains("status=\"403\"} "), "\(metricsText)")
        #expect(try await server.stop())
        let log = server.stderr.text
        #expect(log.contains("Listening") && log.contains("Stopped"), "\(log)")
        let stored = try FileManager.default.contentsOfDirectory(atPath: dir.path("store")).filter { $0.hasPrefix("receipts.sqlite") }
            .map { try String(contentsOfFile: dir.path("store/\($0)"), encoding: .isoLatin1) }.joined()
        for (index, secret) in secrets.enumerated() {
            #expect(!log.contains(secret), "secret \(index) in the log:\n\(log)")
            #expect(!metricsText.contains(secret), "secret \(index) in the metrics")
            for body in bodies { #expect(!body.contains(secret), "secret \(index) in an answer: \(body)") }
            #expect(!stored.contains(secret), "secret \(index) in the store")
        }
        let listed = try await ReceiptsCLI.run(["token", "list", "--store", dir.storePath])
        let goodRow = listed.out.split(separator: "\n").first { $0.hasPrefix("good\t") }.map(String.init) ?? ""
        #expect(goodRow.split(separator: "\t").count == 8 && !goodRow.contains("\tnever\t6/min"), "last used is noted: \(listed.out)")
        #expect(goodRow.hasSuffix("\tadmin"), "a token made without --user is the store's first admin's: \(listed.out)")
    }
}
