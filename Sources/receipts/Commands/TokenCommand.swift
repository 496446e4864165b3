import ArgumentParser
import Foundation
import ReceiptKit
import ReceiptServerStore

/// `receipts token create|list|revoke`: API tokens for `receipts serve`.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Create, list and revoke the API tokens `receipts serve` asks for.",
        discussion: """
            A token is printed once, when it is created; the store keeps only its SHA-256. Once any \
            token is active (not revoked; an expired one counts), every /v1 route needs \
            `Authorization: Bearer <token>`, and the server may listen on addresses other than loopback.

            A token belongs to a user (--user, default: the store's first administrator) and sees and \
            changes only what that user may (`receipts user`, `receipts group`); its scopes limit what \
            it does within that.

            Scopes (--scope, comma-separated), each route's is in /openapi.yaml (x-required-scope):
              read     GET /v1/receipts…, images, pages, thumbnails, /v1/expenses…, the CSV export, the review pages
              upload   POST /v1/receipts, POST /v1/analyze (not reading: a scanner may only drop receipts in)
              review   PATCH /v1/expenses/{id} (correct, confirm), POST /v1/receipts/{id}/retry; grants read
              admin    everything, DELETE /v1/receipts/{id} too; grants every scope but act-as (the default, \
            and what tokens made before scopes existed have)
              act-as   a backend's service token: it may name an end user of its own with the header \
            Receipts-External-User: ID, and then uploads and sees only that end user's receipts
            A route the token's scopes do not grant is answered 403 naming the scope; an expired token 401.

            Examples:
              receipts token create --name scanner --user alice --scope upload --expires 90d
              receipts token create --name bookkeeper --user carol --scope review --rate-limit 120/min
              receipts token create --name app-backend --user backend --scope admin,act-as
              receipts token list
            """,
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a token and print it (once).")
        @Option(help: "A name for the token (who or what uses it).")
        var name: String
        @Option(help: ArgumentHelp("The user it acts for (see `receipts user list`); default: the store's first administrator.",
                                   valueName: "NAME"))
        var user: String?
        @Option(help: ArgumentHelp("What it may do: read, upload, review, admin, act-as, comma-separated (admin grants all but act-as; review grants read).",
                                   valueName: "SCOPES"))
        var scope = "admin"
        @Option(help: ArgumentHelp("When it stops working: a duration from now (90d, 12h, 2w, 30min), a date (2027-01-31: "
                                       + "the end of that day, UTC) or an ISO 8601 time. Default: never.", valueName: "WHEN"))
        var expires: String?
        @Option(name: .customLong("rate-limit"), help: ArgumentHelp(
            "Requests it may send (600/min, 10/s, 5000/hour), or off for no limit; default: receipts serve's --rate-limit.",
            valueName: "N/PERIOD"))
        var rateLimit: String?
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--name must not be empty.") }
            do {
                _ = try TokenPermission.parse(scope)
            } catch let error as ReceiptError {
                throw ValidationError("--scope: \(error.message).")
            }
            if let expires {
                do { _ = try APIToken.expiry(expires, now: Date()) } catch let error as ReceiptError { throw ValidationError("\(error.message).") }
            }
            if let rateLimit {
                do { _ = try RateLimit.parse(rateLimit) } catch let error as ReceiptError { throw ValidationError("--rate-limit: \(error.message).") }
            }
        }

        func run() async throws {
            let store = try await TokenCommand.open(storeOptions)
            let now = Date()
            try await exitingOnReceiptError {
                let scopes = try TokenPermission.parse(scope)
                let expiresAt = try expires.map { try APIToken.expiry($0, now: now) }
                var owner = user ?? ""
                if user == nil { owner = try await store.firstAdmin().name }
                let secret = try await store.createToken(name: name, user: owner, scopes: scopes, expiresAt: expiresAt,
                                                         rateLimit: try rateLimit.map(RateLimit.parse), now: now)
                print(secret)
                let until = expiresAt.map { ", until " + $0.iso8601 } ?? ""
                let isAdmin = try await store.user(named: owner)?.isAdmin ?? false
                FileHandle.standardError.write(Data((TokenCommand.created(name, user: owner, isAdmin: isAdmin, scopes: scopes, until: until)
                                                     + "; it is shown only now: keep it\n").utf8))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let header = ["name", "created", "state", "scopes", "expires", "last used", "rate limit", "user"]
        static let configuration = CommandConfiguration(
            abstract: "List tokens (never the token itself), one per line, tab-separated.",
            discussion: """
                Columns: name, created, state (active, expired, revoked TIME), scopes, expires (TIME or \
                never), last used (TIME or never; noted at most once a minute per server), rate limit \
                (N/PERIOD, off, or default: receipts serve's --rate-limit), user. Times are ISO 8601, UTC.
                """)
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await TokenCommand.open(storeOptions)
            let now = Date()
            if isatty(STDOUT_FILENO) == 1 { print(Self.header.joined(separator: "\t")) }
            for token in try await store.tokens() {
                let state = token.revokedAt.map { "revoked " + $0.iso8601 } ?? (token.isExpired(at: now) ? "expired" : "active")
                print([token.name, token.createdAt.iso8601, state,
                       token.scopes.isEmpty ? "none" : TokenPermission.text(token.scopes),
                       token.expiresAt.map(\.iso8601) ?? "never",
                       token.lastUsedAt.map(\.iso8601) ?? "never",
                       token.rateLimit?.description ?? "default", token.user].joined(separator: "\t"))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token: requests carrying it are refused from now on.")
        @Argument(help: "The token's name.")
        var name: String
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await TokenCommand.open(storeOptions)
            try await exitingOnReceiptError {
                _ = try await store.revokeToken(name: name, now: Date())
                FileHandle.standardError.write(Data("token '\(name)' revoked\n".utf8))
            }
        }
    }

    /// `token 'phone' created for alice, a user: scopes admin (…)`: what the scopes reach, said so
    /// that `admin` on a plain user's token is not read as an administrator's token.
    static func created(_ name: String, user: String, isAdmin: Bool, scopes: Set<TokenPermission>, until: String) -> String {
        let reach = isAdmin ? "on every receipt: \(user) is an administrator"
            : "on what \(user) may see and change only: their own receipts and their groups'; not an administrator's"
        return "token '\(name)' created for \(user), \(isAdmin ? "an administrator" : "a user"): scopes \(TokenPermission.text(scopes))\(until) (\(reach))"
    }

    static func open(_ options: StoreOptions) async throws -> any ServerStore {
        try await options.openStore()
    }
}
