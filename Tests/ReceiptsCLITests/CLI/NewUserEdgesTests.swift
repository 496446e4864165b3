import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// What a new user met on the command line (issue 56, items 5, 6, 8, 10 and 11), on the real
/// `receipts` binary with real OCR and a real SQLite store.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: ReceiptsCLI.binary.path)))
struct NewUserEdgesTests {
    func cli(_ arguments: [String], _ dir: TemporaryDirectory) async throws -> ReceiptsCLI.Result {
        try await ReceiptsCLI.run(arguments + ["--store", dir.storePath])
    }

    /// Every command's help, the nested ones too, found from `receipts --help` down.
    static func everyHelp() async throws -> [(command: String, text: String)] {
        var found: [(String, String)] = [], waiting: [[String]] = [[]]
        while let path = waiting.popLast() {
            let help = try await ReceiptsCLI.run(path + ["--help"])
            #expect(help.status == 0, "receipts \(path.joined(separator: " ")) --help: \(help.err)")
            found.append((path.joined(separator: " "), help.out))
            // The SUBCOMMANDS: section lists one name per line, indented.
            let lines = help.out.split(separator: "\n", omittingEmptySubsequences: false)
            guard let start = lines.firstIndex(where: { $0.hasPrefix("SUBCOMMANDS:") }) else { continue }
            for line in lines[(start + 1)...] {
                if line.isEmpty { break }
                guard let match = line.firstMatch(of: /^  ([a-z][a-z0-9-]*)(\s|$)/), match.1 != "help" else { continue }
                waiting.append(path + [String(match.1)])
            }
        }
        return found
    }

    /// Item 6: the help reads as written: no stray backslash at a line's end, the flag named as it
    /// is spelled, money's minus sign said to work, both readers named.
    @Test func theHelpHasNoStrayBackslashesAndNamesTheFlagsAsSpelled() async throws {
        let helps = try await Self.everyHelp()
        #expect(helps.count >= 30, "\(helps.map(\.command))")
        for (command, text) in helps {
            let stray = text.split(separator: "\n").filter { $0.hasSuffix("\\") }
            #expect(stray.isEmpty, "receipts \(command) --help: \(stray)")
        }
        let edit = try #require(helps.first { $0.command == "expense edit" }?.text)
        #expect(edit.contains("--no-deductible") && !edit.contains("--not-deductible"), "\(edit)")
        let top = try #require(helps.first { $0.command == "" }?.text).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(top.contains("Tesseract and a neural reader") && !top.contains("with Tesseract, finds"), "\(top)")
    }

    /// Items 6 and 11: `expense edit` takes `--amount -5`, says `none` where the API says null,
    /// names both kinds of id when one is unknown, and changes a confirmed expense only with --force.
    @Test func expenseEditTakesARefundNamesNoneAndKeepsAConfirmedExpense() async throws {
        let dir = try TemporaryDirectory()
        let processed = try await cli(["process", ReceiptsCLI.testReceipt("uk-parking.jpg"), "--format", "ndjson"], dir)
        let record = try #require(try processed.ndjson().first)
        let prefix = String(try #require(record["receiptId"]?.stringValue).prefix(8))
        let expenseId = try #require(record["expense"]?["id"]?.stringValue)

        let refund = try await cli(["expense", "edit", prefix, "--amount", "-5", "--tax-amount", "-0.83"], dir)
        #expect(refund.status == 0, "\(refund.err)")
        let refunded = try JSONValue.parse(refund.out)
        #expect(refunded["expense"]?["amount"] == .number("-5") && refunded["expense"]?["taxAmount"] == .number("-0.83"), "\(refund.out)")

        let badDate = try await cli(["expense", "edit", prefix, "--date", "14/03/2024"], dir)
        #expect(badDate.status == 2 && badDate.err.contains("or none") && !badDate.err.contains("null"), "\(badDate.err)")
        let badAmount = try await cli(["expense", "edit", prefix, "--amount", "twelve"], dir)
        #expect(badAmount.status == 2 && !badAmount.err.contains("null"), "\(badAmount.err)")

        let unknown = try await cli(["expense", "edit", "fedcba98", "--amount", "1"], dir)
        #expect(unknown.status == 1 && unknown.err.contains("neither an expense's id nor a receipt's"), "\(unknown.err)")
        let notHex = try await cli(["expense", "confirm", "nope"], dir)
        #expect(notHex.status == 1 && notHex.err.contains("neither an expense's id nor a receipt's"), "\(notHex.err)")

        #expect(try await cli(["expense", "confirm", expenseId], dir).status == 0)
        let kept = try await cli(["expense", "edit", prefix, "--amount", "9.99"], dir)
        #expect(kept.status == 1 && kept.err.contains("confirmed") && kept.err.contains("--force"), "\(kept.err)")
        let shown = try JSONValue.parse(try await cli(["show", prefix], dir).out)
        #expect(shown["expense"]?["amount"] == .number("-5"), "nothing changed: \(shown["expense"] ?? .null)")
        let forced = try await cli(["expense", "edit", prefix, "--amount", "9.99", "--force"], dir)
        let forcedAmount = try JSONValue.parse(forced.out)["expense"]?["amount"]
        #expect(forced.status == 0 && forcedAmount == .number("9.99"), "\(forced.err)")
        // Confirming again changes nothing and needs nothing more.
        #expect(try await cli(["expense", "confirm", prefix], dir).status == 0)
    }

    /// Item 6: an invitation of no time at all is refused for being no time, not for being long.
    @Test func anInvitationOfNoTimeIsRefusedForThat() async throws {
        let dir = try TemporaryDirectory()
        #expect(try await cli(["user", "add", "carol"], dir).status == 0)
        for expires in ["0s", "0", "0h"] {
            let result = try await cli(["user", "invite", "carol", "--expires", expires, "--base-url", "http://localhost:8080"], dir)
            #expect(result.status == 2 && result.err.contains("longer than 0") && !result.err.contains("at most 30 days"), "\(expires): \(result.err)")
        }
        let long = try await cli(["user", "invite", "carol", "--expires", "31d", "--base-url", "http://localhost:8080"], dir)
        #expect(long.status == 2 && long.err.contains("at most 30 days"), "\(long.err)")
    }

    /// Item 11: `receipts expenses` shows each expense's status and filters by it and by review.
    @Test func expensesShowTheirStatusAndFilterByItAndByReview() async throws {
        let dir = try TemporaryDirectory()
        // A vehicle-tax notice and a parking ticket, both flagged for review; the ticket confirmed
        // (reviewed: no longer flagged).
        let processed = try await cli(["process", ReceiptsCLI.testReceipt("uk-vehicle-tax.webp"), ReceiptsCLI.testReceipt("uk-parking.jpg"),
                                       "--format", "ndjson"], dir)
        let records = try processed.ndjson()
        #expect(records.allSatisfy { $0["expense"]?["needsReview"] == .bool(true) }, "both flagged: \(records.map { $0["expense"] ?? .null })")
        let flagged = try #require(records.first { $0["file"]?.stringValue?.hasSuffix(".webp") == true }?["expense"]?["id"]?.stringValue)
        let clear = try #require(records.first { $0["file"]?.stringValue?.hasSuffix(".jpg") == true }?["expense"]?["id"]?.stringValue)
        #expect(try await cli(["expense", "confirm", clear], dir).status == 0)

        func ids(_ arguments: [String]) async throws -> [String] {
            let result = try await cli(["expenses", "--format", "ndjson"] + arguments, dir)
            #expect(result.status == 0, "\(result.err)")
            return try result.ndjson().compactMap { $0["id"]?.stringValue }
        }
        #expect(try await ids(["--status", "confirmed"]) == [clear])
        #expect(try await ids(["--status", "draft"]) == [flagged])
        #expect(try await ids(["--needs-review"]) == [flagged])
        #expect(try await ids(["--no-needs-review"]) == [clear])
        let wrong = try await cli(["expenses", "--status", "approved"], dir)
        #expect(wrong.status == 2 && wrong.err.contains("--status"), "\(wrong.err)")

        let table = try await cli(["expenses", "--format", "table"], dir)
        let lines = table.out.split(separator: "\n")
        let header = try #require(lines.first)
        #expect(header.contains("STATUS") && header.contains("NEEDSREVIEW"), "\(table.out)")
        #expect(lines.contains { $0.contains("confirmed") } && lines.contains { $0.contains("draft") }, "\(table.out)")
    }

    /// Item 8: `process --format table` shows a failed file's whole cause, wrapped under its column.
    @Test func aTableShowsAFailedFilesWholeCause() async throws {
        let dir = try TemporaryDirectory()
        let text = ReceiptsCLI.testReceipt("bad/text.jpg")
        let result = try await cli(["process", text, ReceiptsCLI.testReceipt("uk-parking.jpg"), "--format", "table"], dir)
        #expect(result.status == 1)
        let cause = try #require(try await cli(["process", text, "--format", "ndjson"], dir).ndjson().first?["error"]?.stringValue)
        let why = try #require(cause.range(of: "not an image").map { String(cause[$0.lowerBound...]) }, "\(cause)")
        // The table's error column, its lines joined again.
        let lines = result.out.split(separator: "\n").map(String.init)
        let header = try #require(lines.first)
        let column = try #require(header.range(of: "ERROR")).lowerBound.utf16Offset(in: header)
        let shown = lines.dropFirst().filter { $0.count > column }.map { String($0.dropFirst(column)) }
        let joined = shown.joined(separator: " ")
        #expect(joined.contains(why), "the whole cause, \(why), in:\n\(result.out)")
        #expect(!shown.contains { $0.hasSuffix("…") } && !joined.contains("text.jpg"), "nothing cut, no path in the error column:\n\(result.out)")
        // The other rows stay one line each.
        #expect(lines.filter { $0.contains("uk-parking.jpg") }.count == 1, "\(result.out)")
    }

    /// Item 11: `store export --archive` keeps an existing file unless --force.
    @Test func anArchiveIsNotWrittenOverUnlessForced() async throws {
        let dir = try TemporaryDirectory()
        #expect(try await cli(["process", ReceiptsCLI.testReceipt("uk-parking.jpg"), "--format", "ndjson"], dir).status == 0)
        let archive = try dir.write("receipts.tar", Data("my own file".utf8))
        let refused = try await cli(["store", "export", "--archive", archive], dir)
        #expect(refused.status == 2 && refused.err.contains("--archive \(archive) exists") && refused.err.contains("--force"), "\(refused.err)")
        #expect(try String(contentsOfFile: archive, encoding: .utf8) == "my own file", "the file is as it was")
        let forced = try await cli(["store", "export", "--archive", archive, "--force"], dir)
        #expect(forced.status == 0 && forced.err.contains("1 receipts"), "\(forced.err)")
        let size = try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int ?? 0
        #expect(size > 1000)
    }

    /// Item 5: a restore into a store that holds records names all it holds: receipts, expenses and
    /// tokens first, then users, passwords, invitations and the rest.
    @Test func aRestoreIntoAStoreWithRecordsNamesAllItHolds() async throws {
        let dir = try TemporaryDirectory()
        let source = dir.path("source/receipts.sqlite")
        #expect(try await ReceiptsCLI.run(["process", ReceiptsCLI.testReceipt("uk-parking.jpg"), "--format", "ndjson", "--store", source]).status == 0)
        let archive = dir.path("receipts.tar")
        #expect(try await ReceiptsCLI.run(["store", "export", "--archive", archive, "--store", source]).status == 0)

        #expect(try await cli(["process", ReceiptsCLI.testReceipt("us-diner.jpg"), ReceiptsCLI.testReceipt("uk-fuel-unleaded.jpg"),
                               "--format", "ndjson"], dir).status == 0)
        #expect(try await cli(["user", "add", "carol"], dir).status == 0)
        #expect(try await cli(["user", "invite", "carol", "--base-url", "http://localhost:8080"], dir).status == 0)
        #expect(try await cli(["token", "create", "--name", "app"], dir).status == 0)
        let refused = try await ReceiptsCLI.run(["store", "restore", archive, "--to", dir.storePath])
        #expect(refused.status == 1, "\(refused.err)")
        for named in ["2 receipts", "2 expenses", "1 token", "1 user", "1 invitation"] {
            #expect(refused.err.contains(named), "\(named): \(refused.err)")
        }
        let held = try #require(refused.err.range(of: "it holds ").map { refused.err[$0.upperBound...] }, "\(refused.err)")
        let order = ["receipts", "expenses", "token", "user"].compactMap { held.range(of: $0)?.lowerBound }
        #expect(order == order.sorted(), "receipts, expenses and tokens named first: \(refused.err)")
    }
}
