import Foundation
import ReceiptModel

extension Principal {
    /// The books of shops it may see (`MemoryBook`): a user's own and those of its groups, a
    /// backend's end user's own; nil for an administrator (every book).
    public var memoryBooks: [MemoryBook]? {
        if let externalUser { return [.endUser(externalUser, of: user)] }
        if isAdmin { return nil }
        return [.user(user)] + memberships.keys.sorted().map(MemoryBook.group)
    }

    /// Whether it may see the shops of `book`.
    public func maySee(_ book: MemoryBook) -> Bool {
        memoryBooks?.contains(book) ?? true
    }

    /// Whether it may rename, merge, re-categorize or forget the shops of `book` (one it may see):
    /// an administrator, the book's user, an editor of its group, the service acting for its end
    /// user (a group's viewer only sees them).
    public func mayChange(_ book: MemoryBook) -> Bool {
        guard maySee(book) else { return false }
        switch book {
        case .user(let name): return isAdmin || name == user
        case .group(let group): return isAdmin || memberships[group] == .editor
        case .endUser: return true
        }
    }

    /// The book its own receipts teach when they name no group: its own (or its end user's).
    public var ownBook: MemoryBook {
        if let externalUser { return .endUser(externalUser, of: user) }
        return defaultGroup.map(MemoryBook.group) ?? .user(user)
    }
}
