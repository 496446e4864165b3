import Foundation
import HTTPTypes
import ReceiptKit
import ReceiptServerStore

/// How `receipts serve` builds the one identity (`Principal`, in ReceiptStorage) for a request:
/// from its token (or sign-in) and `Receipts-External-User`, once, in `BearerTokenMiddleware`.
extension Principal {
    static let externalUserHeader = HTTPField.Name("Receipts-External-User")!

    /// Whose an upload is: this user's (for the end user named), in `group` when one is named (the
    /// user must be its editor, or an administrator), else in the user's default group.
    func ownership(group: String?, metadata: JSONValue?) throws -> Ownership {
        var chosen = group
        if let group {
            guard isAdmin || memberships[group] != nil else { throw Problem(.notFound, "no group named '\(group)' of yours") }
            guard isAdmin || memberships[group] == .editor else {
                throw Problem(.forbidden, "you are a viewer of '\(group)': only its editors add receipts to it")
            }
        } else if externalUser == nil, let home = defaultGroup, memberships[home] != nil {
            chosen = home
        }
        return Ownership(owner: user, group: chosen, externalUser: externalUser, metadata: metadata)
    }

    /// The principal of a request with `token` (nil: a server without tokens, which acts for the
    /// store's first administrator) and the `Receipts-External-User` value, if any.
    static func resolve(token: APIToken?, externalUser: String?, store: any AccountStore) async throws -> Principal {
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
            if let token, !TokenPermission.allows(token.scopes, .actAs) {
                throw Problem(.forbidden, "the API token '\(token.name)' lacks the 'act-as' scope, which naming an end user "
                              + "(Receipts-External-User) needs")
            }
            guard Self.isValidExternalUser(externalUser) else {
                throw Problem(.badRequest, "Receipts-External-User must be 1 to 64 characters, without control characters, slashes, colons or commas")
            }
        }
        return try await store.principal(of: user, token: token?.name, externalUser: externalUser)
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
