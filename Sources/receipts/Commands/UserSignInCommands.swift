import ArgumentParser
import Foundation
import ReceiptKit
import ReceiptServer
import ReceiptServerStore

/// `receipts user invite|invitations|password|sessions`: how people sign in to the review page
/// (docs/review-ui.md): a one-time link with a QR code, a password, and the devices they are on.
extension UserCommand {
    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a one-time link that signs a user in (and its QR code, on a terminal).",
            discussion: """
                The link signs the user in on the device that opens it, once, and offers to add a \
                passkey there. It is printed on standard output; on a terminal a QR code of it follows, \
                for a phone's camera. The server's address comes from --base-url, else from the last \
                `receipts serve --public-url URL` (kept in the store). A used, expired or revoked link \
                signs nobody in. `receipts user invitations` lists them and revokes one.

                Examples:
                  receipts user invite carol
                  receipts user invite carol --expires 2h --base-url https://receipts.example.com
                """)
        @Argument(help: "The user's name (they must exist: `receipts user add NAME`).")
        var name: String
        @Option(help: ArgumentHelp("How long the link works: 30min, 2h, 24h, 7d (at most 30d).", valueName: "DURATION"))
        var expires = "24h"
        @Option(name: .customLong("base-url"), help: ArgumentHelp("The address people open the server at (default: serve's --public-url, kept in the store).",
                                                                   valueName: "URL"))
        var baseURL: String?
        @Flag(inversion: .prefixedNo, help: "Print the QR code (default: only when standard output is a terminal).")
        var qr: Bool?
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            guard let seconds = DurationText.seconds(expires) else {
                throw ValidationError("--expires \(expires): give a duration longer than 0, such as 30min, 2h, 24h or 7d (at most 30d).")
            }
            guard seconds <= 30 * 86400 else {
                throw ValidationError("--expires \(expires): an invitation lasts at most 30 days (30d).")
            }
            if let baseURL {
                do { _ = try SignInConfiguration.publicURL(baseURL) } catch let error as SignInError {
                    throw ValidationError(error.description.replacingOccurrences(of: "--public-url", with: "--base-url") + ".")
                }
            }
        }

        func run() async throws {
            let store = try await storeOptions.openStore()
            try await exitingOnReceiptError {
                var base = try baseURL.map(SignInConfiguration.publicURL)
                if base == nil { base = try await store.publicURL().flatMap(URL.init(string:)) }
                guard let base else {
                    throw ReceiptError(.invalidInput, "the server's address is unknown: give --base-url URL, or start `receipts serve --public-url URL` once")
                }
                guard try await store.user(named: name) != nil else {
                    throw ReceiptError(.notFound, "no user named '\(name)' (add them first: `receipts user add \(name)`)")
                }
                let (invitation, secret) = try await makeInvitation(for: name, by: "cli", lifetime: DurationText.seconds(expires) ?? 86400, store: store)
                let link = SignInConfiguration.invitationLink(base: base, secret: secret)
                if qr ?? (isatty(STDOUT_FILENO) == 1), let code = QRCode(link) {
                    print(code.terminalText, terminator: "")
                }
                print(link)
                FileHandle.standardError.write(Data("invitation \(invitation.id) for \(name), until \(ListedTime.text(invitation.expiresAt)); it signs in once\n".utf8))
            }
        }
    }

    struct Invitations: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List invitations (never their links), one per line, tab-separated; or revoke one.",
            discussion: "Columns: ID, user, state (open, used, expired, revoked), created, expires, made by. Times are ISO 8601, UTC.")
        @Argument(help: "Only this user's.")
        var name: String?
        @Option(help: ArgumentHelp("Revoke this invitation: its link signs nobody in.", valueName: "ID"))
        var revoke: String?
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await storeOptions.openStore()
            try await exitingOnReceiptError {
                if let revoke {
                    let invitation = try await store.revokeInvitation(id: revoke, now: Date())
                    FileHandle.standardError.write(Data("invitation \(invitation.id) for \(invitation.user) revoked\n".utf8))
                    return
                }
                let now = Date()
                for invitation in try await store.invitations(user: name) {
                    print([invitation.id, invitation.user, invitation.state(at: now).rawValue, ListedTime.text(invitation.createdAt),
                           ListedTime.text(invitation.expiresAt), invitation.createdBy].joined(separator: "\t"))
                }
            }
        }
    }

    struct Password: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a user's password for the review page (asked twice, never shown), or remove it.",
            discussion: """
                On a terminal the password is asked twice and not echoed; otherwise the first line of \
                standard input is the password. It is kept as an Argon2id hash (libsodium, its moderate \
                limits: about a second and 256 MiB to make or check). At least 8 characters. Passkeys are \
                the better way in; a password is for browsers without them.

                Examples:
                  receipts user password carol
                  receipts user password carol --remove
                """)
        @Argument(help: "The user's name.")
        var name: String
        @Flag(help: "Remove the password.")
        var remove = false
        @Flag(help: "Remove it even when it is the user's last way to sign in.")
        var force = false
        @Option(name: .customLong("password-cost"), help: ArgumentHelp("Argon2id limits (tests only).", visibility: .hidden))
        var passwordCost: PasswordHasher.Cost = .moderate
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await storeOptions.openStore()
            try await exitingOnReceiptError {
                guard try await store.user(named: name) != nil else {
                    throw ReceiptError(.notFound, "no user named '\(name)' (see `receipts user list`)")
                }
                if remove {
                    let ways = try await store.waysToSignIn(user: name)
                    if ways.password, ways.passkeys == 0, ways.tokens == 0, !force {
                        throw ReceiptError(.invalidState, "the password is \(name)'s last way to sign in; add --force to remove it all the same")
                    }
                    try await store.setPasswordHash(user: name, hash: nil, now: Date())
                    FileHandle.standardError.write(Data("\(name)'s password removed\n".utf8))
                    return
                }
                let password = try Self.readPassword(for: name)
                let hash = try await PasswordHasher(cost: passwordCost).hash(password)
                try await store.setPasswordHash(user: name, hash: hash, now: Date())
                FileHandle.standardError.write(Data("\(name)'s password set; they sign in with it on the review page\n".utf8))
            }
        }

        /// On a terminal: asked twice, not echoed. Otherwise the first line of standard input.
        static func readPassword(for name: String) throws -> String {
            let password: String
            if isatty(STDIN_FILENO) == 1 {
                let first = try Terminal.readHidden("New password for \(name): ")
                let again = try Terminal.readHidden("Again: ")
                guard first == again else { throw ReceiptError(.invalidInput, "the two passwords differ; nothing was changed") }
                password = first
            } else {
                password = readLine(strippingNewline: true) ?? ""
            }
            do {
                return try PasswordHasher.check(password)
            } catch let error as PasswordHasher.PasswordError {
                throw ReceiptError(.invalidInput, "\(error.description); nothing was changed")
            }
        }
    }

    struct Sessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the browsers a user is signed in on, or sign them out.",
            discussion: """
                Columns (tab-separated): ID, device (browser and system), address, how it signed in \
                (passkey, password, invitation, token), signed in, last used, ends (unless used before). \
                Times are ISO 8601, UTC.

                Examples:
                  receipts user sessions carol
                  receipts user sessions carol --revoke 3f9a1c2b4d5e
                  receipts user sessions carol --all
                """)
        @Argument(help: "The user's name.")
        var name: String
        @Option(help: ArgumentHelp("Sign out this session.", valueName: "ID"))
        var revoke: String?
        @Flag(help: "Sign out all of the user's sessions.")
        var all = false
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            if revoke != nil, all { throw ValidationError("give --revoke ID or --all, not both.") }
        }

        func run() async throws {
            let store = try await storeOptions.openStore()
            try await exitingOnReceiptError {
                guard try await store.user(named: name) != nil else {
                    throw ReceiptError(.notFound, "no user named '\(name)' (see `receipts user list`)")
                }
                if let revoke {
                    guard try await store.endSession(id: revoke, user: name) else {
                        throw ReceiptError(.notFound, "no session of \(name) with ID '\(revoke)' (see `receipts user sessions \(name)`)")
                    }
                    FileHandle.standardError.write(Data("session \(revoke) of \(name) ended: that browser must sign in again\n".utf8))
                } else if all {
                    let ended = try await store.endSessions(user: name)
                    FileHandle.standardError.write(Data("\(ended) session\(ended == 1 ? "" : "s") of \(name) ended\n".utf8))
                } else {
                    for session in try await store.sessions(user: name, now: Date()) {
                        print([session.id, session.device, session.address ?? "-", session.method, ListedTime.text(session.createdAt),
                               ListedTime.text(session.lastUsedAt), ListedTime.text(session.expiresAt)].joined(separator: "\t"))
                    }
                }
            }
        }
    }
}

extension PasswordHasher.Cost: ExpressibleByArgument {}

/// ISO 8601 times, UTC, as the other lists print them.
enum ListedTime {
    static func text(_ date: Date) -> String { date.iso8601 }
}

/// A secret typed on the terminal: echo off while it is typed (and back on after, or on Ctrl-C).
enum Terminal {
    nonisolated(unsafe) private static var saved = termios()

    static func readHidden(_ prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { throw ReceiptError(.invalidInput, "cannot read the terminal's settings") }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        signal(SIGINT) { _ in
            tcsetattr(STDIN_FILENO, TCSANOW, &Terminal.saved)
            _exit(130)
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            signal(SIGINT, SIG_DFL)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = readLine(strippingNewline: true) else { throw ReceiptError(.invalidInput, "no password given; nothing was changed") }
        return line
    }
}
