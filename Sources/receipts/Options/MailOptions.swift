import ArgumentParser
import Foundation
import ReceiptKit
import ReceiptMail
import ReceiptServerStore

/// The flags that say what to read from a mailbox and what to do with it (`receipts mail`), and the
/// same settings from `serve --mail-config`'s file.
struct MailOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The mailbox: imaps://USER@HOST[:PORT]/FOLDER (TLS; port 993), or imap://… (STARTTLS, required; plain only to this machine; port 143). The folder defaults to INBOX.",
        valueName: "url"))
    var imap: String

    @Option(name: .customLong("password-file"), help: ArgumentHelp(
        "File holding the mailbox's password (an app password). Default: $RECEIPTS_IMAP_PASSWORD.", valueName: "file"))
    var passwordFile: String?

    @Option(name: .customLong("ca-file"), help: ArgumentHelp(
        "PEM file of the CA that signed the server's certificate, for a server with a private CA (default: the system's CAs).", valueName: "file"))
    var caFile: String?

    @Option(help: ArgumentHelp("File the receipts for this user (a plain name).", valueName: "name"))
    var user: String?

    @Option(name: .customLong("from"), help: ArgumentHelp(
        "Take only messages from senders matching this glob on the address (*@shell.example); repeat for more. Default: every sender.",
        valueName: "pattern"))
    var from: [String] = []

    @Option(name: .customLong("done-keyword"), help: ArgumentHelp(
        "Once a message's receipts are stored, set this IMAP keyword on it (the default, $ReceiptImported).", valueName: "keyword"))
    var doneKeyword: String?

    @Option(name: .customLong("done-folder"), help: ArgumentHelp(
        "Once a message's receipts are stored, move it to this folder (which must exist) instead of setting a keyword.", valueName: "folder"))
    var doneFolder: String?

    @Option(help: ArgumentHelp("Time between two polls: 30s, 5m, 1h.", valueName: "duration"))
    var interval = "60s"

    @Option(name: .customLong("max-message-mb"), help: ArgumentHelp(
        "Messages larger than this many megabytes are not fetched: a failed record names them.", valueName: "MB"))
    var maxMessageMB: Double = 25

    @Option(name: .customLong("max-age"), help: ArgumentHelp(
        "On the first scan of a mailbox, leave messages older than this alone: 30d, 12h.", valueName: "duration"))
    var maxAge = "30d"

    func validate() throws {
        _ = try configuration(environment: [:], readPassword: false)
    }

    /// The mailbox's settings; the password from --password-file, else $RECEIPTS_IMAP_PASSWORD.
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment,
                       readPassword: Bool = true) throws -> MailboxConfiguration {
        var password = ""
        if readPassword {
            if let passwordFile {
                password = try MailOptions.readSecret(passwordFile, flag: "--password-file")
            } else if let fromEnvironment = environment["RECEIPTS_IMAP_PASSWORD"], !fromEnvironment.isEmpty {
                password = fromEnvironment
            } else {
                throw ValidationError("the mailbox needs a password: --password-file FILE, or RECEIPTS_IMAP_PASSWORD in the environment.")
            }
        }
        return try MailOptions.configuration(
            url: imap, password: password, caFile: caFile, user: user, from: from, doneKeyword: doneKeyword, doneFolder: doneFolder,
            interval: interval, maxMessageMB: maxMessageMB, maxAge: maxAge, flags: true)
    }

    /// One mailbox's settings, checked: errors name the flags (or, from a config file, its keys).
    static func configuration(url: String, password: String, caFile: String?, user: String?, from: [String], doneKeyword: String?,
                              doneFolder: String?, interval: String, maxMessageMB: Double, maxAge: String,
                              flags: Bool) throws -> MailboxConfiguration {
        func name(_ flag: String, _ key: String) -> String { flags ? flag : key }
        let account: IMAPAccount
        do {
            account = try IMAPAccount(url: url, password: password, caFile: caFile)
        } catch let error as ReceiptError {
            throw ValidationError("\(name("--imap", "imap")): \(error.message).")
        }
        var configuration = MailboxConfiguration(account: account)
        if let user {
            do { try MailboxConfiguration.validateUser(user) } catch let error as ReceiptError {
                throw ValidationError("\(name("--user", "user")) \(error.message).")
            }
            configuration.user = user
        }
        for pattern in from where pattern.isEmpty || pattern.contains(where: \.isWhitespace) {
            throw ValidationError("\(name("--from", "from")) '\(pattern)': give a glob on the address, like *@shell.example.")
        }
        configuration.fromPatterns = from
        switch (doneKeyword, doneFolder) {
        case (.some, .some):
            throw ValidationError("give \(name("--done-keyword", "doneKeyword")) or \(name("--done-folder", "doneFolder")), not both.")
        case let (keyword?, nil):
            do { try DoneAction.validateKeyword(keyword) } catch let error as ReceiptError {
                throw ValidationError("\(name("--done-keyword", "doneKeyword")) \(error.message).")
            }
            configuration.doneAction = .keyword(keyword)
        case let (nil, folder?):
            guard !folder.isEmpty else { throw ValidationError("\(name("--done-folder", "doneFolder")) needs a folder name.") }
            configuration.doneAction = .move(folder)
        case (nil, nil):
            break
        }
        guard let seconds = DurationText.seconds(interval, bareSeconds: true), seconds >= 1 else {
            throw ValidationError("\(name("--interval", "interval")) \(interval): not a duration of 1 s or more; give a number with s, m or h (60s).")
        }
        configuration.interval = .milliseconds(Int64(seconds * 1000))
        guard maxMessageMB > 0, maxMessageMB.isFinite else { throw ValidationError("\(name("--max-message-mb", "maxMessageMB")) must be positive.") }
        configuration.maxMessageBytes = Int(maxMessageMB * 1_048_576)
        guard let age = DurationText.seconds(maxAge, bareSeconds: false) else {
            throw ValidationError("\(name("--max-age", "maxAge")) \(maxAge): not a duration; give a number with h, d or w (30d).")
        }
        configuration.maxAge = age
        return configuration
    }

    /// A secret kept in a file: readable and not empty, surrounding white space dropped.
    static func readSecret(_ file: String, flag: String) throws -> String {
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: file) ? "cannot be read (check its permissions)" : "no such file"
            throw ValidationError("\(flag) \(file): \(reason).")
        }
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty else { throw ValidationError("\(flag) \(file): the file is empty; put the password in it.") }
        return secret
    }
}

/// `serve --mail-config FILE`: the mailboxes `serve` polls, as JSON:
///
///     {"mailboxes": [{"imap": "imaps://receipts@mail.example/INBOX", "passwordFile": "imap-password",
///                     "user": "alice", "from": ["*@shell.example"], "doneFolder": "Receipts/Done",
///                     "interval": "5m", "maxMessageMB": 25, "maxAge": "30d", "caFile": null}]}
///
/// Every key but `imap` and `passwordFile` is optional, with `receipts mail`'s defaults; relative
/// paths are read from the file's folder.
enum MailConfigFile {
    static func load(_ path: String) throws -> [MailboxConfiguration] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read (check its permissions)" : "no such file"
            throw ValidationError("--mail-config \(path): \(reason).")
        }
        guard let json = try? JSONValue.parse(text), let list = json["mailboxes"]?.arrayValue, !list.isEmpty else {
            throw ValidationError(#"--mail-config \#(path): not a mail configuration; write {"mailboxes": [{"imap": "imaps://USER@HOST/INBOX", "passwordFile": "FILE"}]}."#)
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        func resolve(_ file: String?) -> String? {
            file.map { $0.hasPrefix("/") ? $0 : folder.appendingPathComponent($0).path }
        }
        var mailboxes: [MailboxConfiguration] = []
        for (index, entry) in list.enumerated() {
            let place = "--mail-config \(path), mailbox \(index + 1)"
            do {
                guard let url = entry["imap"]?.stringValue else { throw ValidationError("no \"imap\" URL.") }
                guard let passwordFile = resolve(entry["passwordFile"]?.stringValue) else { throw ValidationError("no \"passwordFile\".") }
                let known: Set = ["imap", "passwordFile", "user", "from", "doneKeyword", "doneFolder", "interval", "maxMessageMB", "maxAge", "caFile"]
                if let unknown = entry.objectValue?.map(\.0).first(where: { !known.contains($0) }) {
                    throw ValidationError("unknown key \"\(unknown)\" (known: \(known.sorted().joined(separator: ", "))).")
                }
                mailboxes.append(try MailOptions.configuration(
                    url: url, password: try MailOptions.readSecret(passwordFile, flag: "passwordFile"),
                    caFile: resolve(entry["caFile"]?.stringValue), user: entry["user"]?.stringValue,
                    from: entry["from"]?.arrayValue?.compactMap(\.stringValue) ?? entry["from"]?.stringValue.map { [$0] } ?? [],
                    doneKeyword: entry["doneKeyword"]?.stringValue, doneFolder: entry["doneFolder"]?.stringValue,
                    interval: entry["interval"]?.stringValue ?? "60s", maxMessageMB: entry["maxMessageMB"]?.doubleValue ?? 25,
                    maxAge: entry["maxAge"]?.stringValue ?? "30d", flags: false))
            } catch let error as ValidationError {
                throw ValidationError("\(place): \(error.message)")
            }
        }
        let names = mailboxes.map(\.account.name)
        if let twice = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw ValidationError("--mail-config \(path): the mailbox \(twice) is listed twice.")
        }
        return mailboxes
    }
}
