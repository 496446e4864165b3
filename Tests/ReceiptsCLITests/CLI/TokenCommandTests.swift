import Foundation
import Testing
@testable import TestHelpers

/// `receipts token create|list|revoke`: the API tokens `receipts serve` asks for. What the routes
/// do with them (401 without one, a revoked one refused) is tested in process: ReceiptServerTests'
/// ProtocolRoutesTests.
@Suite struct TokenCommandTests {
    @Test func aTokenIsPrintedOnceOnlyItsHashIsStoredAndTheListNamesTokens() async throws {
        let dir = try TemporaryDirectory()
        let created = try await ReceiptsCLI.run(["token", "create", "--name", "bookkeeping-app", "--store", dir.storePath])
        #expect(created.status == 0, "\(created.err)")
        let token = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("rcp_") && token.count > 40)
        let stored = try String(contentsOfFile: dir.storePath, encoding: .isoLatin1)
        #expect(!stored.contains(token), "only the token's hash is stored")
        _ = try await ReceiptsCLI.run(["token", "create", "--name", "old", "--store", dir.storePath])
        _ = try await ReceiptsCLI.run(["token", "create", "--name", "older", "--store", dir.storePath])
        #expect(try await ReceiptsCLI.run(["token", "revoke", "older", "--store", dir.storePath]).status == 0)
        let listed = try await ReceiptsCLI.run(["token", "list", "--store", dir.storePath])
        #expect(listed.out.contains("bookkeeping-app") && listed.out.contains("revoked") && !listed.out.contains(token))
    }

    /// Scopes, an expiry and a rate limit at creation; the list shows them, and the last use, after
    /// the name, the creation time and the state (the columns of before).
    @Test func aTokenIsMadeWithScopesExpiryAndRateLimitAndTheListShowsThem() async throws {
        let dir = try TemporaryDirectory()
        let scanner = try await ReceiptsCLI.run(["token", "create", "--name", "scanner", "--scope", "upload", "--expires", "90d",
                                                 "--rate-limit", "120/min", "--store", dir.storePath])
        #expect(scanner.status == 0 && scanner.err.contains("scopes upload, until 20"), "\(scanner.err)")
        let full = try await ReceiptsCLI.run(["token", "create", "--name", "full", "--store", dir.storePath])
        #expect(full.status == 0 && full.err.contains("scopes admin"), "\(full.err)")
        let dated = try await ReceiptsCLI.run(["token", "create", "--name", "dated", "--scope", "read,review", "--expires", "2099-01-31",
                                               "--rate-limit", "off", "--store", dir.storePath])
        #expect(dated.status == 0, "\(dated.err)")
        let listed = try await ReceiptsCLI.run(["token", "list", "--store", dir.storePath])
        let rows = Dictionary(uniqueKeysWithValues: listed.out.split(separator: "\n").map { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return (columns[0], columns)
        })
        #expect(rows["scanner"]?.count == 8, "\(listed.out)")
        // Made without --user: the store's first administrator's.
        #expect(rows["scanner"]?.last == "admin", "\(listed.out)")
        #expect(rows["scanner"].map { [$0[2], $0[3], $0[5], $0[6]] } == ["active", "upload", "never", "120/min"], "\(listed.out)")
        #expect(rows["full"].map { [$0[2], $0[3], $0[4], $0[6]] } == ["active", "admin", "never", "default"], "\(listed.out)")
        #expect(rows["dated"].map { [$0[3], $0[4], $0[6]] } == ["read,review", "2099-02-01T00:00:00Z", "off"], "\(listed.out)")
        for secret in [scanner, full, dated].map({ $0.out.trimmingCharacters(in: .whitespacesAndNewlines) }) {
            #expect(!listed.out.contains(secret))
        }
        // What is not understood is a usage error naming the flag.
        for (flag, value, says) in [("--scope", "write", "unknown scope 'write'"), ("--expires", "yesterday", "--expires yesterday"),
                                    ("--expires", "2001-01-01", "already past"), ("--rate-limit", "lots", "--rate-limit")] {
            let refused = try await ReceiptsCLI.run(["token", "create", "--name", "x", flag, value, "--store", dir.storePath])
            #expect(refused.status == 64 || refused.status == 2, "\(flag) \(value): \(refused)")
            #expect(refused.err.contains(says), "\(flag) \(value): \(refused.err)")
        }
    }
}
