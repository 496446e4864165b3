import Testing
@testable import ReceiptServer
import ReceiptStorage

/// Receipts-External-User is taken as openapi.yaml describes it (schemathesis checks the document
/// against the server: a value the document allows must not be refused, one it refuses must be).
@Suite struct ExternalUserHeaderTests {
    @Test func theHeaderFollowsTheDocumentsPattern() {
        for name in ["u-42", "alice@example.com", "Smith family", " padded ", "oØ\u{82}", String(repeating: "x", count: 64)] {
            #expect(Principal.isValidExternalUser(name), "\(name.debugDescription) is valid by ^[^\\x00-\\x1f\\x7f/:,]+$")
        }
        for name in ["", "a/b", "a:b", "null,null", "u\u{01}42", "u\u{7f}", "tab\there", String(repeating: "x", count: 65)] {
            #expect(!Principal.isValidExternalUser(name), "\(name.debugDescription) is refused")
        }
    }
}
