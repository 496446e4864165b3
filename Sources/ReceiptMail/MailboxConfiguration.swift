import Foundation
import ReceiptKit

/// One mailbox to poll and what to do with what is read there (`receipts mail`'s flags, or one
/// entry of `serve --mail-config`).
public struct MailboxConfiguration: Sendable {
    public var account: IMAPAccount
    /// Who the receipts are for (`--user`, the config's `"user"`): a user of the store; nil: its
    /// first administrator. The program resolves it into `ownership` before polling.
    public var user: String?
    /// Whose the receipts filed from this mailbox are (the user's, in their default group).
    public var ownership: Ownership = .admin
    /// Sender addresses to take, as globs (`*@shell.example`); empty: every sender.
    public var fromPatterns: [String]
    public var doneAction: DoneAction
    /// Time between two polls.
    public var interval: Duration
    /// Messages larger than this are not fetched: their header is kept and a failed receipt says so.
    public var maxMessageBytes: Int
    /// On the first scan of a mailbox, messages received longer ago than this are left alone.
    public var maxAge: TimeInterval
    /// For the crash test: after the first message is committed, and before its done-action, this
    /// file is written and the poller waits to be killed. Never set otherwise.
    public var pauseBeforeDoneAction: String?

    public init(account: IMAPAccount, user: String? = nil, fromPatterns: [String] = [], doneAction: DoneAction = .keyword(DoneAction.defaultKeyword),
                interval: Duration = .seconds(60), maxMessageBytes: Int = 25 << 20, maxAge: TimeInterval = 30 * 86400) {
        self.account = account
        self.user = user
        self.fromPatterns = fromPatterns
        self.doneAction = doneAction
        self.interval = interval
        self.maxMessageBytes = maxMessageBytes
        self.maxAge = maxAge
    }

    /// Whether a message from `address` is taken.
    public func accepts(sender address: String?) -> Bool {
        guard !fromPatterns.isEmpty else { return true }
        guard let address = address?.lowercased() else { return false }
        return fromPatterns.contains { Glob.matches($0.lowercased(), address) }
    }

    /// `--user NAME`: a user's name as the store takes it (`Ownership.isValidName`).
    public static func validateUser(_ name: String) throws {
        if let problem = Ownership.nameProblem(name) {
            throw ReceiptError(.invalidConfiguration, "\(Ownership.quotedForMessage(name)) is not a user name: \(problem)")
        }
    }
}

/// What is done to a message once its receipts are in the store: a keyword set on it, or a move
/// to another folder. The watermark, not the done-action, is what keeps a message from being read
/// twice: a done-action that fails is tried again at the next poll.
public enum DoneAction: Sendable, Equatable, CustomStringConvertible {
    case keyword(String)
    case move(String)

    public static let defaultKeyword = "$ReceiptImported"

    public var description: String {
        switch self {
        case let .keyword(keyword): "keyword \(keyword)"
        case let .move(folder): "move to '\(folder)'"
        }
    }

    /// An IMAP keyword is an atom: no spaces, parentheses, quotes, `%`, `*`, `\` or `]`.
    public static func validateKeyword(_ keyword: String) throws {
        let forbidden = CharacterSet(charactersIn: "(){ %*\"\\]").union(.whitespacesAndNewlines).union(.controlCharacters)
        guard !keyword.isEmpty, keyword.unicodeScalars.allSatisfy({ $0.isASCII && !forbidden.contains($0) }) else {
            throw ReceiptError(.invalidConfiguration, "'\(keyword)' is not an IMAP keyword: one word of ASCII letters, digits and $ (like $ReceiptImported)")
        }
    }
}

/// Shell-style globs on addresses: `*` any run of characters, `?` one.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern), t = Array(text)
        var (i, j, star, mark) = (0, 0, -1, 0)
        while j < t.count {
            if i < p.count, p[i] == "?" || p[i] == t[j] {
                i += 1; j += 1
            } else if i < p.count, p[i] == "*" {
                star = i; mark = j; i += 1
            } else if star >= 0 {
                i = star + 1; mark += 1; j = mark
            } else {
                return false
            }
        }
        while i < p.count, p[i] == "*" { i += 1 }
        return i == p.count
    }
}
