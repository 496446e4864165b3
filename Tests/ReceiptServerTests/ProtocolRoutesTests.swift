import Foundation
import Testing
import ReceiptKit
@testable import ReceiptServer
@testable import TestHelpers

extension LiveRouteTests {
    /// What every route shares: problem documents with the right status, 405 with Allow, the OpenAPI
    /// document, metrics, Bearer tokens, record times. `receipts serve` in process (`LiveServer`):
    /// real SQLite store, real OCR. Were end-to-end tests of the binary (ServeCommandTests, ServeDoorsTests).
    @Suite struct ProtocolRoutesTests {
        @Test func errorsAreProblemDocumentsWithTheRightStatus() async throws {
            let dir = try TemporaryDirectory()
            let small = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("bad/text.jpg")))
            let big = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-supermarket.jpg")))
            let bomb = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("bad/huge.png")))
            let cases: [(String, String, Data?, [String: String], Int, String)] = [
                ("POST", "/v1/receipts", small, ["Content-Type": "image/jpeg"], 415, "unrecognised format"),
                ("POST", "/v1/receipts", bomb, ["Content-Type": "image/png"], 422, "50000×50000 pixels"),
                ("POST", "/v1/receipts", big, ["Content-Type": "image/jpeg"], 413, "larger than 0.05 MB"),
                ("POST", "/v1/receipts", Data("--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc".utf8),
                 ["Content-Type": "multipart/form-data; boundary=b"], 400, "truncated or malformed"),
                ("POST", "/v1/receipts", Data(), ["Content-Type": "image/jpeg"], 400, "empty"),
                ("GET", "/v1/receipts/6f9619ff-8b86-d011-b42d-00c04fc964ff", nil, [:], 404, "no receipt with id"),
                ("GET", "/v1/receipts/not-an-id", nil, [:], 404, "no receipt with id"),
                ("GET", "/v1/receipts?status=done", nil, [:], 400, "status must be one of"),
                ("GET", "/v1/receipts?limit=0", nil, [:], 400, "limit must be"),
                ("POST", "/v1/analyze", Data("{not json".utf8), ["Content-Type": "application/json"], 400, "not JSON"),
                ("POST", "/v1/analyze", Data(#"{"image": "@@@"}"#.utf8), ["Content-Type": "application/json"], 400, "not base64"),
                ("GET", "/v2/nothing", nil, [:], 404, "no such route"),
            ]
            try await LiveServer(dir, maxUploadMB: 0.05).run { server in
                for (method, path, body, headers, status, detail) in cases {
                    let answer = try await server.send(method, path, body: body, headers: headers)
                    let document = try JSONValue.parse(answer.body)
                    #expect(answer.status == status, "\(method) \(path)")
                    #expect(answer.headers["content-type"] == "application/problem+json", "\(method) \(path)")
                    #expect(document["status"]?.doubleValue == Double(status) && document["title"]?.stringValue?.isEmpty == false)
                    #expect(document["detail"]?.stringValue?.contains(detail) == true, "\(method) \(path): \(document)")
                }
            }
        }

        /// Issue 29, item 18 (HTTP) and the record's times: 405 with Allow for a method a path does not
        /// serve, OPTIONS answered with Allow, HEAD refused the same way; records carry attempts and times.
        @Test func methodsAPathDoesNotServeGet405WithAllow() async throws {
            let dir = try TemporaryDirectory()
            try await LiveServer(dir).run { server in
                for (method, path, allow) in [("TRACE", "/healthz", "GET, OPTIONS"), ("PUT", "/v1/receipts", "POST, GET, OPTIONS"),
                                              ("HEAD", "/v1/expenses", "GET, OPTIONS"),
                                              ("POST", "/v1/receipts/6f9619ff-8b86-d011-b42d-00c04fc964ff", "GET, DELETE, OPTIONS"),
                                              ("DELETE", "/v1/expenses/export.csv", "GET, OPTIONS")] {
                    let answer = try await server.send(method, path)
                    #expect(answer.status == 405, "\(method) \(path)")
                    #expect(answer.headers["allow"] == allow, "\(method) \(path): \(answer.headers)")
                }
                let options = try await server.send("OPTIONS", "/v1/expenses/6f9619ff-8b86-d011-b42d-00c04fc964ff")
                #expect(options.status == 204 && options.headers["allow"] == "GET, PATCH, OPTIONS")
                #expect(try await server.send("TRACE", "/v2/nothing").status == 404)
                let (_, record) = try await server.upload("uk-parking.jpg", wait: 60)
                #expect(record["attempts"] == .number("1") && record["lastError"] == .null, "\(record)")
                #expect(record["createdAt"]?.stringValue?.hasSuffix("Z") == true && record["updatedAt"]?.stringValue != nil)
            }
        }

        @Test func theOpenAPIDocumentDescribesEveryRoute() async throws {
            let dir = try TemporaryDirectory()
            try await LiveServer(dir).run { server in
                let answer = try await server.send("GET", "/openapi.yaml")
                #expect(answer.status == 200 && answer.headers["content-type"] == "application/yaml")
                let yaml = String(decoding: answer.body, as: UTF8.self)
                #expect(yaml.hasPrefix("openapi: 3.1.0"))
                #expect(yaml == (try String(contentsOf: OpenAPIFileTests.path, encoding: .utf8)), "the served document is the file")
                // Paths are the lines "  /path:" under "paths:", their methods the lines "    get:" below them.
                var documented: Set<String> = [], path: String?
                for line in yaml.split(separator: "\n", omittingEmptySubsequences: false).drop(while: { $0 != "paths:" }) {
                    if line.hasPrefix("  /"), line.hasSuffix(":") { path = String(line.dropFirst(2).dropLast()) }
                    else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                        documented.insert(line.trimmingCharacters(in: .whitespaces).dropLast().uppercased() + " " + path)
                    }
                }
                let served = Set(ReceiptServer.routes.map { "\($0.method) \($0.path)" })
                #expect(documented == served)
                // And every one of them is routed (a made-up id gives "no receipt", never "no such route").
                for route in ReceiptServer.routes {
                    let path = route.path.replacingOccurrences(of: "{id}", with: "6f9619ff-8b86-d011-b42d-00c04fc964ff")
                        .replacingOccurrences(of: "{page}", with: "1")
                    let answer = try await server.send(route.method, path, body: route.method == "POST" ? Data("{}".utf8) : nil,
                                                       headers: ["Content-Type": "application/json"])
                    #expect(![405, 500].contains(answer.status), "\(route)")
                    #expect(!String(decoding: answer.body, as: UTF8.self).contains("no such route"), "\(route)")
                }
            }
        }

        @Test func metricsCountReceiptsAndRequests() async throws {
            let dir = try TemporaryDirectory()
            try await LiveServer(dir).run { server in
                _ = try await server.upload("uk-parking.jpg", wait: 30)
                _ = try await server.send("GET", "/v1/receipts/6f9619ff-8b86-d011-b42d-00c04fc964ff")
                let answer = try await server.send("GET", "/metrics")
                let text = String(decoding: answer.body, as: UTF8.self)
                #expect(answer.status == 200 && answer.headers["content-type"]?.hasPrefix("text/plain") == true)
                #expect(MetricsText.value("receipts{status=\"completed\"}", in: text) == 1, "\(text)")
                #expect(MetricsText.value("receipts_queue_depth", in: text) == 0)
                #expect(text.contains("http_requests_total{route=\"/v1/receipts\",method=\"POST\",status=\"200\"} 1\n"), "\(text)")
                #expect(text.contains(",method=\"GET\",status=\"404\"} 1\n"), "\(text)")
                #expect(text.contains("http_request_duration_seconds_count{route=\"/v1/receipts\",method=\"POST\"} 1\n"))
                #expect(text.contains("receipts_processed_total{status=\"completed\"} 1\n"), "\(text)")
                #expect(text.contains("receipt_stage_duration_seconds_count{stage=\"ocr\"} 1\n"))
                #expect(text.contains("receipt_stage_duration_seconds_count{stage=\"analysis\"} 1\n"))
            }
        }

        /// Tokens are made here through the store, as `receipts token create|revoke` makes them (the
        /// commands themselves: ReceiptsCLITests' TokenCommandTests).
        @Test func onceATokenExistsEveryV1RouteNeedsIt() async throws {
            let dir = try TemporaryDirectory()
            let live = try LiveServer(dir)
            let token = try await live.store.createToken(name: "bookkeeping-app", now: Date())
            #expect(token.hasPrefix("rcp_") && token.count > 40)
            let files = try FileManager.default.contentsOfDirectory(atPath: dir.path("store")).filter { $0.hasPrefix("receipts.sqlite") }
            for file in files {
                let stored = try String(contentsOfFile: dir.path("store/\(file)"), encoding: .isoLatin1)
                #expect(!stored.contains(token), "only the token's hash is stored (\(file))")
            }
            _ = try await live.store.createToken(name: "old", now: Date())
            let revokedToken = try await live.store.createToken(name: "older", now: Date())
            _ = try await live.store.revokeToken(name: "older", now: Date())

            try await live.run { server in
                for (headers, status) in [([String: String](), 401), (["Authorization": "Bearer rcp_wrong"], 401),
                                          (["Authorization": "Bearer \(revokedToken)"], 401), (["Authorization": "Bearer \(token)"], 200)] {
                    let answer = try await server.send("GET", "/v1/receipts", headers: headers)
                    #expect(answer.status == status, "\(headers)")
                    if status == 401 {
                        #expect(answer.headers["www-authenticate"] == "Bearer")
                        #expect(!String(decoding: answer.body, as: UTF8.self).contains("rcp_"), "no token in an error")
                    }
                }
                #expect(try await server.send("GET", "/healthz").status == 200, "health needs no token")
                // Ready once the OCR engine has loaded its model (it may still be loading when the router answers).
                #expect(try await LiveServer.until(timeout: 30) { try await server.send("GET", "/readyz").status == 200 })
            }
        }
    }
}
