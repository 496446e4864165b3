import CLibCurl
import Foundation
import ReceiptKit

/// IMAP through libcurl: one logged-in connection (one `CurlHandle`), the commands the poller needs.
/// Blocking: run it on a thread of its own (`MailboxPoller` does). Errors are `ReceiptError`s of
/// code `.mailbox`, one line naming the mailbox and the cause.
///
/// libcurl fetches a message whole by URL (`…/INBOX;UIDVALIDITY=v/;UID=n`, which it turns into
/// `UID FETCH n BODY[]` after checking the folder's UIDVALIDITY); other commands go as custom
/// requests, whose untagged answer lines come back as the transfer's body (only the first line of
/// a FETCH: sizes are asked one message at a time).
final class IMAPConnection {
    let account: IMAPAccount
    private let curl: CurlHandle

    init(_ account: IMAPAccount) throws {
        self.account = account
        curl = try CurlHandle()
        curl.set(CURLOPT_USERNAME, account.user)
        curl.set(CURLOPT_PASSWORD, account.password)
        curl.set(CURLOPT_CONNECTTIMEOUT, account.timeout)
        // An answer that stalls for `timeout` seconds ends the transfer.
        curl.set(CURLOPT_LOW_SPEED_LIMIT, 1)
        curl.set(CURLOPT_LOW_SPEED_TIME, account.timeout)
        if account.scheme == "imap" {
            // Never a password in clear over a network: STARTTLS is required, except to this
            // machine, where the connection is plain (no network to cross).
            curl.set(CURLOPT_USE_SSL, Int(account.isLoopback ? CURLUSESSL_NONE.rawValue : CURLUSESSL_ALL.rawValue))
        }
        if let caFile = account.caFile { curl.set(CURLOPT_CAINFO, caFile) }
    }

    private var base: String { "\(account.scheme)://\(account.bracketedHost):\(account.port)/" }

    private func path(_ folder: String) -> String {
        folder.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: ";?#%")))
            ?? folder
    }

    /// `"Receipts/Done"` as an IMAP quoted string.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// - Parameter refused: what it means when the server answers the command NO or BAD.
    private func command(_ command: String, folder: String?, what: String, refused: String? = nil) throws -> String {
        do {
            let url = folder.map { base + path($0) } ?? base
            return String(decoding: try curl.perform(url: url, customRequest: command), as: UTF8.self)
        } catch {
            throw failure(error, doing: what, refused: refused)
        }
    }

    /// The folder's UIDVALIDITY and UIDNEXT (`STATUS`). Also the first command of a poll: a wrong
    /// password, an unreachable server or a missing folder is said here.
    func status(of folder: String) throws -> (uidValidity: Int64, uidNext: Int64) {
        let answer = try command("STATUS \(Self.quoted(folder)) (UIDVALIDITY UIDNEXT)", folder: nil,
                                 what: "reading the folder '\(folder)'",
                                 refused: "there is no folder '\(folder)' (or this user may not read it)")
        guard let validity = Self.number(after: "UIDVALIDITY", in: answer), let next = Self.number(after: "UIDNEXT", in: answer) else {
            throw ReceiptError(.mailbox, file: account.name, "the server's STATUS answer has no UIDVALIDITY or UIDNEXT",
                               cause: answer.oneLine, retry: .later)
        }
        return (validity, next)
    }

    /// Whether `folder` exists (a STATUS the server refuses: it does not, or may not be read).
    func folderExists(_ folder: String) throws -> Bool {
        do {
            _ = try curl.perform(url: base, customRequest: "STATUS \(Self.quoted(folder)) (UIDVALIDITY)")
            return true
        } catch let error as CurlFailure where error.code == CURLE_QUOTE_ERROR {
            return false
        } catch {
            throw failure(error, doing: "looking for the folder '\(folder)'")
        }
    }

    /// UIDs above `after` (`UID SEARCH UID after+1:*`), received `since` that day when given, ascending.
    func search(after: Int64, since: Date? = nil) throws -> [Int64] {
        var criteria = "UID \(after + 1):*"
        if let since { criteria += " SINCE \(Self.imapDate(since))" }
        let answer = try command("UID SEARCH \(criteria)", folder: account.folder, what: "listing the messages")
        // `n:*` always matches the highest UID, even below n: only those above the watermark count.
        return answer.split(whereSeparator: \.isNewline)
            .filter { $0.hasPrefix("* SEARCH") }
            .flatMap { $0.dropFirst("* SEARCH".count).split(separator: " ").compactMap { Int64($0) } }
            .filter { $0 > after }.sorted()
    }

    /// The message's size in bytes (`RFC822.SIZE`, nil when the server does not say) and whether
    /// it is marked read (`\Seen`).
    func sizeAndSeen(uid: Int64) throws -> (size: Int?, seen: Bool) {
        let answer = try command("UID FETCH \(uid) (RFC822.SIZE FLAGS)", folder: account.folder,
                                 what: "reading the size of message UID \(uid)")
        return (Self.number(after: "RFC822.SIZE", in: answer).map { Int($0) }, answer.contains("\\Seen"))
    }

    /// Marks the message unread again (fetching its body marked it read).
    func markUnseen(uid: Int64) throws {
        _ = try command("UID STORE \(uid) -FLAGS.SILENT (\\Seen)", folder: account.folder, what: "keeping message UID \(uid) unread")
    }

    /// The whole message, as the server keeps it. Refuses one over `maxBytes`.
    func fetch(uid: Int64, uidValidity: Int64, maxBytes: Int) throws -> Data {
        let url = base + path(account.folder) + ";UIDVALIDITY=\(uidValidity)/;UID=\(uid)"
        do {
            return try curl.perform(url: url, maxBytes: maxBytes)
        } catch {
            throw failure(error, doing: "fetching message UID \(uid)")
        }
    }

    /// The message's header alone (for a message too large to fetch).
    func fetchHeader(uid: Int64, uidValidity: Int64) throws -> Data {
        let url = base + path(account.folder) + ";UIDVALIDITY=\(uidValidity)/;UID=\(uid);SECTION=HEADER"
        do {
            return try curl.perform(url: url, maxBytes: 1 << 20)
        } catch {
            throw failure(error, doing: "fetching the header of message UID \(uid)")
        }
    }

    /// Sets a keyword (`$ReceiptImported`) on the message.
    func addKeyword(_ keyword: String, uid: Int64) throws {
        _ = try command("UID STORE \(uid) +FLAGS.SILENT (\(keyword))", folder: account.folder,
                        what: "setting the keyword \(keyword) on message UID \(uid)")
    }

    /// Moves the message to `folder` (`UID MOVE`).
    func move(uid: Int64, to folder: String) throws {
        _ = try command("UID MOVE \(uid) \(Self.quoted(folder))", folder: account.folder,
                        what: "moving message UID \(uid) to '\(folder)'")
    }

    /// Adds a message to `folder` (`APPEND`): for tests and the benchmark.
    func append(_ message: Data, to folder: String) throws {
        do {
            _ = try curl.perform(url: base + path(folder), upload: message)
        } catch {
            throw failure(error, doing: "adding a message to '\(folder)'")
        }
    }

    /// Creates `folder` (`CREATE`): for tests and the benchmark.
    func create(_ folder: String) throws {
        _ = try command("CREATE \(Self.quoted(folder))", folder: nil, what: "creating the folder '\(folder)'")
    }

    /// Deletes `folder` (`DELETE`): for tests.
    func delete(_ folder: String) throws {
        _ = try command("DELETE \(Self.quoted(folder))", folder: nil, what: "deleting the folder '\(folder)'")
    }

    /// Any command, its untagged answer as text: for tests.
    func raw(_ command: String, folder: String?) throws -> String {
        try self.command(command, folder: folder, what: command)
    }

    // MARK: Answers

    static func number(after key: String, in text: String) -> Int64? {
        guard let range = text.range(of: key + " ") else { return nil }
        return Int64(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// `27-Oct-2026`, as SEARCH SINCE takes it.
    static func imapDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "d-MMM-yyyy"
        return formatter.string(from: date)
    }

    /// One line naming the mailbox, what was being done, and why it failed in words a user acts on.
    private func failure(_ error: any Error, doing what: String, refused: String? = nil) -> ReceiptError {
        let failure = error as? CurlFailure ?? CurlFailure(code: CURLE_FAILED_INIT, detail: "\(error)")
        let (why, retry): (String, ReceiptError.Retry) = switch failure.code {
        case CURLE_LOGIN_DENIED: ("the server refused the user name or password (check --password-file)", .never)
        case CURLE_COULDNT_CONNECT: ("cannot connect to \(account.host):\(account.port) (is the server up, and the port right?)", .later)
        case CURLE_COULDNT_RESOLVE_HOST: ("unknown host \(account.host)", .later)
        case CURLE_OPERATION_TIMEDOUT: ("the server did not answer within \(account.timeout) s", .later)
        case CURLE_PEER_FAILED_VERIFICATION:
            ("the server's certificate is not trusted (give the CA that signed it with --ca-file)", .never)
        case CURLE_SSL_CACERT_BADFILE: ("cannot read the CA file \(account.caFile ?? "")", .never)
        case CURLE_SSL_CONNECT_ERROR: ("the TLS handshake failed (imaps:// to a port without TLS?)", .later)
        case CURLE_USE_SSL_FAILED: ("the server does not offer STARTTLS; use imaps:// (or a server that offers it)", .never)
        case CURLE_QUOTE_ERROR: (refused ?? "the server refused it", .never)
        case CURLE_REMOTE_FILE_NOT_FOUND: ("the message is gone, or the folder was recreated (UIDVALIDITY changed)", .later)
        case CURLE_FILESIZE_EXCEEDED: ("the message is larger than allowed (\(failure.detail))", .never)
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_WEIRD_SERVER_REPLY:
            ("the connection broke", .later)
        default: ("libcurl error \(failure.code.rawValue)", .later)
        }
        return ReceiptError(.mailbox, file: account.name, "\(why), while \(what)", cause: failure.detail, retry: retry)
    }
}

@available(*, unavailable) extension IMAPConnection: Sendable {}

extension ReceiptError.Code {
    /// A mailbox cannot be read: the server, the login, a folder, a command it refused.
    public static let mailbox = Self("mailbox")
}
