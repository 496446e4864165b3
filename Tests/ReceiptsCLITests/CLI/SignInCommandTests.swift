import Foundation
import Testing
import ReceiptServerStore
import ReceiptStorage
@testable import TestHelpers

/// `receipts user invite|invitations|password|sessions` and `user remove`'s refusal: the real
/// binary against a real SQLite store. Passwords are hashed with libsodium's minimum limits here
/// (`--password-cost minimum`): what is tested is the asking, not the cost. What the server does
/// with all of it: ReceiptServerTests' SignInRoutesTests, and scripts/browser-test.
@Suite struct SignInCommandTests {
    func cli(_ arguments: [String], _ dir: TemporaryDirectory) async throws -> ReceiptsCLI.Result {
        try await ReceiptsCLI.run(arguments + ["--store", dir.storePath])
    }

    /// `command` in a shell, its standard input from `input` (each line after a pause, so the program
    /// has turned the terminal's echo off before it is typed), on a pseudo-terminal when `terminal`.
    func shell(_ command: String, input: [String], terminal: Bool) async throws -> ReceiptsCLI.Result {
        let typed = input.map { "sleep 1; printf '%s\\n' '\($0)'" }.joined(separator: "; ")
        let run = terminal ? "script -qfec \"exec \(command)\" /dev/null" : command
        return try await ReceiptsCLI.runProgram("/bin/sh", ["-c", "(\(typed); sleep 1) | \(run)"])
    }

    @Test func anInvitationIsALinkAndOnATerminalItsQRCode() async throws {
        let dir = try TemporaryDirectory()
        #expect(try await cli(["user", "add", "carol"], dir).status == 0)
        let noAddress = try await cli(["user", "invite", "carol"], dir)
        #expect(noAddress.status != 0 && noAddress.err.contains("--base-url"), "\(noAddress.err)")
        let nobody = try await cli(["user", "invite", "nobody", "--base-url", "http://localhost:8080"], dir)
        #expect(nobody.status != 0 && nobody.err.contains("no user named 'nobody'"), "\(nobody.err)")
        #expect(try await cli(["user", "invite", "carol", "--base-url", "ftp://x"], dir).status == 2)

        // Not a terminal: the link alone (for a script), its secret nowhere in the store.
        let plain = try await cli(["user", "invite", "carol", "--base-url", "https://receipts.example.com/", "--expires", "2h"], dir)
        let link = plain.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(plain.status == 0 && link.hasPrefix("https://receipts.example.com/invite/inv_") && !link.contains("\n"), "\(plain)")
        let stored = try String(contentsOfFile: dir.storePath, encoding: .isoLatin1)
        #expect(!stored.contains(String(link.split(separator: "/").last!)))

        // The address kept by `serve --public-url`; on a terminal, a QR code of the link above it.
        try await SQLiteReceiptStore(path: dir.storePath).setPublicURL("http://localhost:8080")
        let shown = try await ReceiptsCLI.runInTerminal(["user", "invite", "carol", "--store", dir.storePath])
        let lines = shown.out.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let code = lines.filter { $0.contains("▀") || $0.contains("▄") || $0.contains("█") }
        #expect(shown.status == 0 && code.count >= 14 && lines.contains { $0.hasPrefix("http://localhost:8080/invite/inv_") }, "\(shown.out)")
        let widths = Set(code.map { $0.replacingOccurrences(of: "\u{1B}[97;40m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "").count })
        #expect(widths.count == 1 && (widths.first ?? 0) >= 29, "every line of the code as wide, a QR code's 21 modules and its margins: \(widths)")

        let listed = try await cli(["user", "invitations", "carol"], dir)
        let rows = listed.out.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(rows.count == 2 && rows.allSatisfy { $0[1] == "carol" && $0[2] == "open" && $0[5] == "cli" }, "\(listed.out)")
        #expect(try await cli(["user", "invitations", "--revoke", rows[0][0]], dir).status == 0)
        #expect(try await cli(["user", "invitations"], dir).out.contains("\trevoked\t"))
    }

    @Test func aPasswordIsAskedTwiceOnATerminalAndNeverShown() async throws {
        let dir = try TemporaryDirectory()
        #expect(try await cli(["user", "add", "carol"], dir).status == 0)
        let command = "\(ReceiptsCLI.binary.path) user password carol --password-cost minimum --store \(dir.storePath)"
        let differ = try await shell(command, input: ["first secret 1", "second secret 2"], terminal: true)
        #expect(differ.status != 0 && differ.out.contains("differ") && !differ.out.contains("secret"), "\(differ.out)")
        #expect(try await SQLiteReceiptStore(path: dir.storePath).passwordHash(user: "carol") == nil)

        let typed = try await shell(command, input: ["tr0ub4dor&3", "tr0ub4dor&3"], terminal: true)
        #expect(typed.status == 0 && typed.out.contains("New password for carol:") && typed.out.contains("Again:"), "\(typed.out)")
        #expect(!typed.out.contains("tr0ub4dor"), "the password is not echoed: \(typed.out)")
        let hash = try #require(try await SQLiteReceiptStore(path: dir.storePath).passwordHash(user: "carol"))
        #expect(hash.hasPrefix("$argon2id$") && !hash.contains("tr0ub4dor"))

        // From a pipe: its first line; too short is refused and changes nothing.
        let short = try await shell(command, input: ["short"], terminal: false)
        #expect(short.status != 0 && short.err.contains("at least 8"), "\(short.err)")
        #expect(try await SQLiteReceiptStore(path: dir.storePath).passwordHash(user: "carol") == hash)
        let piped = try await shell(command, input: ["correct horse battery"], terminal: false)
        let changed = try await SQLiteReceiptStore(path: dir.storePath).passwordHash(user: "carol")
        #expect(piped.status == 0 && changed != hash)

        // The last way in goes only on purpose; so does a user who signs in as a person.
        let last = try await cli(["user", "password", "carol", "--remove"], dir)
        #expect(last.status != 0 && last.err.contains("last way to sign in"), "\(last.err)")
        let remove = try await cli(["user", "remove", "carol"], dir)
        #expect(remove.status != 0 && remove.err.contains("a password") && remove.err.contains("--force"), "\(remove.err)")
        #expect(try await cli(["user", "password", "carol", "--remove", "--force"], dir).status == 0)
        #expect(try await cli(["user", "remove", "carol"], dir).status == 0)
    }

    @Test func sessionsAreListedAndEndedFromTheCommandLine() async throws {
        let dir = try TemporaryDirectory()
        #expect(try await cli(["user", "add", "carol"], dir).status == 0)
        let store = try SQLiteReceiptStore(path: dir.storePath)
        let now = Date()
        for (id, device) in [("aaaaaaaaaaaa", "iPhone Safari"), ("bbbbbbbbbbbb", "Mac Firefox"), ("cccccccccccc", "Android Chrome")] {
            try await store.addSession(WebSession(id: id, user: "carol", method: "passkey", createdAt: now, lastUsedAt: now,
                                                  expiresAt: now.addingTimeInterval(3600), device: device, address: "192.0.2.7"),
                                       secretHash: APIToken.hash(id))
        }
        let listed = try await cli(["user", "sessions", "carol"], dir)
        let rows = listed.out.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(rows.count == 3 && rows.allSatisfy { $0.count == 7 && $0[2] == "192.0.2.7" && $0[3] == "passkey" }, "\(listed.out)")
        #expect(Set(rows.map { $0[1] }) == ["iPhone Safari", "Mac Firefox", "Android Chrome"])
        let revoked = try await cli(["user", "sessions", "carol", "--revoke", "bbbbbbbbbbbb"], dir)
        #expect(revoked.status == 0 && revoked.err.contains("ended"))
        #expect(!(try await cli(["user", "sessions", "carol"], dir)).out.contains("Mac Firefox"))
        #expect(try await cli(["user", "sessions", "carol", "--revoke", "bbbbbbbbbbbb"], dir).status != 0)
        let removal = try await cli(["user", "remove", "carol"], dir)
        #expect(removal.status != 0 && removal.err.contains("signed in on 2 browsers"), "\(removal.err)")
        let all = try await cli(["user", "sessions", "carol", "--all"], dir)
        #expect(all.status == 0 && all.err.contains("2 sessions"))
        #expect(try await cli(["user", "sessions", "carol"], dir).out.isEmpty)
        #expect(try await cli(["user", "sessions", "carol", "--all", "--revoke", "x"], dir).status == 2)
    }
}
