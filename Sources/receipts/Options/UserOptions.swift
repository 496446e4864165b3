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

    func scope(_ store: any ServerStore) async throws -> Scope {
        guard let name = user else { return .everyone }
        guard let found = try await store.user(named: name) else {
            throw ReceiptError(.notFound, "--user \(name): no such user in \(store.location) (see `receipts user list`)")
        }
        return found.isAdmin ? .everyone : .user(found.name)
    }

    /// Who a change made on the command line is by: the user named, else the store's first
    /// administrator.
    func author(_ store: any ServerStore) async throws -> ChangeAuthor {
        if let user { return ChangeAuthor(user: user) }
        return ChangeAuthor(user: try await store.firstAdmin().name)
    }

    /// Throws unless the user named may change `receipt` (`delete`: remove it): its owner, an
    /// administrator, or (not for deleting) an editor of its group.
    func checkMayChange(_ receipt: Receipt, _ store: any ServerStore, deleting: Bool = false) async throws {
        guard let name = user, let found = try await store.user(named: name), !found.isAdmin, receipt.ownership.owner != name else { return }
        var role: GroupRole?
        if let group = receipt.ownership.group { role = try await store.memberships(ofUser: name)[group] }
        guard deleting || role != .editor else { return }
        throw ReceiptError(.invalidState, "\(name) may \(role == nil ? "not change" : "view, not \(deleting ? "delete" : "change"),") "
                           + "receipt \(receipt.id.uuidString.lowercased()) (\(receipt.ownership.owner)'s)")
    }
}
