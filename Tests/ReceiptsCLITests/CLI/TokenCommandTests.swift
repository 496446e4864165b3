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
}
