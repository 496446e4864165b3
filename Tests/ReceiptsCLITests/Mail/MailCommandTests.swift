import Foundation
import Testing
@testable import ReceiptKit
@testable import ReceiptMail
@testable import TestHelpers
@testable import TestSupport

/// `receipts mail` and `POST /v1/inbound-email`: the real binary, a real Dovecot the tests start,
/// real GMime, libxml2, Tesseract and a real SQLite store. Every TestReceipts/email message is filed
/// with its expected fields.
@Suite(.enabled(if: DovecotTestServer.available, "Dovecot (dovecot-imapd) is not installed"), .serialized)
struct MailCommandTests {
    static let names = ["fuel-app-html", "parking-app-jsonld", "ride-nested-table", "insurer-pdf", "forwarded-phone-photo",
                        "heic-attachment", "logo-only"]

    static func expected(_ name: String) throws -> JSONValue {
        try JSONValue.parse(String(contentsOfFile: ReceiptsCLI.testReceipt("email/\(name).expected.json"), encoding: .utf8))
    }

    static func eml(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("email/\(name).eml")))
    }

    /// The record's fields against the message's expected receipt (or its error).
    static func check(_ record: JSONValue?, against expected: JSONValue, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let record else { Issue.record("\(name): no record", sourceLocation: sourceLocation); return }
        let want = expected["receipts"]?.arrayValue?.first ?? .null
        if let error = want["error"]?.stringValue {
            #expect(record["ocrStatus"]?.stringValue == "failed", "\(name)", sourceLocation: sourceLocation)
            #expect(record["error"]?.stringValue?.contains(error) == true, "\(name): \(record["error"] ?? .null)", sourceLocation: sourceLocation)
            #expect(record["error"]?.stringValue?.contains(expected["subject"]?.stringValue ?? "?") == true, "names the subject", sourceLocation: sourceLocation)
            return
        }
        #expect(record["ocrStatus"]?.stringValue == "completed", "\(name): \(record["error"] ?? .null)", sourceLocation: sourceLocation)
        // E-receipts are read, exactly; a photo is recognized by OCR: its vendor is scored as the
        // accuracy gate scores names (case and punctuation aside).
        let recognized = expected["note"] != nil
        for field in ["vendor", "date", "total", "tax", "currency"] {
            let got = record["analysis"]?[field] ?? .null
            let wanted = want[field] ?? .null
            var same = got == wanted || (got.decimalValue != nil && got.decimalValue == wanted.decimalValue)
            if recognized, field == "vendor", let a = got.stringValue, let b = wanted.stringValue {
                same = NameMatching.normalized(a) == NameMatching.normalized(b)
            }
            #expect(same, "\(name) \(field): expected \(wanted.serialized()), got \(got.serialized())", sourceLocation: sourceLocation)
        }
        #expect(record["source"]?["kind"]?.stringValue == "email", sourceLocation: sourceLocation)
        #expect(record["source"]?["subject"] == expected["subject"], sourceLocation: sourceLocation)
    }

    private func passwordFile(_ dir: TemporaryDirectory) throws -> String {
        try dir.write("imap-password", Data((DovecotTestServer.password + "\n").utf8))
    }

    @Test func mailOnceFilesEveryTestMessageWithItsExpectedFields() async throws {
        let dovecot = try await DovecotTestServer.started()
        defer { dovecot.stop() }
        try await dovecot.append(try Self.names.map(Self.eml))
        let dir = try TemporaryDirectory()
        let result = try await ReceiptsCLI.run(
            ["mail", "--imap", dovecot.url(), "--password-file", try passwordFile(dir), "--once", "--store", dir.storePath,
             "--format", "ndjson", "--workers", "2"], environment: ReceiptsCLI.environment())
        #expect(result.status == 1, "the logo-only message has no receipt: \(result.err)")
        let records = try result.ndjson()
        #expect(records.count == 7)
        for name in Self.names {
            let expected = try Self.expected(name)
            Self.check(records.first { $0["source"]?["subject"] == expected["subject"] }, against: expected, name)
        }
        #expect(result.err.contains("7 new messages"), "\(result.err)")
        #expect(try await dovecot.uids(keyword: "$ReceiptImported") == [1, 2, 3, 4, 5, 6, 7])
        // Again: nothing new, nothing read twice.
        let again = try await ReceiptsCLI.run(["mail", "--imap", dovecot.url(), "--password-file", try passwordFile(dir), "--once",
                                               "--store", dir.storePath, "--format", "ndjson"], environment: ReceiptsCLI.environment())
        #expect(again.status == 0 && again.out.isEmpty, "\(again.err)")
    }

    @Test func killedAfterTheCommitAndBeforeTheDoneActionNothingIsLostOrDoubled() async throws {
        let dovecot = try await DovecotTestServer.started()
        defer { dovecot.stop() }
        try await dovecot.append([try Self.eml("fuel-app-html"), try Self.eml("parking-app-jsonld")])
        let dir = try TemporaryDirectory()
        let pause = dir.path("paused")
        let process = Process()
        process.executableURL = ReceiptsCLI.binary
        process.arguments = ["mail", "--imap", dovecot.url(), "--password-file", try passwordFile(dir), "--once", "--no-work",
                             "--store", dir.storePath, "--pause-before-done-action", pause]
        process.environment = ReceiptsCLI.environment()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(try await eventually(timeout: 60) { FileManager.default.fileExists(atPath: pause) })
        kill(process.processIdentifier, SIGKILL)
        #expect(try await eventually(timeout: 15) { !process.isRunning })
        #expect(try await dovecot.uids(keyword: "$ReceiptImported").isEmpty, "killed before its done-action")

        let after = try await ReceiptsCLI.run(["mail", "--imap", dovecot.url(), "--password-file", try passwordFile(dir), "--once",
                                               "--no-work", "--store", dir.storePath, "--format", "ndjson"], environment: ReceiptsCLI.environment())
        #expect(after.status == 0, "\(after.err)")
        // Only the second message is new; the first one's done-action is applied now.
        #expect(try after.ndjson().map { $0["source"]?["subject"]?.stringValue } == ["Parking session receipt - ParkLink"])
        #expect(try await dovecot.uids(keyword: "$ReceiptImported") == [1, 2])
        let store = try SQLiteReceiptStore(path: dir.storePath)
        #expect(try await store.receipts(ReceiptQuery(), in: .everyone).count == 2)
        #expect(try await store.mailMessages(limit: 10).count == 2)
    }

    @Test func aMailboxThatCannotBeReadIsOneLineAndExit1() async throws {
        let dovecot = try await DovecotTestServer.started()
        defer { dovecot.stop() }
        let dir = try TemporaryDirectory()
        let wrong = try dir.write("wrong-password", Data("not-it\n".utf8))
        let result = try await ReceiptsCLI.run(["mail", "--imap", dovecot.url(), "--password-file", wrong, "--once", "--store", dir.storePath],
                                               environment: ReceiptsCLI.environment())
        #expect(result.status == 1)
        let lines = result.err.split(separator: "\n").filter { !$0.isEmpty }
        #expect(lines == ["receipts: error: \(dovecot.url()): the server refused the user name or password (check --password-file), while reading the folder 'INBOX' (Login denied)"],
                "\(result.err)")
        let missing = try await ReceiptsCLI.run(["mail", "--imap", dovecot.url(), "--password-file", try passwordFile(dir), "--once",
                                                 "--store", dir.storePath, "--done-folder", "Filed"], environment: ReceiptsCLI.environment())
        #expect(missing.status == 1)
        #expect(missing.err.trimmingCharacters(in: .whitespacesAndNewlines)
                == "receipts: error: \(dovecot.url()): the done folder 'Filed' does not exist; create it, or give --done-keyword instead of --done-folder")
        let user = try await ReceiptsCLI.run(["mail", "--imap", dovecot.url(), "--password-file", try passwordFile(dir), "--once",
                                              "--user", "a/b"], environment: ReceiptsCLI.environment())
        #expect(user.status == 64 || user.status == 2)
        #expect(user.err.contains("--user 'a/b' is not a user name"), "\(user.err)")
        let nobody = try await ReceiptsCLI.run(["mail", "--imap", dovecot.url(), "--password-file", try passwordFile(dir), "--once",
                                                "--store", dir.storePath, "--user", "nobody"], environment: ReceiptsCLI.environment())
        #expect(nobody.status == 1 && nobody.err.contains("--user nobody: no such user"), "\(nobody.err)")
        let usage = try await ReceiptsCLI.run(["mail", "--imap", "imaps://me:secret@mail.example/INBOX", "--once"], environment: ReceiptsCLI.environment())
        #expect(usage.status == 64 || usage.status == 2)
        #expect(usage.err.contains("the URL holds a password; put it in --password-file instead") && !usage.err.contains("secret"))
    }

    /// `--once --user alice` reads alice's receipts as hers (it stopped at "no receipt with id"
    /// when it read them as the administrator's), each record names the attachment and its
    /// message, not the receipt's id; and receipts a run left pending (`--no-work`) are read by the
    /// next `--once`, not left pending for good.
    @Test func mailOnceForAUserReadsTheirReceiptsAndNamesTheirFiles() async throws {
        let dovecot = try await DovecotTestServer.started()
        defer { dovecot.stop() }
        try await dovecot.append([try Self.eml("fuel-app-html")])
        let dir = try TemporaryDirectory()
        #expect(try await ReceiptsCLI.run(["user", "add", "alice", "--store", dir.storePath]).status == 0)
        let mail = ["mail", "--imap", dovecot.url(), "--password-file", try passwordFile(dir), "--once", "--user", "alice",
                    "--store", dir.storePath, "--format", "ndjson"]
        let first = try await ReceiptsCLI.run(mail, environment: ReceiptsCLI.environment())
        #expect(first.status == 0, "\(first.err)")
        let records = try first.ndjson()
        #expect(records.map { $0["ocrStatus"]?.stringValue } == ["completed"], "\(first.out)")
        #expect(records.first?["owner"]?.stringValue == "alice")
        #expect(records.first?["file"]?.stringValue == #""Your Pumpway receipt" from receipts@pumpway.example"#, "\(first.out)")

        // A run that only files (as one killed before reading would) leaves its receipt pending:
        // the next --once reads it, though its message is not new.
        try await dovecot.append([try Self.eml("forwarded-phone-photo")])
        let filed = try await ReceiptsCLI.run(mail + ["--no-work"], environment: ReceiptsCLI.environment())
        let pending = try filed.ndjson().map { $0["ocrStatus"]?.stringValue }
        #expect(filed.status == 0 && pending == ["pending"], "\(filed.err)")
        let next = try await ReceiptsCLI.run(mail, environment: ReceiptsCLI.environment())
        #expect(next.status == 0, "\(next.err)")
        let read = try next.ndjson()
        #expect(read.map { $0["ocrStatus"]?.stringValue } == ["completed"], "\(next.out)")
        let file = read.first?["file"]?.stringValue ?? ""
        #expect(file.hasSuffix(#" in "Fwd: Fuel receipt" from jo@fleet.example"#) && UUID(uuidString: file) == nil, "\(file)")
        #expect(next.err.contains("0 new messages"), "\(next.err)")
    }

    /// A usage error found once the command runs (a password file that is not there) is exit 2
    /// with `mail`'s own usage, as every other usage error is, not 64 with the top-level one.
    @Test func aMissingPasswordFileIsAUsageErrorOfMail() async throws {
        let dir = try TemporaryDirectory()
        let result = try await ReceiptsCLI.run(["mail", "--imap", "imaps://me@mail.example/INBOX", "--password-file", "/nonexistent/pw",
                                                "--once", "--store", dir.storePath], environment: ReceiptsCLI.environment())
        #expect(result.status == 2, "\(result.status): \(result.err)")
        #expect(result.err.hasPrefix("receipts: error: --password-file /nonexistent/pw"), "\(result.err)")
        #expect(result.err.contains("Usage: receipts mail"), "\(result.err)")
    }

    @Test func inboundEmailFilesEachMessageOnceStored() async throws {
        let dir = try TemporaryDirectory()
        let server = try await ServeCommandTests.Server(store: dir.path("serve/receipts.sqlite"))
        var ids: [String: [String]] = [:]
        for name in Self.names {
            let answer = try await server.send("POST", "/v1/inbound-email", body: try Self.eml(name), headers: ["Content-Type": "message/rfc822"])
            #expect(answer.status == 201, "\(name): \(String(decoding: answer.body, as: UTF8.self))")
            let json = try JSONValue.parse(String(decoding: answer.body, as: UTF8.self))
            #expect(json["duplicate"]?.boolValue == false)
            #expect(json["subject"] == (try Self.expected(name))["subject"])
            ids[name] = json["receipts"]?.arrayValue?.compactMap { $0["receiptId"]?.stringValue } ?? []
            #expect(ids[name]?.count == 1)
        }
        // The same message twice is one.
        let again = try await server.send("POST", "/v1/inbound-email", body: try Self.eml("fuel-app-html"), headers: ["Content-Type": "message/rfc822"])
        #expect(again.status == 200)
        let repeated = try JSONValue.parse(String(decoding: again.body, as: UTF8.self))
        #expect(repeated["duplicate"]?.boolValue == true)
        #expect(repeated["receipts"]?.arrayValue?.compactMap { $0["receiptId"]?.stringValue } == ids["fuel-app-html"])
        // Each is read to its expected fields.
        for name in Self.names {
            let id = try #require(ids[name]?.first)
            var record = JSONValue.null
            #expect(try await ServeCommandTests.until(timeout: 300) {
                record = try await server.json("GET", "/v1/receipts/\(id)").1
                return ["completed", "failed"].contains(record["ocrStatus"]?.stringValue ?? "")
            })
            Self.check(record, against: try Self.expected(name), name)
        }
        // The review page shows an e-receipt as its rows: an SVG of its words (the same as its thumbnail).
        let fuel = try #require(ids["fuel-app-html"]?.first)
        let picture = try await server.send("GET", "/v1/receipts/\(fuel)/thumbnail")
        #expect(picture.status == 200 && picture.headers["content-type"] == "image/svg+xml")
        let svg = String(decoding: picture.body, as: UTF8.self)
        #expect(svg.contains(">£59.94</text>") && svg.contains(">Pumpway</text>") && !svg.contains("<script"))
        // Not a message, or not sent as one: refused, nothing stored.
        let junk = try await server.send("POST", "/v1/inbound-email", body: Data(), headers: ["Content-Type": "message/rfc822"])
        #expect(junk.status == 422 || junk.status == 400)
        let json = try await server.send("POST", "/v1/inbound-email", body: try Self.eml("fuel-app-html"), headers: ["Content-Type": "application/json"])
        #expect(json.status == 415)
        #expect(try await server.stop())
    }

    @Test func serveWithAMailConfigPollsItsMailboxesAndReportsThemOnReadyz() async throws {
        let dovecot = try await DovecotTestServer.started()
        defer { dovecot.stop() }
        try await dovecot.append([try Self.eml("parking-app-jsonld")])
        let dir = try TemporaryDirectory()
        _ = try passwordFile(dir)
        _ = try dir.write("wrong-password", Data("not-it\n".utf8))
        let config = try dir.write("mailboxes.json", Data("""
            {"mailboxes": [
              {"imap": "\(dovecot.url())", "passwordFile": "imap-password", "interval": "1s", "user": "alice"},
              {"imap": "\(dovecot.url("INBOX").replacingOccurrences(of: "driver@", with: "nobody@"))", "passwordFile": "wrong-password"}
            ]}
            """.utf8))
        let store = dir.path("serve/receipts.sqlite")
        #expect(try await ReceiptsCLI.run(["user", "add", "alice", "--store", store]).status == 0)
        let server = try await ServeCommandTests.Server(store: store, arguments: ["--mail-config", config])
        var listed = JSONValue.null
        #expect(try await ServeCommandTests.until(timeout: 120) {
            listed = try await server.json("GET", "/v1/receipts").1
            return listed["receipts"]?.arrayValue?.first?["ocrStatus"]?.stringValue == "completed"
        }, "\(listed)")
        Self.check(listed["receipts"]?.arrayValue?.first, against: try Self.expected("parking-app-jsonld"), "parking-app-jsonld")
        #expect(listed["receipts"]?.arrayValue?.first?["owner"]?.stringValue == "alice", "the mailbox's receipts are its user's")
        var ready = JSONValue.null
        #expect(try await ServeCommandTests.until(timeout: 60) {
            ready = try await server.json("GET", "/readyz").1
            return ready["mail"]?.arrayValue?.map { $0["state"]?.stringValue ?? "" } == ["ok", "failing"]
        }, "\(ready)")
        #expect(ready["status"]?.stringValue == "ready", "a mailbox that fails does not make the server unready")
        #expect(ready["mail"]?.arrayValue?.last?["error"]?.stringValue?.contains("the server refused the user name or password") == true)
        #expect(try await server.stop())
    }
}
