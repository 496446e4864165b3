import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import ReceiptKit
@testable import ReceiptServer
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// The open mode (issue 56) on the router, in process: which forwarding headers keep a request
/// this computer's, which credentials take it out of the open mode, and the sign-in page's note.
/// The same on a real server, on both stores, state by state: AuthorizationMatrixTests.
@Suite struct OpenModeTests {
    func status(_ client: any TestClientProtocol, _ headers: [String: String]) async throws -> (HTTPResponse.Status, String) {
        var fields = HTTPFields()
        for (name, value) in headers { fields[try #require(HTTPField.Name(name))] = value }
        let response = try await client.execute(uri: "/v1/me", method: .get, headers: fields)
        return (response.status, String(buffer: response.body))
    }

    @Test func onlyARequestFromThisComputerWithoutCredentialsIsAnsweredAsTheAdministrator() async throws {
        let fixture = try RoutesTests.Fixture()
        try await fixture.test { client in
            let local: [[String: String]] = [
                [:], ["X-Forwarded-For": "127.0.0.1"], ["X-Forwarded-For": "127.0.0.1, ::1"], ["X-Real-IP": "127.0.0.2"],
                ["Forwarded": #"for="[::1]:8443";proto=https"#], ["Forwarded": "for=127.0.0.1, for=localhost"],
            ]
            for headers in local {
                let (status, body) = try await status(client, headers)
                #expect(status == .ok && body.contains(#""admin":true"#), "\(headers): \(status) \(body)")
            }
            let refused: [[String: String]] = [
                ["X-Forwarded-For": "203.0.113.5"], ["X-Forwarded-For": "127.0.0.1, 203.0.113.5"], ["X-Forwarded-For": ""],
                ["X-Real-IP": "10.0.0.2"], ["Forwarded": "for=unknown"], ["Forwarded": "for=_hidden"], ["Forwarded": "proto=https"],
                ["Forwarded": #"for="[2001:db8::1]:443""#], ["X-Forwarded-For": "127.0.0.1.example.com"],
                ["Cookie": "receipts_session=made-up"], ["Authorization": "Basic YWRtaW46YWRtaW4="],
                ["Authorization": "Bearer rcp_made-up"],
            ]
            for headers in refused {
                let (status, body) = try await status(client, headers)
                #expect(status == .unauthorized && !body.contains(#""admin":true"#), "\(headers): \(status) \(body)")
            }
            let (_, forwarded) = try await status(client, ["X-Forwarded-For": "203.0.113.5"])
            #expect(forwarded.contains("a proxy forwarded it (X-Forwarded-For: 203.0.113.5)"), "\(forwarded)")
            let (_, ended) = try await status(client, ["Cookie": "receipts_session=made-up"])
            #expect(ended.contains("session has ended"), "\(ended)")
        }
    }

    @Test func aPasswordEndsTheOpenModeAndTheSignInPageSaysSo() async throws {
        let fixture = try RoutesTests.Fixture()
        let store = try SQLiteReceiptStore(path: fixture.dir.storePath)
        try await fixture.test { client in
            let before = String(buffer: try await client.execute(uri: "/signin", method: .get).body)
            #expect(before.contains("Nobody can sign in yet") && before.contains("as the administrator"), "\(before)")
            #expect(try await status(client, [:]).0 == .ok)

            _ = try await store.addUser(name: "carol", isAdmin: false, defaultGroup: nil, now: Date())
            try await store.setPasswordHash(user: "carol", hash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdA$aGFzaA", now: Date())
            let after = String(buffer: try await client.execute(uri: "/signin", method: .get).body)
            #expect(!after.contains("Nobody can sign in yet"), "carol can sign in: \(after)")
            let (status, body) = try await status(client, [:])
            #expect(status == .unauthorized && body.contains("people can sign in"), "\(status) \(body)")
        }
    }
}
