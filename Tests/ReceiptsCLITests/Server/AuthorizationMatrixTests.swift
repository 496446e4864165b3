import Foundation
import Testing
@testable import ReceiptKit
import ReceiptPostgres
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// Who may do what to whose receipts (OWASP API1, broken object-level authorization), route by
/// route, against a real `receipts serve` on each store: SQLite, and PostgreSQL where it can run.
///
/// The cast: alice owns the receipts and shares them with her household `home`, where carol is a
/// viewer and dave an editor; bob is another user; `admin` administers; `svc` is a backend's
/// service user whose token has `act-as`, sent with and without `Receipts-External-User: u-42`.
/// Every operation of the served OpenAPI document must have a row here: one added without a row
/// fails `everyRouteOfTheDocumentHasARow`.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: ReceiptsCLI.binary.path)))
struct AuthorizationMatrixTests {
    enum Role: String, CaseIterable, Sendable {
        case owner, viewer, editor, other, admin, service, endUser = "service for u-42"
    }

    /// What each role gets. `list` rows answer 200 to everyone; `sees` says who finds alice's
    /// receipt in them (by id).
    struct Row: Sendable {
        var expected: [Role: Int]
        var listSees: Set<Role>?

        static func all(_ status: Int) -> Row { Row(expected: Dictionary(uniqueKeysWithValues: Role.allCases.map { ($0, status) })) }
        /// A route on alice's receipt: those who see it get `seen`, the others 404.
        static func object(seen: Int, viewer: Int? = nil, editor: Int? = nil) -> Row {
            Row(expected: [.owner: seen, .viewer: viewer ?? seen, .editor: editor ?? seen, .other: 404, .admin: seen,
                           .service: 404, .endUser: 404])
        }
        static let list = Row(expected: Dictionary(uniqueKeysWithValues: Role.allCases.map { ($0, 200) }),
                              listSees: [.owner, .viewer, .editor, .admin])
    }

    /// "METHOD /path" as the OpenAPI document names it → what each role must get.
    static let matrix: [String: Row] = [
        "GET /healthz": .all(200), "GET /readyz": .all(200), "GET /metrics": .all(200), "GET /openapi.yaml": .all(200),
        "POST /v1/receipts": .all(200),
        "GET /v1/receipts": .list,
        "GET /v1/receipts/{id}": .object(seen: 200),
        "DELETE /v1/receipts/{id}": .object(seen: 204, viewer: 403, editor: 403),
        "GET /v1/receipts/{id}/image": .object(seen: 200),
        "GET /v1/receipts/{id}/pages/{page}": .object(seen: 200),
        "GET /v1/receipts/{id}/thumbnail": .object(seen: 200),
        "POST /v1/receipts/{id}/retry": .object(seen: 202, viewer: 403),
        "POST /v1/receipts/{id}/pictures": .object(seen: 202, viewer: 403),
        "POST /v1/receipts/{id}/split": .object(seen: 200, viewer: 403),
        "GET /v1/expenses": .list,
        "GET /v1/expenses/export.csv": .list,
        "GET /v1/expenses/{id}": .object(seen: 200),
        "PATCH /v1/expenses/{id}": .object(seen: 200, viewer: 403),
        "POST /v1/analyze": .all(200),
        // Each user's copy of one message is their own (201: new to them), never "seen before".
        "POST /v1/inbound-email": .all(201),
        "GET /v1/me": .all(200),
        "GET /v1/webhooks": .all(200),
        "POST /v1/webhooks": .all(201),
        // A webhook is its user's own: nobody else finds it, an administrator neither.
        "DELETE /v1/webhooks/{id}": Row(expected: [.owner: 204, .viewer: 404, .editor: 404, .other: 404, .admin: 404,
                                                   .service: 404, .endUser: 404]),
        // The shops home's receipts remember (issue 57): its members and an administrator see them,
        // its viewer may not change them, anyone else finds none.
        "GET /v1/vendors": .list,
        "PATCH /v1/vendors/{id}": .object(seen: 200, viewer: 403),
        "DELETE /v1/vendors/{id}": .object(seen: 204, viewer: 403),
        "POST /v1/vendors/{id}/merge": .object(seen: 200, viewer: 403),
    ]

    /// The cast's tokens and headers on one server.
    struct Cast: Sendable {
        let server: ServeCommandTests.Server
        let tokens: [String: String]
        /// The store the server serves (for the CLI beside it).
        var storeLocation = ""

        func headers(_ role: Role, _ extra: [String: String] = [:]) -> [String: String] {
            let user: String = switch role {
            case .owner: "alice"
            case .viewer: "carol"
            case .editor: "dave"
            case .other: "bob"
            case .admin: "admin"
            case .service, .endUser: "svc"
            }
            var headers = ["Authorization": "Bearer \(tokens[user]!)"].merging(extra) { $1 }
            if role == .endUser { headers["Receipts-External-User"] = "u-42" }
            return headers
        }

        func send(_ role: Role, _ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws
            -> (status: Int, headers: [String: String], body: Data) {
            try await server.send(method, path, body: body, headers: self.headers(role, headers))
        }

        func json(_ role: Role, _ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws
            -> (Int, JSONValue) {
            let answer = try await send(role, method, path, body: body, headers: headers)
            return (answer.status, (try? JSONValue.parse(answer.body)) ?? .null)
        }

        /// Uploads a TestReceipt as `role` and waits for its result.
        func upload(_ role: Role, _ name: String, query: String = "") async throws -> JSONValue {
            let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt(name)))
            let (status, record) = try await json(role, "POST", "/v1/receipts?wait=\(Int(60 * testTimeScale))\(query)", body: data,
                                                  headers: ["Content-Type": "application/octet-stream"])
            #expect(status == 200, "\(role) uploading \(name): \(record)")
            return record
        }
    }

    /// Users, a group and tokens made with the CLI, as an administrator would; then the server.
    static func cast(store: String) async throws -> Cast {
        func cli(_ arguments: [String]) async throws -> ReceiptsCLI.Result {
            let result = try await ReceiptsCLI.run(arguments + ["--store", store])
            #expect(result.status == 0, "receipts \(arguments.joined(separator: " ")): \(result.err)")
            return result
        }
        for user in ["alice", "bob", "carol", "dave", "svc"] { _ = try await cli(["user", "add", user]) }
        _ = try await cli(["group", "add", "home", "--member", "alice", "--member", "carol:viewer", "--member", "dave:editor"])
        var tokens: [String: String] = [:]
        for user in ["alice", "bob", "carol", "dave", "admin"] {
            tokens[user] = try await cli(["token", "create", "--name", "\(user)-token", "--user", user]).out
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        tokens["svc"] = try await cli(["token", "create", "--name", "svc-token", "--user", "svc", "--scope", "admin,act-as"]).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try await ServeCommandTests.Server(store: store, arguments: ["--workers", "1"])
        return Cast(server: server, tokens: tokens, storeLocation: store)
    }

    static var stores: [StoreKindArgument] { StoreKindArgument.available }

    @Test(arguments: stores)
    func everyRouteAnswersEachRoleAsTheMatrixSays(_ kind: StoreKindArgument) async throws {
        let dir = try TemporaryDirectory()
        let cast = try await Self.cast(store: try await kind.location(dir))
        defer { _ = try? cast.server.process.isRunning ? kill(cast.server.process.processIdentifier, SIGTERM) : 0 }

        // alice's receipts, shared with home: a photo (its expense), a PDF (its pages), a broken one.
        let photo = try await cast.upload(.owner, "uk-parking.jpg", query: "&group=home")
        #expect(photo["owner"]?.stringValue == "alice" && photo["group"]?.stringValue == "home", "\(photo)")
        let id = try #require(photo["receiptId"]?.stringValue)
        let expense = try #require(photo["expense"]?["id"]?.stringValue)
        let pdf = try #require(try await cast.upload(.owner, "scan-parking.pdf", query: "&group=home")["receiptId"]?.stringValue)
        let broken = try await cast.upload(.owner, "bad/truncated.jpg", query: "&group=home")
        #expect(broken["ocrStatus"]?.stringValue == "failed", "\(broken)")
        let failed = try #require(broken["receiptId"]?.stringValue)
        let image = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("us-diner.jpg")))
        let vendor = try await freshVendor(cast, store: cast.storeLocation, dir: dir, tag: "listed")

        var cells = 0
        for (route, row) in Self.matrix.sorted(by: { $0.key < $1.key }) {
            let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
            let (method, pattern) = (parts[0], parts[1])
            for role in Role.allCases {
                let expected = try #require(row.expected[role])
                var path = pattern.replacingOccurrences(of: "{page}", with: "1")
                var body: Data?
                var headers: [String: String] = [:]
                switch (method, pattern) {
                case ("DELETE", "/v1/receipts/{id}"):
                    // Each deletion on a receipt of its own: alice's, shared with home.
                    let fresh = try await freshReceipt(cast, dir: dir, tag: "\(route)-\(role)")
                    path = "/v1/receipts/\(fresh)"
                case ("POST", "/v1/receipts/{id}/pictures"):
                    // The rest of a long receipt, added to a receipt of alice's of its own (it is read again).
                    let fresh = try await freshReceipt(cast, dir: dir, tag: "\(route)-\(role)")
                    path = "/v1/receipts/\(fresh)/pictures"
                    body = image
                    headers["Content-Type"] = "image/jpeg"
                case ("POST", "/v1/receipts/{id}/split"):
                    // Each split on a receipt of two pictures of alice's of its own.
                    let fresh = try await freshReceipt(cast, dir: dir, tag: "\(route)-\(role)", pictures: 2)
                    path = "/v1/receipts/\(fresh)/split"
                case ("POST", "/v1/receipts/{id}/retry"):
                    // The broken receipt is failed again before each retry.
                    #expect(try await eventuallyAsync(timeout: 60 * testTimeScale) {
                        try await cast.json(.owner, "GET", "/v1/receipts/\(failed)").1["ocrStatus"]?.stringValue == "failed"
                    })
                    path = "/v1/receipts/\(failed)/retry"
                case (_, "/v1/receipts/{id}/pages/{page}"):
                    path = "/v1/receipts/\(pdf)/pages/1"
                case (_, let p) where p.hasPrefix("/v1/receipts/{id}"):
                    path = p.replacingOccurrences(of: "{id}", with: id)
                case ("PATCH", "/v1/expenses/{id}"):
                    path = "/v1/expenses/\(expense)"
                    body = Data(#"{"category": "Other"}"#.utf8)
                    headers["Content-Type"] = "application/json"
                case (_, "/v1/expenses/{id}"):
                    path = "/v1/expenses/\(expense)"
                case ("POST", "/v1/receipts"):
                    path = "/v1/receipts?wait=\(Int(60 * testTimeScale))"
                    body = image
                    headers["Content-Type"] = "image/jpeg"
                case ("POST", "/v1/analyze"):
                    body = try JSONValue.object([("image", .string(image.base64EncodedString()))]).serialized().data(using: .utf8)
                    headers["Content-Type"] = "application/json"
                case ("POST", "/v1/inbound-email"):
                    body = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("email/parking-app-jsonld.eml")))
                    headers["Content-Type"] = "message/rfc822"
                case ("POST", "/v1/webhooks"):
                    body = Data(#"{"url": "http://127.0.0.1:9/hook"}"#.utf8)
                    headers["Content-Type"] = "application/json"
                case ("PATCH", "/v1/vendors/{id}"):
                    path = "/v1/vendors/\(vendor)"
                    body = Data(#"{"name": "Corner Shop (\#(role.rawValue))"}"#.utf8)
                    headers["Content-Type"] = "application/json"
                case ("DELETE", "/v1/vendors/{id}"):
                    path = "/v1/vendors/\(try await freshVendor(cast, store: cast.storeLocation, dir: dir, tag: "\(route)-\(role)"))"
                case ("POST", "/v1/vendors/{id}/merge"):
                    // Each merge forgets a shop of its own, merged into the listed one.
                    path = "/v1/vendors/\(try await freshVendor(cast, store: cast.storeLocation, dir: dir, tag: "\(route)-\(role)"))/merge"
                    body = Data(#"{"into": "\#(vendor)"}"#.utf8)
                    headers["Content-Type"] = "application/json"
                case ("DELETE", "/v1/webhooks/{id}"):
                    let (status, made) = try await cast.json(.owner, "POST", "/v1/webhooks", body: Data(#"{"url": "http://127.0.0.1:9/a"}"#.utf8),
                                                             headers: ["Content-Type": "application/json"])
                    #expect(status == 201)
                    path = "/v1/webhooks/\(try #require(made["id"]?.stringValue))"
                default:
                    break
                }
                let answer = try await cast.send(role, method, path, body: body, headers: headers)
                cells += 1
                #expect(answer.status == expected, "\(kind) \(route) as \(role.rawValue): \(answer.status), not \(expected): \(String(decoding: answer.body, as: UTF8.self).prefix(300))")
                if let sees = row.listSees {
                    let text = String(decoding: answer.body, as: UTF8.self)
                    let needle = route.hasPrefix("GET /v1/expenses") ? (route.hasSuffix(".csv") ? id : expense)
                        : route == "GET /v1/vendors" ? vendor : id
                    #expect(text.contains(needle) == sees.contains(role),
                            "\(kind) \(route) as \(role.rawValue): alice's \(needle) is \(text.contains(needle) ? "listed" : "missing")")
                }
            }
        }
        #expect(cells == Self.matrix.count * Role.allCases.count)
        print("authorization matrix on \(kind): \(Self.matrix.count) routes × \(Role.allCases.count) roles = \(cells) requests")

        // A blank name is a 400 problem document, not a shop without a name.
        let blank = try await cast.send(.owner, "PATCH", "/v1/vendors/\(vendor)", body: Data(#"{"name": "   "}"#.utf8),
                                        headers: ["Content-Type": "application/json"])
        #expect(blank.status == 400, "\(kind) a blank vendor name: \(blank.status)")
        #expect(blank.headers.first { $0.key.lowercased() == "content-type" }?.value.hasPrefix("application/problem+json") == true,
                "\(kind) a blank vendor name answers \(blank.headers)")
        #expect((try? JSONValue.parse(blank.body))?["detail"]?.stringValue?.contains("name") == true,
                "\(kind) a blank vendor name: \(String(decoding: blank.body, as: UTF8.self))")
        #expect(try await cast.server.stop())
    }

    // MARK: The open mode

    /// Who calls `/v1` without a token: nobody signed in, a browser with a cookie that is no
    /// session (made up, or one that ended), and requests a proxy on this computer forwards.
    enum Caller: String, CaseIterable, Sendable {
        case nothing = "no credentials", madeUpCookie = "a made-up session cookie", endedCookie = "an ended session's cookie"
        case forwardedFor = "X-Forwarded-For: 203.0.113.7", forwardedLocal = "X-Forwarded-For: 127.0.0.1"
        case forwarded = "Forwarded: for=203.0.113.7", realIP = "X-Real-IP: 203.0.113.7", madeUpToken = "a made-up Bearer token"

        func headers(endedCookie cookie: String) -> [String: String] {
            switch self {
            case .nothing: [:]
            case .madeUpCookie: ["Cookie": "receipts_session=made-up-\(String(repeating: "x", count: 32))"]
            case .endedCookie: ["Cookie": cookie]
            case .forwardedFor: ["X-Forwarded-For": "203.0.113.7"]
            case .forwardedLocal: ["X-Forwarded-For": "127.0.0.1"]
            case .forwarded: ["Forwarded": "for=203.0.113.7;proto=https"]
            case .realIP: ["X-Real-IP": "203.0.113.7"]
            case .madeUpToken: ["Authorization": "Bearer rcp_made-up-token-0123456789abcdef"]
            }
        }
    }

    /// The store's states, in the order the test goes through them, and whether the open mode
    /// answers in each (`GET /v1/me` as the administrator to a caller from this computer without
    /// credentials): only while nobody can sign in.
    static let openModeStates: [(state: String, open: Bool)] = [
        ("a new store", true),
        ("carol invited (an open invitation)", false),
        ("carol signed in with the invitation (a live session)", false),
        ("carol's session ended (the invitation used)", true),
        ("carol has a password", false),
        ("carol's password removed, a passkey added", false),
        ("the passkey removed", true),
        ("an API token", false),
        ("the API token revoked", true),
    ]

    /// Issue 56: the open mode's rows, on each store. Each state of the store (`openModeStates`),
    /// each caller (`Caller`): only a request from this computer without credentials, while nobody
    /// can sign in, is answered (200, as the administrator, with every scope); every other gets 401.
    /// The sign-in page says "Nobody can sign in yet" exactly while the open mode lasts, and a
    /// person's session is not told it may act for others (`act-as`).
    @Test(arguments: stores)
    func theOpenModeAnswersOnlyThisComputerWhileNobodyCanSignIn(_ kind: StoreKindArgument) async throws {
        let dir = try TemporaryDirectory()
        let store = try await kind.location(dir)
        func cli(_ arguments: [String]) async throws -> ReceiptsCLI.Result {
            let result = try await ReceiptsCLI.run(arguments + ["--store", store])
            #expect(result.status == 0, "receipts \(arguments.joined(separator: " ")): \(result.err)")
            return result
        }
        let server = try await ServeCommandTests.Server(store: store, arguments: ["--workers", "0"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGTERM) } }
        let port = try #require(server.base.port)
        _ = try await cli(["user", "add", "carol"])
        let opened = try await OpenedStore.open(try StoreLocation(store), drivers: [PostgresStoreDriver()])
        defer { opened.close() }
        let accounts = try #require(opened.store as? any ServerStore)

        // The invitation's secret; carol's session cookie once she signed in (ended after).
        var secret = "", session: String?, cells = 0
        for (state, open) in Self.openModeStates {
            switch state {
            case "carol invited (an open invitation)":
                let link = try await cli(["user", "invite", "carol", "--base-url", "http://127.0.0.1:\(port)"]).out
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                secret = try #require(link.split(separator: "/").last.map(String.init))
            case "carol signed in with the invitation (a live session)":
                let page = try await Self.raw(port, "GET", "/invite/\(secret)")
                let csrf = try #require(page.body.range(of: #"name="csrf" value="[^"]+""#, options: .regularExpression)
                    .map { String(page.body[$0].split(separator: "\"")[3]) }, "\(page.body)")
                let signInCookie = try #require(Self.cookie("receipts_signin", in: page.head), "\(page.head)")
                let accepted = try await Self.raw(port, "POST", "/invite", headers: [
                    "Cookie": signInCookie, "Content-Type": "application/x-www-form-urlencoded", "Origin": "http://127.0.0.1:\(port)",
                ], body: "csrf=\(csrf.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&secret=\(secret)")
                session = try #require(Self.cookie("receipts_session", in: accepted.head), "\(accepted.head)")
                // Signed in as a person: carol's own rights, and no act-as among them.
                let me = try await Self.raw(port, "GET", "/v1/me", headers: ["Cookie": session ?? ""])
                let answer = try JSONValue.parse(me.body)
                #expect(me.status == 200 && answer["user"] == .string("carol") && answer["admin"] == .bool(false), "\(me.body)")
                #expect(answer["scopes"] == .array(["read", "upload", "review", "admin"].map(JSONValue.string)),
                        "a person's session may not act for an end user: \(me.body)")
            case "carol's session ended (the invitation used)":
                _ = try await cli(["user", "sessions", "carol", "--all"])
            case "carol has a password":
                let set = try await ReceiptsCLI.runProgram("/bin/sh", ["-c", "printf 'a long secret 1\\n' | \(ReceiptsCLI.binary.path) user password carol "
                                                                      + "--password-cost minimum --store '\(store)'"])
                #expect(set.status == 0, "\(set.err)")
            case "carol's password removed, a passkey added":
                _ = try await cli(["user", "password", "carol", "--remove", "--force"])
                try await accounts.addPasskey(Passkey(id: "credential-1", user: "carol", userHandle: "handle", name: "Phone",
                                                      publicKey: [1, 2, 3], algorithm: -7, signCount: 0, createdAt: Date()))
            case "the passkey removed":
                try await accounts.removePasskey(id: "credential-1", user: "carol")
            case "an API token":
                _ = try await cli(["token", "create", "--name", "app", "--user", "carol"])
            case "the API token revoked":
                _ = try await cli(["token", "revoke", "app"])
            default:
                break
            }
            for caller in Caller.allCases {
                // (An ended session's cookie: once carol's session has ended.)
                guard caller != .endedCookie || (session != nil && !state.contains("live session")) else { continue }
                let answer = try await Self.raw(port, "GET", "/v1/me", headers: caller.headers(endedCookie: session ?? ""))
                cells += 1
                let local = caller == .nothing || caller == .forwardedLocal
                let expected = open && local ? 200 : 401
                #expect(answer.status == expected, "\(kind), \(state), \(caller.rawValue): \(answer.status.map(String.init) ?? "no answer"), not \(expected): \(answer.body.prefix(300))")
                if expected == 200 {
                    let me = try JSONValue.parse(answer.body)
                    #expect(me["user"] == .string("admin") && me["admin"] == .bool(true) && me["scopes"]?.arrayValue?.count == 5, "\(answer.body)")
                } else {
                    #expect(answer.head.lowercased().contains("content-type: application/problem+json"), "\(answer.head)")
                }
            }
            // The sign-in page says nobody can sign in exactly while the open mode lasts.
            let signIn = try await Self.raw(port, "GET", "/signin")
            #expect(signIn.body.contains("Nobody can sign in yet") == open, "\(kind), \(state): the sign-in page's note")
        }
        print("open mode on \(kind): \(Self.openModeStates.count) states, \(cells) requests")
        #expect(try await server.stop())
    }

    /// One request over a socket of its own: no cookie jar, no redirect followed, headers as given.
    static func raw(_ port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: String = "") async throws
        -> RawHTTPClient.Answer {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        return try await RawHTTPClient.send(port: port, head: head + "\r\n", body: Data(body.utf8), timeout: Int(60 * testTimeScale))
    }

    /// `name=value` of the `Set-Cookie` header in `head` that sets `name`.
    static func cookie(_ name: String, in head: String) -> String? {
        for line in head.components(separatedBy: "\r\n") where line.lowercased().hasPrefix("set-cookie: \(name)=") {
            return line.dropFirst("set-cookie: ".count).split(separator: ";").first.map(String.init)
        }
        return nil
    }

    /// A receipt of alice's, shared with home, of bytes never sent before (the same bytes are one
    /// receipt): the parking ticket with the tag after its end-of-image marker, which decoders ignore.
    /// With `pictures` 2, a receipt of two pictures (the ticket twice, tagged apart), not waited for.
    private func freshReceipt(_ cast: Cast, dir: TemporaryDirectory, tag: String, pictures: Int = 1) async throws -> String {
        var data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
        data.append(Data(tag.utf8))
        var body = data, headers = ["Content-Type": "image/jpeg"], wait = Int(60 * testTimeScale)
        if pictures > 1 {
            body = Data()
            for n in 1...pictures {
                body += Data("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"p\(n).jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
                body += data + Data("\(n)\r\n".utf8)
            }
            body += Data("--b--\r\n".utf8)
            (headers, wait) = (["Content-Type": "multipart/form-data; boundary=b"], 0)
        }
        let (status, record) = try await cast.json(.owner, "POST", "/v1/receipts?group=home&wait=\(wait)", body: body, headers: headers)
        #expect([200, 202].contains(status), "\(record)")
        return try #require(record["receiptId"]?.stringValue)
    }

    /// A shop remembered for home, alice's group, imported as a fleet's list of merchants would be
    /// (`receipts vendors import --group home`): its id.
    private func freshVendor(_ cast: Cast, store: String, dir: TemporaryDirectory, tag: String) async throws -> String {
        let name = "Corner Shop " + tag.filter { $0.isLetter || $0.isNumber }
        let csv = dir.url.appendingPathComponent("merchants-\(UUID().uuidString).csv")
        try Data("name,category\n\(name),Other\n".utf8).write(to: csv)
        let result = try await ReceiptsCLI.run(["vendors", "import", csv.path, "--group", "home", "--user", "alice", "--store", store])
        #expect(result.status == 0, "receipts vendors import: \(result.err)")
        let (status, page) = try await cast.json(.owner, "GET", "/v1/vendors?limit=500")
        #expect(status == 200, "\(page)")
        let found = page["vendors"]?.arrayValue?.first { $0["name"]?.stringValue == name }
        return try #require(found?["id"]?.stringValue, "\(name) is not among alice's shops: \(page)")
    }

    /// The served document's operations are exactly the matrix's rows: a route added to the
    /// document without a row here fails, as does a row for a route that is gone.
    @Test func everyRouteOfTheDocumentHasARow() async throws {
        let dir = try TemporaryDirectory()
        let server = try await ServeCommandTests.Server(store: dir.storePath, arguments: ["--workers", "0"])
        let yaml = String(decoding: try await server.send("GET", "/openapi.yaml").body, as: UTF8.self)
        #expect(try await server.stop())
        var documented: Set<String> = [], path: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false).drop(while: { $0 != "paths:" }) {
            if line.hasPrefix("  /"), line.hasSuffix(":") { path = String(line.dropFirst(2).dropLast()) }
            else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                documented.insert(line.trimmingCharacters(in: .whitespaces).dropLast().uppercased() + " " + path)
            }
        }
        #expect(!documented.isEmpty)
        #expect(documented.subtracting(Self.matrix.keys).isEmpty, "routes without a row in the matrix: \(documented.subtracting(Self.matrix.keys).sorted())")
        #expect(Set(Self.matrix.keys).subtracting(documented).isEmpty, "rows for routes the document lacks: \(Set(Self.matrix.keys).subtracting(documented).sorted())")
    }
}

/// A store kind as a test argument: SQLite always, PostgreSQL where it can run.
enum StoreKindArgument: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    static var available: [StoreKindArgument] { PostgresTestServer.available ? [.sqlite, .postgres] : [.sqlite] }

    var testDescription: String { rawValue }

    /// A new, empty store: a file in `dir`, or a fresh database of the tests' PostgreSQL server.
    func location(_ dir: TemporaryDirectory) async throws -> String {
        switch self {
        case .sqlite: dir.storePath
        case .postgres: try await #require(await PostgresTestServer.shared()).freshDatabase()
        }
    }
}
