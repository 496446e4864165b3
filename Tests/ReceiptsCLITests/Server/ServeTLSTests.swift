import Foundation
import Testing
@testable import TestHelpers

/// `receipts serve --tls-cert FILE --tls-key FILE`: HTTPS with a certificate made here as the
/// docs/review-ui.md tells a home server's owner to (openssl: a CA of their own and a certificate for the
/// server's address signed by it), checked by a real TLS client (curl) that trusts only that CA.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: ReceiptsCLI.binary.path)
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")))
struct ServeTLSTests {
    struct Certificate {
        var ca, cert, key: String
    }

    static func openssl(_ arguments: [String]) async throws {
        let result = try await ReceiptsCLI.runProgram("/usr/bin/openssl", arguments)
        #expect(result.status == 0, "openssl \(arguments.joined(separator: " ")): \(result.err)")
    }

    /// A CA, and a certificate for 127.0.0.1 signed by it (docs/review-ui.md's steps, with the test's address).
    static func makeCertificate(in dir: TemporaryDirectory, name: String = "server") async throws -> Certificate {
        let (ca, caKey, key, csr, cert, ext) = (dir.path("\(name)-ca.pem"), dir.path("\(name)-ca-key.pem"), dir.path("\(name)-key.pem"),
                                               dir.path("\(name).csr"), dir.path("\(name).pem"), dir.path("\(name).ext"))
        try await openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=receipts test CA", "-keyout", caKey, "-out", ca])
        try await openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", csr])
        try "subjectAltName = IP:127.0.0.1, DNS:localhost\nextendedKeyUsage = serverAuth\n".write(toFile: ext, atomically: true, encoding: .utf8)
        try await openssl(["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", cert])
        return Certificate(ca: ca, cert: cert, key: key)
    }

    /// curl's exit status, the HTTP status it got (0 for none), its headers and body.
    static func curl(_ arguments: [String]) async throws -> (exit: Int32, status: Int, output: String) {
        let result = try await ReceiptsCLI.runProgram("/usr/bin/curl", ["-s", "-S", "--max-time", "30", "-i", "-w", "\n%{http_code}"] + arguments)
        let status = Int(result.out.split(separator: "\n").last ?? "") ?? 0
        return (result.status, status, result.out + result.err)
    }

    @Test func withACertificateTheServerAnswersOverTLS() async throws {
        let dir = try TemporaryDirectory()
        let certificate = try await Self.makeCertificate(in: dir)
        let token = try await ReceiptsCLI.run(["token", "create", "--name", "phone", "--store", dir.storePath]).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try await ServeCommandTests.Server(store: dir.storePath, arguments: ["--tls-cert", certificate.cert, "--tls-key", certificate.key])
        let url = server.base.absoluteString
        #expect(url.hasPrefix("https://127.0.0.1:"), "the listening line says https: \(url)")

        let health = try await Self.curl(["--cacert", certificate.ca, url + "/healthz"])
        #expect(health.exit == 0 && health.status == 200 && health.output.contains(#""status":"ok""#), "\(health.output)")
        let records = try await Self.curl(["--cacert", certificate.ca, "-H", "Authorization: Bearer \(token)", url + "/v1/receipts"])
        #expect(records.status == 200 && records.output.contains(#""receipts":[]"#), "\(records.output)")
        // Only a client that trusts the CA gets an answer: the certificate is checked, not waved through.
        let untrusted = try await Self.curl([url + "/healthz"])
        #expect(untrusted.exit == 60 && untrusted.status == 0, "a client without the CA refuses the certificate: \(untrusted.output)")
        // Plain HTTP to the HTTPS port gets no HTTP answer.
        let plain = try await Self.curl([url.replacingOccurrences(of: "https://", with: "http://") + "/healthz"])
        #expect(plain.exit != 0 && plain.status == 0, "\(plain.output)")
        // Over HTTPS the review page's session cookie is Secure: a browser never sends it over plain HTTP.
        // As the sign-in page does: its form's CSRF token, with the cookie its GET sets.
        let jar = dir.path("cookies.txt")
        let form = try await Self.curl(["--cacert", certificate.ca, "-c", jar, url + "/signin"])
        let csrf = try #require(form.output.range(of: #"name="csrf" value="[^"]+""#, options: .regularExpression)
            .map { String(form.output[$0].split(separator: "\"")[3]) }, "\(form.output)")
        let signIn = try await Self.curl(["--cacert", certificate.ca, "-b", jar, "-H", "Origin: \(url)", "--data-urlencode", "token=\(token)",
                                          "--data-urlencode", "csrf=\(csrf)", url + "/signin"])
        // Header lines end in CRLF, one Character in Swift: split on any line break.
        let cookie = signIn.output.split(whereSeparator: \.isNewline).first { $0.lowercased().hasPrefix("set-cookie: receipts_session=") } ?? ""
        #expect(signIn.status == 303 && cookie.contains("Secure") && cookie.contains("HttpOnly"), "\(signIn.output)")
        #expect(try await server.stop())
    }

    @Test func aMissingOrWrongCertificateOrKeyStopsTheServerSayingWhich() async throws {
        let dir = try TemporaryDirectory()
        let certificate = try await Self.makeCertificate(in: dir)
        let other = try await Self.makeCertificate(in: dir, name: "other")
        try "not a certificate\n".write(toFile: dir.path("junk.pem"), atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--tls-cert", certificate.cert], "--tls-cert needs --tls-key"),
            (["--tls-key", certificate.key], "--tls-key needs --tls-cert"),
            (["--tls-cert", dir.path("missing.pem"), "--tls-key", certificate.key], "--tls-cert \(dir.path("missing.pem")): no such file"),
            (["--tls-cert", dir.path("junk.pem"), "--tls-key", certificate.key], "not a PEM certificate"),
            (["--tls-cert", certificate.cert, "--tls-key", dir.path("junk.pem")], "--tls-key \(dir.path("junk.pem")): not a PEM private key"),
            (["--tls-cert", certificate.cert, "--tls-key", other.key], "is not the private key of the certificate in \(certificate.cert)"),
        ]
        for (arguments, expected) in cases {
            let result = try await ReceiptsCLI.run(["serve", "--port", "0", "--store", dir.storePath] + arguments)
            #expect(result.status != 0 && result.err.contains(expected), "\(arguments): \(result.status) \(result.err)")
            #expect(!result.err.contains("Listening"), "\(arguments): it never listens")
        }
    }
}
