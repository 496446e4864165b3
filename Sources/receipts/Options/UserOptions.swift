import ArgumentParser
import Foundation
import ReceiptKit
import ReceiptServerStore

/// `--user NAME` of the commands that file receipts (`process`, `watch`): whose they become.
struct FilingUserOptions: ParsableArguments {
    @Option(name: .customLong("user"), help: ArgumentHelp(
        "File the receipts as this user (see `receipts user list`); they go to the user's default group, if any. "
            + "Default: the store's first administrator.", valueName: "NAME"))
    var user: String?

    func validate() throws {
        if let user, let problem = Ownership.nameProblem(user) { throw ValidationError("--user \(Ownership.quotedForMessage(user)) is not a user name: \(problem).") }
    }

    /// Whose the receipts are: the user named (who must exist), in their default group.
    func ownership(_ store: any ServerStore) async throws -> Ownership {
        try await Self.ownership(ofUser: user, in: store)
    }

    /// Whose receipts filed for `name` are (nil: the store's first administrator): that user's, in
    /// their default group. `.notFound` naming the user when there is none.
    static func ownership(ofUser name: String?, in store: any ServerStore) async throws -> Ownership {
        let user: User
        if let name {
            guard let found = try await store.user(named: name) else {
                throw ReceiptError(.notFound, "--user \(name): no such user in \(store.location); add one with `receipts user add \(name)`")
            }
            user = found
        } else {
            user = try await store.firstAdmin()
        }
        return Ownership(owner: user.name, group: user.defaultGroup)
    }
}

/// `--user NAME` of the commands that read and change receipts (`list`, `show`, `export`,
/// `expense`, `expenses`, `retry`, `delete`): only what that user may see (their receipts and
/// their groups'; everything for an administrator). Without it, every receipt, as an
/// administrator sees them: the command line is the store's owner's.
struct ReadingUserOptions: ParsableArguments {
    @Option(name: .customLong("user"), help: ArgumentHelp(
        "Only what this user may see: their receipts and their groups' (an administrator sees all). Default: every receipt.",
        valueName: "NAME"))
    var user: String?

    func validate() throws {
        if let user, let problem = Ownership.nameProblem(user) { throw ValidationError("--user \(Ownership.quotedForMessage(user)) is not a user name: \(problem).") }
    }

    /// Who the command acts as, read once: the user named (what they may see and change), else the
    /// store's first administrator (every receipt).
    func principal(_ store: any ServerStore) async throws -> Principal {
        guard let name = user else { return .administrator(try await store.firstAdmin().name) }
        guard let found = try await store.user(named: name) else {
            throw ReceiptError(.notFound, "--user \(name): no such user in \(store.location) (see `receipts user list`)")
        }
        return try await store.principal(of: found)
    }

    /// The store as the command's principal may use it (see `principal`).
    func scoped(_ store: any ServerStore) async throws -> ScopedStore {
        store.scoped(to: try await principal(store))
    }
}
