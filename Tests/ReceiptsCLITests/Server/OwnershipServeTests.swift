import Crypto
import Foundation
import Testing
import ReceiptKit
import ReceiptStorage
@testable import TestHelpers
@testable import TestSupport

/// Whose receipts are whose, end to end: the real `receipts` binary (CLI and `serve`), a real
/// SQLite store, a real webhook receiver on 127.0.0.1. The route-by-route matrix is
/// `AuthorizationMatrixTests`; here, what people and backends notice.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: ReceiptsCLI.binary.path)))
struct OwnershipServeTests {
    typealias Server = ServeCommandTests.Server

    private func cli(_ arguments: [String], _ store: String) async throws -> String {
        let result = try await ReceiptsCLI.run(arguments + ["--store", store])
        #expect(result.status == 0, "receipts \(arguments.joined(separator: " ")): \(result.err)")
        return result.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func bearer(_ token: String, _ extra: [String: String] = [:]) -> [String: String] {
        ["Authorization": "Bearer \(token)"].merging(extra) { $1 }
    }

    private func image(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt(name)))
    }

    /// The same bytes from alice and from bob are two receipts; bob's upload answers with his own
    /// receipt, read for him, and nothing of hers (not her id, not her file name); his lists never
    /// hold hers; their idempotency keys never meet.
    @Test func theSameBytesFromTwoUsersAreTwoReceiptsAndBobLearnsNothingOfAlices() async throws {
        let dir = try TemporaryDirectory()
        let store = dir.storePath
        for user in ["alice", "bob"] { _ = try await cli(["user", "add", user], store) }
        let alice = try await cli(["token", "create", "--name", "a", "--user", "alice"], store)
        let bob = try await cli(["token", "create", "--name", "b", "--user", "bob"], store)
        let server = try await Server(store: store, arguments: ["--workers", "1"])
        let bytes = try image("uk-parking.jpg")
        let wait = "wait=\(Int(60 * testTimeScale))"
        let (first, hers) = try await server.json("POST", "/v1/receipts?\(wait)&filename=alice-private.jpg", body: bytes,
                                                  headers: bearer(alice, ["Content-Type": "image/jpeg", "Idempotency-Key": "k1"]))
        #expect(first == 200 && hers["owner"]?.stringValue == "alice")
        let herId = try #require(hers["receiptId"]?.stringValue)
        let answer = try await server.send("POST", "/v1/receipts?\(wait)&filename=mine.jpg", body: bytes,
                                           headers: bearer(bob, ["Content-Type": "image/jpeg"]))
        let his = try JSONValue.parse(answer.body)
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 200 && his["owner"]?.stringValue == "bob" && his["ocrStatus"]?.stringValue == "completed", "\(text)")
        #expect(his["receiptId"]?.stringValue != herId)
        #expect(!text.contains(herId) && !text.contains("alice"), "bob's answer tells of alice's receipt: \(text)")
        #expect(his["expense"]?["possibleDuplicateOf"] == .null, "the same purchase of another user is not named")
        // Two receipts in the store, one each.
        #expect(try await cli(["list", "--format", "ndjson"], store).split(separator: "\n").count == 2)
        // Bob's lists and export hold only his; alice's receipt is not found for him.
        for path in ["/v1/receipts", "/v1/expenses", "/v1/expenses/export.csv", "/v1/receipts?needsReview=false"] {
            let listed = String(decoding: try await server.send("GET", path, headers: bearer(bob)).body, as: UTF8.self)
            #expect(!listed.contains(herId) && !listed.contains("alice-private"), "\(path): \(listed)")
        }
        #expect(try await server.send("GET", "/v1/receipts/\(herId)", headers: bearer(bob)).status == 404)
        // The same Idempotency-Key is bob's own: with other bytes it is a new upload, not a 422.
        let (keyed, _) = try await server.json("POST", "/v1/receipts", body: try image("us-diner.jpg"),
                                               headers: bearer(bob, ["Content-Type": "image/jpeg", "Idempotency-Key": "k1"]))
        #expect([200, 202].contains(keyed))
        #expect(try await server.stop())
    }

    /// A backend's service token acts for its end users: each upload is the end user's (with the
    /// backend's metadata, returned verbatim), each end user sees only their own, the service sees
    /// all of its own and filters by end user; a token without act-as may not name one; a webhook
    /// registered for one end user gets only that end user's receipts, metadata included.
    @Test func aBackendActsForItsEndUsersAndTheirWebhooksGetOnlyTheirReceipts() async throws {
        let dir = try TemporaryDirectory()
        let store = dir.storePath
        for user in ["svc", "alice"] { _ = try await cli(["user", "add", user], store) }
        let svc = try await cli(["token", "create", "--name", "backend", "--user", "svc", "--scope", "upload,review,act-as"], store)
        let alice = try await cli(["token", "create", "--name", "a", "--user", "alice"], store)
        let receiver = try ScriptedHTTPServer([.json(200, "{}")])
        defer { receiver.stop() }
        let server = try await Server(store: store, arguments: ["--workers", "1"])
        let (added, hook) = try await server.json("POST", "/v1/webhooks", body: Data(#"{"url": "http://127.0.0.1:\#(receiver.port)/u42"}"#.utf8),
                                                  headers: bearer(svc, ["Content-Type": "application/json", "Receipts-External-User": "u-42"]))
        #expect(added == 201 && hook["externalUser"]?.stringValue == "u-42", "\(hook)")
        let secret = try #require(hook["secret"]?.stringValue, "a secret the server made is returned once")

        let wait = "wait=\(Int(60 * testTimeScale))"
        let metadata = #"{"order":"A-1","litres":41.5,"fleet":true}"#
        func upload(_ name: String, as user: String, metadata: String? = nil) async throws -> JSONValue {
            let query = metadata.map { "&metadata=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" } ?? ""
            let (status, record) = try await server.json("POST", "/v1/receipts?\(wait)\(query)", body: try image(name),
                                                         headers: bearer(svc, ["Content-Type": "image/jpeg", "Receipts-External-User": user]))
            #expect(status == 200, "\(record)")
            return record
        }
        let mine = try await upload("uk-parking.jpg", as: "u-42", metadata: metadata)
        #expect(mine["owner"]?.stringValue == "svc" && mine["externalUser"]?.stringValue == "u-42")
        #expect(mine["metadata"] == (try JSONValue.parse(metadata)), "\(mine)")
        let theirs = try await upload("uk-parking.jpg", as: "u-43")
        #expect(theirs["receiptId"] != mine["receiptId"], "the same bytes from two end users are two receipts")
        let myId = try #require(mine["receiptId"]?.stringValue), theirId = try #require(theirs["receiptId"]?.stringValue)

        func ids(_ path: String, _ headers: [String: String]) async throws -> Set<String> {
            let (_, page) = try await server.json("GET", path, headers: headers)
            return Set((page["receipts"]?.arrayValue ?? []).compactMap { $0["receiptId"]?.stringValue })
        }
        #expect(try await ids("/v1/receipts", bearer(svc, ["Receipts-External-User": "u-42"])) == [myId])
        #expect(try await server.send("GET", "/v1/receipts/\(theirId)", headers: bearer(svc, ["Receipts-External-User": "u-42"])).status == 404)
        #expect(try await ids("/v1/receipts", bearer(svc)) == [myId, theirId], "the service sees every receipt of its own")
        #expect(try await ids("/v1/receipts?externalUser=u-43", bearer(svc)) == [theirId])
        #expect(try await ids("/v1/receipts", bearer(alice)).isEmpty, "another user sees none of the service's")
        let refused = try await server.send("GET", "/v1/receipts", headers: bearer(alice, ["Receipts-External-User": "u-42"]))
        #expect(refused.status == 403 && String(decoding: refused.body, as: UTF8.self).contains("act-as"))

        // The end user's webhook: u-42's receipt, signed with its secret, metadata included; not u-43's.
        #expect(try await eventually(timeout: 30 * testTimeScale) { !receiver.requests.isEmpty })
        try await Task.sleep(for: .seconds(2))
        let deliveries = receiver.requests
        #expect(deliveries.count == 1, "\(deliveries.map { String(decoding: $0.body, as: UTF8.self) })")
        let delivery = try #require(deliveries.first)
        #expect(delivery.path == "/u42" && delivery.json?["receiptId"]?.stringValue == myId)
        #expect(delivery.json?["metadata"] == (try JSONValue.parse(metadata)))
        let signature = try #require(delivery.headers["receipts-signature"])
        let timestamp = try #require(signature.split(separator: ",").first?.dropFirst(2))
        var signed = Data("\(timestamp).".utf8)
        signed.append(delivery.body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secret.utf8)))
        #expect(signature.hasSuffix("v1=" + mac.map { String(format: "%02x", $0) }.joined()))
        #expect(try await server.stop())
    }

    /// The same bytes uploaded again are the receipt they were stored as, with its first group and
    /// metadata: the answer says so (`duplicate`, and what of this upload was `notApplied`) instead
    /// of silently keeping the first ones. Metadata is given once: a key twice, or metadata both
    /// in the query and as a multipart part, is refused.
    @Test func aDuplicateUploadSaysWhatItDidNotApplyAndMetadataIsGivenOnce() async throws {
        let dir = try TemporaryDirectory()
        let store = dir.storePath
        _ = try await cli(["user", "add", "alice"], store)
        _ = try await cli(["group", "add", "home", "--member", "alice"], store)
        _ = try await cli(["group", "add", "work", "--member", "alice"], store)
        let alice = try await cli(["token", "create", "--name", "a", "--user", "alice"], store)
        let server = try await Server(store: store, arguments: ["--workers", "0"])
        let bytes = try image("uk-parking.jpg")
        func upload(_ query: String) async throws -> (Int, JSONValue) {
            try await server.json("POST", "/v1/receipts?\(query)", body: bytes, headers: bearer(alice, ["Content-Type": "image/jpeg"]))
        }
        func metadata(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        let (status, first) = try await upload("group=home&metadata=\(metadata(#"{"order":"A-1"}"#))")
        #expect(status == 202 && first["duplicate"] == .bool(false) && first["notApplied"] == nil, "\(first)")
        let (_, again) = try await upload("group=work&metadata=\(metadata(#"{"order":"B-2"}"#))")
        #expect(again["receiptId"] == first["receiptId"] && again["duplicate"] == .bool(true), "\(again)")
        #expect(again["notApplied"] == .array([.string("group"), .string("metadata")]), "\(again)")
        #expect(again["group"]?.stringValue == "home" && again["metadata"]?["order"]?.stringValue == "A-1", "the first ones are kept")
        let (_, same) = try await upload("group=home")
        #expect(same["duplicate"] == .bool(true) && same["notApplied"] == nil, "nothing differs: \(same)")

        let (twice, problem) = try await server.json("POST", "/v1/receipts?metadata=\(metadata(#"{"a":1,"a":2}"#))", body: try image("us-diner.jpg"),
                                                     headers: bearer(alice, ["Content-Type": "image/jpeg"]))
        #expect(twice == 400 && problem["detail"]?.stringValue?.contains(#"the key "a" more than once"#) == true, "\(problem)")
        let boundary = "b-1"
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n{\"order\":\"C-3\"}\r\n".utf8)
        body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"d.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
        body += try image("us-diner.jpg") + Data("\r\n--\(boundary)--\r\n".utf8)
        let (both, refused) = try await server.json("POST", "/v1/receipts?metadata=\(metadata(#"{"order":"C-3"}"#))", body: body,
                                                    headers: bearer(alice, ["Content-Type": "multipart/form-data; boundary=\(boundary)"]))
        #expect(both == 400 && refused["detail"]?.stringValue?.contains("metadata is given twice") == true, "\(refused)")
        #expect(try await cli(["list", "--format", "ndjson"], store).split(separator: "\n").count == 1, "nothing refused was stored")
        #expect(try await server.stop())
    }

    /// Each correction and confirmation records who made it (user and token): the expense's
    /// history and `confirmedBy`, through the API and in `receipts export`.
    @Test func aConfirmationByAGroupEditorRecordsWhoMadeIt() async throws {
        let dir = try TemporaryDirectory()
        let store = dir.storePath
        for user in ["alice", "carol"] { _ = try await cli(["user", "add", user], store) }
        _ = try await cli(["group", "add", "home", "--member", "alice", "--member", "carol:editor"], store)
        let alice = try await cli(["token", "create", "--name", "alice-phone", "--user", "alice"], store)
        let carol = try await cli(["token", "create", "--name", "carol-laptop", "--user", "carol", "--scope", "review"], store)
        let server = try await Server(store: store, arguments: ["--workers", "1"])
        let (status, record) = try await server.json("POST", "/v1/receipts?group=home&wait=\(Int(60 * testTimeScale))",
                                                     body: try image("uk-parking.jpg"), headers: bearer(alice, ["Content-Type": "image/jpeg"]))
        #expect(status == 200 && record["group"]?.stringValue == "home")
        let expense = try #require(record["expense"]?["id"]?.stringValue)
        let (patched, saved) = try await server.json("PATCH", "/v1/expenses/\(expense)", body: Data(#"{"category": "Maintenance", "status": "confirmed"}"#.utf8),
                                                     headers: bearer(carol, ["Content-Type": "application/json"]))
        #expect(patched == 200, "\(saved)")
        #expect(saved["expense"]?["confirmedBy"]?.stringValue == "carol")
        let history = try #require(saved["history"]?.arrayValue)
        #expect(history.count == 1)
        #expect(history.first?["user"]?.stringValue == "carol" && history.first?["token"]?.stringValue == "carol-laptop")
        // The category changed (a parking ticket is drafted as Other), with the deduction it brings.
        let fields = Set(history.first?["fields"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        #expect(fields.contains("category") && history.first?["confirmed"] == .bool(true), "\(history)")
        // Alice reads who did it.
        let (_, read) = try await server.json("GET", "/v1/expenses/\(expense)", headers: bearer(alice))
        #expect(read["expense"]?["confirmedBy"]?.stringValue == "carol" && read["history"]?.arrayValue?.count == 1)
        #expect(try await server.stop())
        let exported = try JSONValue.parse(try await cli(["export", "--format", "json", "--user", "alice"], store))
        #expect(exported.arrayValue?.first?["confirmedBy"]?.stringValue == "carol" && exported.arrayValue?.first?["owner"]?.stringValue == "alice")
    }

    /// A store made by the release before users (schema v6: a receipt with its expense, an API
    /// token) opens with this one: it migrates in place, one administrator `admin` owns
    /// everything, and the token made before still works, as admin's.
    @Test func aStoreOfTheReleaseBeforeUsersUpgradesAndItsTokensStillWork() async throws {
        let dir = try TemporaryDirectory()
        let store = dir.storePath
        let secret = "rcp_madeBeforeUsersExisted0123456789"
        let hash = SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
        try StoreSchema.makeStore(at: store, upTo: "v6", then: """
            INSERT INTO receipt (id, filePath, contentHash, uploadTimestamp, ocrStatus, ocrResultJson, ocrText, analyzer, attempts,
                createdAt, updatedAt, isUploaded, expenseId)
            VALUES ('11111111-2222-3333-4444-555555555555', 'old/fuel.jpg', 'abc', '2026-11-01 10:00:00.000', 'completed',
                '{"vendor":"Shell","total":23.45}', 'SHELL', 'heuristic', 1, '2026-11-01 10:00:00.000', '2026-11-01 10:00:01.000', 0,
                'aaaaaaaa-2222-3333-4444-555555555555');
            INSERT INTO expense (id, receiptId, date, amount, currency, taxAmount, category, description, isTaxDeductible,
                taxDeductiblePercentage, creationMethod, status, needsReview, isUploaded, lastModified)
            VALUES ('aaaaaaaa-2222-3333-4444-555555555555', '11111111-2222-3333-4444-555555555555', '2026-11-01', '23.45', 'GBP',
                '3.91', 'Fuel', 'Shell', 1, '100', 'ocr', 'confirmed', 0, 0, '2026-11-01 10:00:01.000');
            INSERT INTO api_token (name, secretHash, createdAt, scopes) VALUES ('old-phone', '\(hash)', '2026-11-01 09:00:00.000', 'read,review');
            INSERT INTO idempotency_key (key, fingerprint, receiptId, createdAt)
            VALUES ('k-old', 'abc', '11111111-2222-3333-4444-555555555555', '2026-11-01 10:00:00.000');
            """)
        let listed = try JSONValue.parse(try await cli(["list", "--format", "json"], store))
        #expect(listed.arrayValue?.first?["owner"]?.stringValue == "admin", "\(listed)")
        let users = try await cli(["user", "list"], store)
        #expect(users.hasPrefix("admin\tadmin\t-\t-\t1\t1"), "\(users)")
        let tokens = try await cli(["token", "list"], store)
        #expect(tokens.hasPrefix("old-phone\t") && tokens.hasSuffix("\tadmin") && tokens.contains("read,review"), "\(tokens)")
        let server = try await Server(store: store, arguments: ["--workers", "0"])
        let (status, page) = try await server.json("GET", "/v1/receipts", headers: bearer(secret))
        #expect(status == 200 && page["receipts"]?.arrayValue?.first?["receiptId"]?.stringValue == "11111111-2222-3333-4444-555555555555",
                "\(page)")
        let (_, me) = try await server.json("GET", "/v1/me", headers: bearer(secret))
        #expect(me["user"]?.stringValue == "admin" && me["admin"] == .bool(true))
        #expect(try await server.stop())
    }
}
