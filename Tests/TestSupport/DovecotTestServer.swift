// Test support is built for the tests only (debug builds, where @testable imports work).
#if DEBUG
import Foundation
@testable import ReceiptMail
@testable import TestHelpers
#if canImport(Glibc)
import Glibc
#endif

/// A real Dovecot IMAP server of a test's own: a throwaway configuration in a temporary folder
/// (Maildir, a password file, its own base and state folders), listening on free ports of
/// 127.0.0.1 (IMAP, and IMAPS with a certificate signed by a CA made for it), run unprivileged
/// (mail processes as the `dovecot` user when the tests run as root). Stopped by `stop()` and when
/// the test process exits. Without Dovecot (Debian's dovecot-imapd, which `make test` installs),
/// `available` is false and `unavailableReason` says why in one line.
///
/// Dovecot runs in the foreground (`-F`) under `receipts-test-launcher` (`LaunchedProcess`): it
/// ends with the test process even when that is killed by SIGKILL. The certificates are made once
/// per test process (two RSA keys) and shared by its servers.
public final class DovecotTestServer: @unchecked Sendable {
    public static let user = "driver"
    public static let password = "imap-Secret-7Qx"

    public let folder: URL
    public let port: Int
    public let tlsPort: Int
    /// The CA that signed the server's certificate (PEM), for `--ca-file`.
    public let caFile: String
    private let process: LaunchedProcess

    public static let dovecotPath = "/usr/sbin/dovecot"

    /// Why Dovecot tests are skipped, or nil when they can run.
    public static let unavailableReason: String? = {
        if !FileManager.default.isExecutableFile(atPath: dovecotPath) {
            return "Dovecot tests skipped: no \(dovecotPath) (install Debian's dovecot-imapd: make test does)"
        }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") {
            return "Dovecot tests skipped: no /usr/bin/openssl for the test certificate (install Debian's openssl: make test does)"
        }
        return nil
    }()

    public static var available: Bool {
        if let reason = unavailableReason {
            reported.withLock { done in
                if !done { FileHandle.standardError.write(Data((reason + "\n").utf8)); done = true }
            }
            return false
        }
        return true
    }

    private static let reported = NSLockedValue(false)
    nonisolated(unsafe) private static var running: [DovecotTestServer] = []
    private static let lock = NSLock()

    /// Starts a server with an empty INBOX for `user`.
    public static func started() async throws -> DovecotTestServer {
        try await OffPool.run { try start() }
    }

    static func start() throws -> DovecotTestServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-dovecot-\(UUID().uuidString.prefix(8))")
        let mail = folder.appendingPathComponent("mail")
        for sub in ["run", "state", "mail"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        chmod(folder.path, 0o755)
        let (uid, gid, internalUser, loginUser): (String, String, String, String)
        if getuid() == 0 {
            guard let dovecot = getpwnam("dovecot"), getpwnam("dovenull") != nil else {
                throw PostgresTestServer.Failure(description: "no 'dovecot' or 'dovenull' user (reinstall dovecot-core)")
            }
            (uid, gid, internalUser, loginUser) = ("\(dovecot.pointee.pw_uid)", "\(dovecot.pointee.pw_gid)", "dovecot", "dovenull")
            chown(mail.path, dovecot.pointee.pw_uid, dovecot.pointee.pw_gid)
        } else {
            let me = String(cString: getpwuid(getuid())!.pointee.pw_name)
            (uid, gid, internalUser, loginUser) = ("\(getuid())", "\(getgid())", me, me)
        }
        let ssl = try certificates.get()
        try "\(user):{PLAIN}\(password)::::::\n".write(to: folder.appendingPathComponent("passwd"), atomically: true, encoding: .utf8)
        chmod(folder.appendingPathComponent("passwd").path, 0o644)

        var lastError: Error?
        for _ in 0..<3 {
            let (port, tlsPort) = (PostgresTestServer.freePort(), PostgresTestServer.freePort())
            let f = folder.path
            let configuration = """
                base_dir = \(f)/run
                state_dir = \(f)/state
                log_path = \(f)/dovecot.log
                instance_name = receipts-test-\(port)
                protocols = imap
                listen = 127.0.0.1
                ssl = yes
                ssl_cert = <\(ssl)/server.pem
                ssl_key = <\(ssl)/server.key
                disable_plaintext_auth = no
                auth_mechanisms = plain login
                mail_location = maildir:\(f)/mail/%u
                first_valid_uid = 1
                first_valid_gid = 1
                default_internal_user = \(internalUser)
                default_internal_group = \(internalUser)
                default_login_user = \(loginUser)
                passdb {
                  driver = passwd-file
                  args = scheme=PLAIN username_format=%u \(f)/passwd
                }
                userdb {
                  driver = static
                  args = uid=\(uid) gid=\(gid) home=\(f)/mail/%u
                }
                service imap-login {
                  inet_listener imap {
                    address = 127.0.0.1
                    port = \(port)
                  }
                  inet_listener imaps {
                    address = 127.0.0.1
                    port = \(tlsPort)
                    ssl = yes
                  }
                }
                service pop3-login {
                  inet_listener pop3 {
                    port = 0
                  }
                }
                protocol imap {
                  mail_max_userip_connections = 200
                }

                """
            let path = folder.appendingPathComponent("dovecot.conf").path
            try configuration.write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o644)
            let process = try LaunchedProcess(dovecotPath, ["-F", "-c", path], logPath: "\(f)/dovecot.stderr")
            let server = DovecotTestServer(folder: folder, port: port, tlsPort: tlsPort, caFile: "\(ssl)/ca.pem", process: process)
            lock.withLock {
                if running.isEmpty { atexit { DovecotTestServer.stopAll() } }
                running.append(server)
            }
            do {
                try server.waitUntilListening()
            } catch let error as PortTaken {
                // A port taken since it was picked: another pair is tried.
                lastError = error
                continue
            }
            return server
        }
        throw lastError ?? PostgresTestServer.Failure(description: "Dovecot did not start")
    }

    private init(folder: URL, port: Int, tlsPort: Int, caFile: String, process: LaunchedProcess) {
        self.folder = folder
        self.port = port
        self.tlsPort = tlsPort
        self.caFile = caFile
        self.process = process
    }

    /// The test process's CA and the servers' certificate for 127.0.0.1 and localhost signed by it
    /// (ca.pem, server.pem, server.key): made on first use, in a folder removed at exit.
    private static let certificates = Result<String, Error> {
        let ssl = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-dovecot-ssl-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: ssl, withIntermediateDirectories: true)
        chmod(ssl, 0o755)
        atexit { for folder in DovecotTestServer.sslFolders.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: folder) } }
        sslFolders.withLock { $0.append(ssl) }
        try PostgresTestServer.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                                                        "-subj", "/CN=receipts test CA", "-keyout", "\(ssl)/ca.key", "-out", "\(ssl)/ca.pem"])
        try PostgresTestServer.run("/usr/bin/openssl", ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                                                        "-keyout", "\(ssl)/server.key", "-out", "\(ssl)/server.csr"])
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: "\(ssl)/san.ext", atomically: true, encoding: .utf8)
        try PostgresTestServer.run("/usr/bin/openssl", ["x509", "-req", "-in", "\(ssl)/server.csr", "-CA", "\(ssl)/ca.pem",
                                                        "-CAkey", "\(ssl)/ca.key", "-CAcreateserial", "-days", "2",
                                                        "-extfile", "\(ssl)/san.ext", "-out", "\(ssl)/server.pem"])
        for file in ["ca.pem", "server.pem", "server.key"] { chmod("\(ssl)/\(file)", 0o644) }
        return ssl
    }
    private static let sslFolders = NSLockedValue<[String]>([])

    /// Dovecot exited before it listened, saying a port was taken.
    struct PortTaken: Error, CustomStringConvertible {
        var description: String
    }

    /// `imap://driver@127.0.0.1:PORT/FOLDER`
    public func url(_ folder: String = "INBOX", tls: Bool = false) -> String {
        tls ? "imaps://\(Self.user)@127.0.0.1:\(tlsPort)/\(folder)" : "imap://\(Self.user)@127.0.0.1:\(port)/\(folder)"
    }

    /// A connection as `user`, for seeding and looking.
    func connection(_ folder: String = "INBOX", password: String = DovecotTestServer.password) throws -> IMAPConnection {
        try IMAPConnection(IMAPAccount(url: url(folder), password: password))
    }

    /// Adds messages to `folder` (IMAP APPEND), in order.
    public func append(_ messages: [Data], to folder: String = "INBOX") async throws {
        try await OffPool.run {
            let connection = try self.connection(folder)
            for message in messages { try connection.append(message, to: folder) }
        }
    }

    public func create(_ folder: String) async throws { try await OffPool.run { try self.connection().create(folder) } }
    public func delete(_ folder: String) async throws { try await OffPool.run { try self.connection().delete(folder) } }

    /// The folder's UIDVALIDITY.
    public func uidValidity(_ folder: String = "INBOX") async throws -> Int64 {
        try await OffPool.run { try self.connection(folder).status(of: folder).uidValidity }
    }

    /// The UIDs in `folder`, and those with `keyword`.
    public func uids(in folder: String = "INBOX", keyword: String? = nil) async throws -> [Int64] {
        try await OffPool.run {
            let connection = try self.connection(folder)
            guard let keyword else { return try connection.search(after: 0) }
            return Self.searched(try connection.raw("UID SEARCH KEYWORD \(keyword)", folder: folder))
        }
    }

    /// The UIDs in `folder` not marked \Seen.
    public func unseen(in folder: String = "INBOX") async throws -> [Int64] {
        try await OffPool.run { Self.searched(try self.connection(folder).raw("UID SEARCH UNSEEN", folder: folder)) }
    }

    private static func searched(_ answer: String) -> [Int64] {
        answer.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("* SEARCH") }
            .flatMap { $0.dropFirst(8).split(separator: " ").compactMap { Int64($0) } }.sorted()
    }

    /// Waits until Dovecot answers a login; the limit only guards against hanging. Dovecot exiting
    /// first fails at once: with `PortTaken` when a port was taken, else with its log.
    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(300 * testTimeScale)
        var last: Error?
        while Date() < deadline {
            if !process.isRunning {
                let log = ((try? String(contentsOf: folder.appendingPathComponent("dovecot.log"), encoding: .utf8)) ?? "") + process.logTail()
                if log.contains("Address already in use") { throw PortTaken(description: String(log.suffix(600))) }
                throw PostgresTestServer.Failure(description: "Dovecot exited (\(process.exitStatus ?? -1)): \(log.suffix(600))")
            }
            do {
                _ = try connection().status(of: "INBOX")
                return
            } catch {
                last = error
            }
            usleep(20_000)
        }
        let log = (try? String(contentsOf: folder.appendingPathComponent("dovecot.log"), encoding: .utf8)) ?? ""
        stop()
        throw PostgresTestServer.Failure(description: "Dovecot did not answer on 127.0.0.1:\(port) (\(last.map { "\($0)" } ?? "")): \(log.suffix(600))")
    }

    /// Stops Dovecot (SIGTERM) and waits until it has ended.
    public func stop() {
        process.signal(SIGTERM)
        if !process.waitUntilEnded() { kill(process.pid, SIGKILL) }
    }

    static func stopAll() {
        let servers = lock.withLock { running }
        for server in servers {
            server.stop()
            try? FileManager.default.removeItem(at: server.folder)
        }
    }
}

/// A value behind a lock.
final class NSLockedValue<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
#endif
