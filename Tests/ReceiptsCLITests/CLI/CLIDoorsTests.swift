import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// What a new user met on the command line (issue 29, items 7, 14, 15, 16, 18 and the backend's
/// wishes), on the real `receipts` binary with real OCR.
@Suite(.serialized) struct CLIDoorsTests {
    /// Item 7: a store named with another scheme is refused, naming the schemes; nothing is created
    /// and the password is never printed.
    @Test(arguments: ["postgress://user:Pw-Secret-1@db.example/receipts", "mysql://user:Pw-Secret-1@db.example/receipts",
                      "sqlite3://x.sqlite"])
    func aMistypedStoreURLIsAUsageError(url: String) async throws {
        let dir = try TemporaryDirectory()
        let result = try await ReceiptsCLI.run(["list", "--store", url], currentDirectory: dir.url.path)
        #expect(result.status == 2, "\(result.err)")
        #expect(result.err.contains("is not a kind of store") && result.err.contains("postgres://") && result.err.contains("file:///PATH"),
                "\(result.err)")
        #expect(!result.err.contains("Pw-Secret-1"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).isEmpty, "no folder named after the URL")
        // A file URL is a SQLite store.
        let file = try await ReceiptsCLI.run(["list", "--format", "ndjson", "--store", "file://" + dir.path("store.sqlite")])
        #expect(file.status == 0, "\(file.err)")
        #expect(FileManager.default.fileExists(atPath: dir.path("store.sqlite")))
    }

    /// Item 15: a missing path, or a folder without images, is exit 2 naming it, with nothing stored.
    @Test func aPathWithoutReceiptsIsAUsageErrorAndNothingIsStored() async throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path("empty"), withIntermediateDirectories: true)
        try dir.write("empty/notes.txt", Data("not a receipt".utf8))
        let empty = try await ReceiptsCLI.run(["process", dir.path("empty"), "--store", dir.storePath])
        #expect(empty.status == 2, "\(empty.err)")
        #expect(empty.err.contains("no receipt images found in \(dir.path("empty"))"))
        let missing = try await ReceiptsCLI.run(["process", ReceiptsCLI.testReceipt("uk-parking.jpg"), "/nonexistent/IMG_0042.jpg",
                                                 "--store", dir.storePath])
        #expect(missing.status == 2)
        #expect(missing.err.contains("/nonexistent/IMG_0042.jpg: no such file or folder"), "\(missing.err)")
        let listed = try await ReceiptsCLI.run(["list", "--format", "ndjson", "--store", dir.storePath])
        #expect(listed.out.isEmpty, "nothing stored: \(listed.out)")
    }

    /// Item 14: a table shows the end of long paths (relative to the folder given) and an error's cause.
    @Test func aTableShowsTheUsefulEndOfPathsAndTheCauseOfErrors() async throws {
        let dir = try TemporaryDirectory()
        let folder = "scans-from-the-office-scanner-2024"
        let long = "\(folder)/uk-parking-castlegate-ticket-scanned-0001.jpg"
        try dir.write(long, try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg"))))
        try dir.write("\(folder)/broken-scan-0002.jpg", try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("bad/text.jpg"))))
        let result = try await ReceiptsCLI.runInTerminal(["process", dir.path(folder), "--store", dir.storePath, "--format", "table"])
        #expect(result.status == 1)
        let screen = TerminalScreen(result.out, columns: 400).lines
        let good = try #require(screen.first { $0.contains("CASTLEGATE") }, "\(screen)")
        #expect(good.hasPrefix("…") && good.contains("ticket-scanned-0001.jpg"), "the end of the name shows: \(good)")
        let bad = try #require(screen.first { $0.contains("broken-scan-0002.jpg") }, "\(screen)")
        #expect(bad.contains("not an image"), "the cause shows: \(bad)")
        #expect(!bad.contains(dir.path(folder)), "\(bad)")
        // And `list` does the same.
        let list = try await ReceiptsCLI.runInTerminal(["list", "--status", "failed", "--store", dir.storePath, "--format", "table"])
        let row = try #require(TerminalScreen(list.out, columns: 400).lines.first { $0.contains("failed") }, "\(list.out)")
        #expect(row.contains("broken-scan-0002.jpg") && row.contains("not an image"), "\(row)")
    }

    /// Items 15 and 16 and the backend's wishes: `process --no-work` only submits; `worker -v` logs
    /// a line per receipt with the id as the API prints it (lowercase); `process` ends with a summary.
    @Test func submitHereReadThereAndEachReceiptIsLogged() async throws {
        let dir = try TemporaryDirectory()
        let files = ["uk-parking.jpg", "us-diner.jpg"].map(ReceiptsCLI.testReceipt)
        let submitted = try await ReceiptsCLI.run(["process", "--no-work", "--format", "ndjson", "--store", dir.storePath] + files)
        #expect(submitted.status == 0, "\(submitted.err)")
        let records = try submitted.ndjson()
        #expect(records.count == 2 && records.allSatisfy { $0["ocrStatus"] == .string("pending") && $0["attempts"] == .number("0") })
        #expect(submitted.err.contains("2 receipts: 0 completed (0 flagged for review), 0 failed, 2 submitted for other workers"), "\(submitted.err)")

        let worker = Process()
        let errors = try CapturedOutput()
        worker.executableURL = ReceiptsCLI.binary
        worker.environment = ReceiptsCLI.environment()
        worker.arguments = ["worker", "--store", dir.storePath, "--workers", "1", "-v"]
        worker.standardOutput = FileHandle.nullDevice
        worker.standardError = errors.handle
        try worker.run()
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        #expect(try await ServeCommandTests.until(timeout: 120) { errors.text.components(separatedBy: "Receipt completed").count == 3 },
                "\(errors.text)")
        kill(worker.processIdentifier, SIGTERM)
        try await OffPool.run { worker.waitUntilExit() }
        for record in records {
            let id = try #require(record["receiptId"]?.stringValue)
            #expect(errors.text.contains("receipt.id=\(id)"), "\(errors.text)")
        }
        // An upper-case letter anywhere in a logged id (an id of digits only is both cases at once).
        #expect(errors.text.range(of: #"receipt\.id=[0-9a-fA-F-]*[A-F]"#, options: .regularExpression) == nil, "upper-case ids: \(errors.text)")

        // Read here: a summary line with what was flagged and how long it took.
        let again = try await ReceiptsCLI.run(["process", "--force", "--format", "ndjson", "--store", dir.path("other.sqlite")] + files)
        #expect(again.err.range(of: #"2 receipts: 2 completed \(\d flagged for review\), 0 failed, in \d+\.\d s"#,
                                options: .regularExpression) != nil, "\(again.err)")
    }

    /// Item 16: `watch -q` still shows a receipt that failed (an error), with its cause.
    @Test func watchQuietStillShowsFailures() async throws {
        let dir = try TemporaryDirectory()
        try dir.write("in/broken.jpg", try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("bad/text.jpg"))))
        let result = try await ReceiptsCLI.run(["watch", dir.path("in"), "--once", "-q", "--stable", "0", "--store", dir.storePath])
        #expect(result.status == 1)
        let line = try #require(result.err.split(separator: "\n").first { $0.contains("Receipt filed") }, "\(result.err)")
        #expect(line.contains(" error receipts.watch:") && line.contains("receipt.status=failed"), "\(line)")
        #expect(result.err.contains("not an image"), "\(result.err)")
    }

    /// Item 16: `serve -v` logs each receipt; it says when it stops; a webhook not delivered names
    /// its receipt and delivery, and a stop says how many deliveries wait in the store for the next start.
    @Test func serveLogsItsStopAndWhichWebhookWasNotDelivered() async throws {
        let dir = try TemporaryDirectory()
        let receiver = try ScriptedHTTPServer([.json(503, "{}")])
        defer { receiver.stop() }
        let server = try await ServeCommandTests.Server(
            store: dir.storePath, arguments: ["--webhook", "http://127.0.0.1:\(receiver.port)/down", "--webhook-retry-delay", "60", "-v"],
            environment: ["RECEIPTS_WEBHOOK_SECRET": "s"])
        let (_, record) = try await server.upload("uk-parking.jpg", wait: 60)
        let id = try #require(record["receiptId"]?.stringValue)
        // The first attempt is answered 503; the next is a minute away when the stop comes.
        #expect(try await eventually(timeout: 30) { !receiver.requests.isEmpty })
        #expect(try await server.stop(SIGTERM))
        let log = server.stderr.text
        let failure = try #require(log.split(separator: "\n").first { $0.contains("Webhook not delivered yet; retrying with backoff") }, "\(log)")
        #expect(failure.contains("receipt.id=\(id)") && failure.contains("webhook.attempt=1") && failure.contains("webhook.delivery_id="),
                "\(failure)")
        #expect(log.contains("Webhook deliveries left pending in the store; they are sent after the next start") && log.contains("webhook.pending=1"),
                "\(log)")
        #expect(log.contains("Stopped"), "\(log)")
        // -v: a line per receipt, its id as the API prints it.
        let line = try #require(log.split(separator: "\n").first { $0.contains("Receipt completed") }, "\(log)")
        #expect(line.contains("receipt.id=\(id)") && line.contains("receipt.total=7.50"), "\(line)")
    }

    /// Item 18 on the command line.
    @Test func theSmallerThings() async throws {
        let dir = try TemporaryDirectory()
        // A revoked token's name can be used again.
        for step in [["token", "create", "--name", "app"], ["token", "revoke", "app"], ["token", "create", "--name", "app"]] {
            let result = try await ReceiptsCLI.run(step + ["--store", dir.storePath])
            #expect(result.status == 0, "\(step): \(result.err)")
        }
        // A missing secret file is named as such.
        let secret = try await ReceiptsCLI.run(["serve", "--port", "0", "--store", dir.storePath, "--webhook", "http://127.0.0.1:9/h",
                                                "--webhook-secret-file", "/nonexistent/secret"])
        #expect(secret.status == 2 && secret.err.contains("--webhook-secret-file /nonexistent/secret: no such file"), "\(secret.err)")
        // A port in use is named.
        let first = try await ServeCommandTests.Server(store: dir.storePath)
        let port = try #require(first.base.port)
        let second = try await ReceiptsCLI.run(["serve", "--port", "\(port)", "--store", dir.path("second.sqlite")])
        #expect(second.status == 2 && second.err.contains("cannot listen on 127.0.0.1:\(port)"), "\(second.err)")
        #expect(try await first.stop())
        // An export that cannot be written is exit 1, naming the file.
        let export = try await ReceiptsCLI.run(["export", "-o", "/nonexistent/x.csv", "--store", dir.storePath])
        #expect(export.status == 1 && export.err.contains("/nonexistent/x.csv: cannot write the export"), "\(export.err)")
        // --help says what the server serves; --version answers.
        let help = try await ReceiptsCLI.run(["serve", "--help"])
        for route in ["PATCH  /v1/expenses/{id}", "/v1/expenses/export.csv", "GET    /v1/expenses/{id}", "force=true"] {
            #expect(help.out.contains(route), "\(route)")
        }
        let version = try await ReceiptsCLI.run(["--version"])
        #expect(version.status == 0 && version.out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3, "\(version.out)")
    }

    /// The backend's wishes on the command line: correct and confirm an expense, see the
    /// corrections, and delete a receipt (a confirmed one only with --force).
    @Test func expensesAreCorrectedConfirmedAndDeletedFromTheCommandLine() async throws {
        let dir = try TemporaryDirectory()
        let processed = try await ReceiptsCLI.run(["process", ReceiptsCLI.testReceipt("uk-parking.jpg"), "--format", "ndjson", "--store", dir.storePath])
        let receiptId = try #require(try processed.ndjson().first?["receiptId"]?.stringValue)
        let prefix = String(receiptId.prefix(8))
        let bad = try await ReceiptsCLI.run(["expense", "edit", prefix, "--amount", "1e3", "--store", dir.storePath])
        #expect(bad.status == 2 && bad.err.contains("--amount is not a plain decimal"), "\(bad.err)")
        let unknown = try await ReceiptsCLI.run(["expense", "edit", prefix, "--category", "Groceries", "--store", dir.storePath])
        #expect(unknown.status == 2 && unknown.err.contains("--category must be one of"), "\(unknown.err)")
        let edited = try await ReceiptsCLI.run(["expense", "edit", prefix, "--amount", "8.00", "--category", "fuel", "--store", dir.storePath])
        #expect(edited.status == 0, "\(edited.err)")
        let expense = try JSONValue.parse(edited.out)
        #expect(expense["expense"]?["amount"] == .number("8.00") && expense["expense"]?["category"] == .string("Fuel"))
        #expect(expense["expense"]?["isTaxDeductible"] == .bool(true) && expense["corrections"]?["amount"] == .number("7.50"))
        #expect(try await ReceiptsCLI.run(["expense", "confirm", prefix, "--store", dir.storePath]).status == 0)
        let shown = try JSONValue.parse(try await ReceiptsCLI.run(["show", prefix, "--store", dir.storePath]).out)
        #expect(shown["expense"]?["status"] == .string("confirmed") && shown["corrections"]?["category"] == .string("Other"), "\(shown)")

        let kept = try await ReceiptsCLI.run(["delete", prefix, "--store", dir.storePath])
        #expect(kept.status == 1 && kept.err.contains("--force"), "\(kept.err)")
        let deleted = try await ReceiptsCLI.run(["delete", prefix, "--force", "--store", dir.storePath])
        #expect(deleted.status == 0, "\(deleted.err)")
        #expect(try await ReceiptsCLI.run(["list", "--format", "ndjson", "--store", dir.storePath]).out.isEmpty)
    }
}
