import Foundation
import HTTPTypes
import ReceiptKit
import ReceiptServerStore

/// Who a request acts for: a user (through an API token or a browser session), their groups, and
/// for a service token with `act-as`, the end user it names. Read from the store on every request,
/// so a membership or a role changed with `receipts group …` applies at once.
///
/// What they may see is `scope`; someone else's receipt is answered 404 (never 403: that would say
/// it exists). A receipt they may see but not change (a group's, as a viewer) is answered 403.
struct Principal: Sendable {
    let user: User
    /// The token the request came with; nil when the server has no tokens (loopback only), and
    /// the request acts for the store's first administrator.
    let token: APIToken?
    /// `Receipts-External-User`: the end user a service token acts for.
    let externalUser: String?
    /// The user's groups and their role in each.
    let memberships: [String: GroupRole]

    static let externalUserHeader = HTTPField.Name("Receipts-External-User")!

    /// Whose receipts the request may see.
    var scope: Scope {
        if let externalUser { return .externalUser(externalUser, of: user.name) }
        return user.isAdmin ? .everyone : .user(user.name)
    }

    /// Whether the request may correct, confirm or retry `receipt` (one in `scope`): its owner, an
    /// administrator, an editor of its group, or the service acting for its end user.
    func mayChange(_ receipt: Receipt) -> Bool {
        if user.isAdmin || receipt.ownership.owner == user.name { return true }
        return receipt.ownership.group.map { memberships[$0] == .editor } ?? false
    }

    /// Whether the request may delete `receipt` (one in `scope`): its owner or an administrator
    /// (a group's editors correct its receipts; they do not remove them).
    func mayDelete(_ receipt: Receipt) -> Bool {
        user.isAdmin || receipt.ownership.owner == user.name
    }

    /// Who a correction is made by.
    var author: ChangeAuthor { ChangeAuthor(user: user.name, token: token?.name) }

    /// Whose idempotency keys the request uses.
    var keyOwner: KeyOwner { KeyOwner(user: user.name, externalUser: externalUser) }

    /// `alice`, or `svc for u-42`: for messages.
    var name: String { externalUser.map { "\(user.name) for \($0)" } ?? user.name }

    /// Whose an upload is: this user's (for the end user named), in `group` when one is named (the
    /// user must be its editor, or an administrator), else in the user's default group.
    func ownership(group: String?, metadata: JSONValue?) throws -> Ownership {
        var chosen = group
        if let group {
            guard user.isAdmin || memberships[group] != nil else { throw Problem(.notFound, "no group named '\(group)' of yours") }
            guard user.isAdmin || memberships[group] == .editor else {
                throw Problem(.forbidden, "you are a viewer of '\(group)': only its editors add receipts to it")
            }
        } else if externalUser == nil, let home = user.defaultGroup, memberships[home] != nil {
            chosen = home
        }
        return Ownership(owner: user.name, group: chosen, externalUser: externalUser, metadata: metadata)
    }

    /// The principal of a request with `token` (nil: a server without tokens, which acts for the
    /// store's first administrator) and the `Receipts-External-User` value, if any.
    static func resolve(token: APIToken?, externalUser: String?, store: any ServerStore) async throws -> Principal {
        let user: User
        if let token {
            guard let found = try await store.user(named: token.user) else {
                throw Problem(.unauthorized, "the API token '\(token.name)' belongs to no user any more; ask for a new one")
            }
            user = found
        } else {
            user = try await store.firstAdmin()
        }
        if let externalUser {
            // (A server without tokens, on loopback, lets anyone act for anyone.)
            if let token, !TokenScope.allows(token.scopes, .actAs) {
                throw Problem(.forbidden, "the API token '\(token.name)' lacks the 'act-as' scope, which naming an end user "
                              + "(Receipts-External-User) needs")
            }
            guard Self.isValidExternalUser(externalUser) else {
                throw Problem(.badRequest, "Receipts-External-User must be 1 to 64 characters, without control characters, slashes, colons or commas")
            }
        }
        return Principal(user: user, token: token, externalUser: externalUser,
                         memberships: try await store.memberships(ofUser: user.name))
    }
}

extension Principal {
    /// The rule openapi.yaml gives Receipts-External-User (`^[^\x00-\x1f\x7f/:,]+$`, 1 to 64
    /// characters): a backend's own identifier for its end user, taken as it is sent. (A user's or
    /// a group's name, which people type, is held to `Ownership.isValidName`, which also refuses
    /// the C1 controls, format characters and spaces at either end.)
    static func isValidExternalUser(_ name: String) -> Bool {
        let scalars = name.unicodeScalars
        return (1...64).contains(scalars.count)
            && !scalars.contains { $0.value < 0x20 || $0.value == 0x7F || "/:,".unicodeScalars.contains($0) }
    }
}
