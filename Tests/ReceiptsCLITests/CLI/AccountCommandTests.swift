import Foundation
import Testing
@testable import TestHelpers

/// `receipts user`, `group` and `token` as a new user meets them: a name that cannot be a name is
/// refused naming what is wrong (a control character shown as `\x01`, not let through to the
/// terminal), a name with a space is quoted where a command suggests it, a plain user's token says
/// it is not an administrator's, lists have a header on a terminal, and every error starts
/// `receipts: error:`.
@Suite struct AccountCommandTests {
    @Test func aNameWithAControlCharacterIsRefusedNamingTheCharacter() async throws {
        let dir = try TemporaryDirectory()
        let user = try await ReceiptsCLI.run(["user", "add", "ctl\u{01}x", "--store", dir.storePath])
        #expect(user.status == 2, "\(user)")
        #expect(user.err.hasPrefix(#"receipts: error: 'ctl\x01x' is not a valid user name: it holds the control character \x01"#), "\(user.err)")
        #expect(!user.err.contains("\u{01}"), "the control character itself is not printed")
        #expect(user.err.contains("Usage: receipts user add"), "\(user.err)")
        let group = try await ReceiptsCLI.run(["group", "add", "a\tb", "--store", dir.storePath])
        #expect(group.status == 2, "\(group)")
        #expect(group.err.hasPrefix(#"receipts: error: 'a\x09b' is not a valid group name: it holds the control character \x09"#), "\(group.err)")
        let delete = try await ReceiptsCLI.run(["user", "add", "del\u{7f}", "--store", dir.storePath])
        #expect(delete.status == 2 && delete.err.contains(#"\x7f"#), "\(delete.err)")
        let listed = try await ReceiptsCLI.run(["user", "list", "--store", dir.storePath])
        #expect(listed.out.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) } == ["admin"], "nothing was added")
    }

    @Test func aNameWithASpaceIsTakenAndQuotedInTheCommandItSuggests() async throws {
        let dir = try TemporaryDirectory()
        let added = try await ReceiptsCLI.run(["user", "add", "Smith family", "--store", dir.storePath])
        #expect(added.status == 0, "\(added.err)")
        #expect(added.err.contains("receipts token create --name NAME --user 'Smith family'"), "\(added.err)")
        let token = try await ReceiptsCLI.run(["token", "create", "--name", "t", "--user", "Smith family", "--store", dir.storePath])
        #expect(token.status == 0, "the suggested command works: \(token.err)")
    }

    @Test func aPlainUsersTokenSaysItIsNotAnAdministrators() async throws {
        let dir = try TemporaryDirectory()
        #expect(try await ReceiptsCLI.run(["user", "add", "alice", "--store", dir.storePath]).status == 0)
        let hers = try await ReceiptsCLI.run(["token", "create", "--name", "phone", "--user", "alice", "--store", dir.storePath])
        #expect(hers.status == 0, "\(hers.err)")
        #expect(hers.err.contains("created for alice, a user: scopes admin (on what alice may see and change only")
                && hers.err.contains("not an administrator's"), "\(hers.err)")
        let admins = try await ReceiptsCLI.run(["token", "create", "--name", "ops", "--store", dir.storePath])
        #expect(admins.err.contains("created for admin, an administrator: scopes admin (on every receipt"), "\(admins.err)")
    }

    /// On a terminal a list starts with its column names; piped, it is the rows alone (as scripts
    /// read it).
    @Test func listsHaveAHeaderOnATerminalAndNoneInAPipe() async throws {
        let dir = try TemporaryDirectory()
        #expect(try await ReceiptsCLI.run(["token", "create", "--name", "t", "--store", dir.storePath]).status == 0)
        #expect(try await ReceiptsCLI.run(["group", "add", "home", "--member", "admin", "--store", dir.storePath]).status == 0)
        for (command, header) in [("user", "name\trole\tdefault group\tgroups\treceipts\ttokens"),
                                  ("token", "name\tcreated\tstate\tscopes\texpires\tlast used\trate limit\tuser"),
                                  ("group", "name\tmembers\treceipts")] {
            let terminal = try await ReceiptsCLI.runInTerminal([command, "list", "--store", dir.storePath])
            let lines = terminal.out.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
            #expect(lines.first == header, "\(command) list on a terminal: \(lines)")
            #expect(lines.count == 2, "\(command) list: a header and one row: \(lines)")
            let piped = try await ReceiptsCLI.run([command, "list", "--store", dir.storePath])
            #expect(piped.out.split(separator: "\n").count == 1 && !piped.out.hasPrefix("name\t"), "\(command) list piped: \(piped.out)")
        }
    }

    /// Usage errors found by the parser and those found by a command's checks, and errors found
    /// when it runs, all start the same way.
    @Test func everyErrorStartsReceiptsError() async throws {
        let dir = try TemporaryDirectory()
        for arguments in [["user", "add", "a/b"], ["token", "create", "--name", " "], ["user", "remove", "nobody"],
                          ["token", "create", "--name", "x", "--scope", "write"], ["group", "member", "home", "x:boss"]] {
            let result = try await ReceiptsCLI.run(arguments + ["--store", dir.storePath])
            #expect(result.status != 0)
            #expect(result.err.hasPrefix("receipts: error: "), "\(arguments): \(result.err)")
            #expect(!result.err.contains("Error: "), "\(arguments): \(result.err)")
        }
    }
}
