import Crypto
import Foundation
import ReceiptKit
import Testing
@testable import ReceiptServer

/// The CBOR decoder against RFC 8949's examples and what it must refuse.
@Suite struct CBORTests {
    static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! }
    }

    @Test func rfc8949sExamplesDecodeAndEncodeBack() throws {
        let examples: [(String, CBOR)] = [
            ("00", .unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
            ("1bffffffffffffffff", .unsigned(.max)), ("20", .int(-1)), ("3903e7", .int(-1000)),
            ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])), ("6161", .text("a")), ("62c3bc", .text("ü")),
            ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
            ("a201020304", .map([(.unsigned(1), .unsigned(2)), (.unsigned(3), .unsigned(4))])),
            ("a26161016162820203", .map([(.text("a"), .unsigned(1)), (.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
            ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null), ("c11a514b67b0", .tagged(1, .unsigned(1_363_896_240))),
            ("fb3ff199999999999a", .double(1.1)),
        ]
        for (hex, value) in examples {
            #expect(try CBOR.decode(Self.hex(hex)) == value, "\(hex)")
            #expect(try CBOR.decode(value.encoded) == value, "\(hex) round trip")
        }
        #expect(try CBOR.decode(Self.hex("f93c00")) == .double(1.0), "a half-precision float")
    }

    @Test func truncatedIndefiniteDeepOrOversizedInputIsRefused() {
        for hex in ["", "18", "1903", "4401", "62c3", "8301", "a1", "5f4101ff", "9f01ff", "a20102", "636162",
                    "9bffffffffffffffff", "a2010201" + "04", "a201020102", "f8ff", "1c", "62ff00", "0000"] {
            #expect(throws: CBOR.Failure.self, "\(hex)") { try CBOR.decode(Self.hex(hex)) }
        }
        let deep = [UInt8](repeating: 0x81, count: 40) + [0x00]
        #expect(throws: CBOR.Failure.self) { try CBOR.decode(deep) }
    }
}

/// The relying party's checks of both ceremonies, with a software authenticator (ES256 and RS256):
/// each refusal of the issue, one by one.
@Suite struct WebAuthnTests {
    let party = WebAuthn(rpID: "localhost", origin: "http://localhost:8080")
    let options: JSONValue = .object([("challenge", .string(Base64URL.encode(Base64URL.random()))),
                                      ("user", .object([("id", .string(Base64URL.encode(Base64URL.random(16))))]))])

    func register(_ authenticator: inout SoftwareAuthenticator, origin: String? = nil, rpID: String? = nil,
                  flags: UInt8 = 0x05) throws -> WebAuthn.NewCredential {
        let answer = authenticator.register(options: options, origin: origin, rpID: rpID, flags: flags)
        return try party.register(clientDataJSON: answer.bytes("clientDataJSON"), attestationObject: answer.bytes("attestationObject"),
                                  rawID: answer.bytes("rawId"))
    }

    func signIn(_ answer: JSONValue, _ credential: WebAuthn.NewCredential, stored: UInt32) throws -> WebAuthn.Assertion {
        try party.signIn(clientDataJSON: answer.bytes("clientDataJSON"), authenticatorData: answer.bytes("authenticatorData"),
                         signature: answer.bytes("signature"), publicKey: credential.publicKey, storedSignCount: stored)
    }

    @Test(arguments: [false, true]) func aPasskeyRegistersAndSignsIn(rsa: Bool) throws {
        var authenticator = try SoftwareAuthenticator(rsa: rsa)
        let credential = try register(&authenticator)
        #expect(credential.algorithm == (rsa ? -257 : -7) && credential.id == authenticator.credentialID)
        #expect(credential.challenge == options["challenge"]?.stringValue)
        let assertion = try signIn(try authenticator.assert(challenge: "abc"), credential, stored: 0)
        #expect(assertion.signCount == 1 && assertion.challenge == "abc")
    }

    @Test func anotherOriginOrRPIDOrNoUserVerificationIsRefused() throws {
        var authenticator = try SoftwareAuthenticator()
        #expect(throws: WebAuthn.Failure.self) { try register(&authenticator, origin: "http://evil.example:8080") }
        #expect(throws: WebAuthn.Failure.self) { try register(&authenticator, rpID: "evil.example") }
        #expect(throws: WebAuthn.Failure.self) { try register(&authenticator, flags: 0x01) }
        let credential = try register(&authenticator)
        for (origin, rpID, flags) in [("http://evil.example:8080", nil, UInt8(0x05)), (nil, "evil.example", 0x05), (nil, nil, 0x01),
                                      ("https://localhost:8080", nil, 0x05)] as [(String?, String?, UInt8)] {
            let answer = try authenticator.assert(challenge: "c", origin: origin, rpID: rpID, flags: flags)
            #expect(throws: WebAuthn.Failure.self, "\(origin ?? "") \(rpID ?? "") \(flags)") { try signIn(answer, credential, stored: 0) }
        }
    }

    @Test func aLowerOrEqualCounterAndAForgedSignatureAreRefused() throws {
        var authenticator = try SoftwareAuthenticator()
        let credential = try register(&authenticator)
        let lower = try authenticator.assert(challenge: "c", count: 4)
        #expect(throws: WebAuthn.Failure.self) { try signIn(lower, credential, stored: 5) }
        #expect(throws: WebAuthn.Failure.self) { try signIn(lower, credential, stored: 4) }
        #expect(try signIn(lower, credential, stored: 3).signCount == 4)
        // Another authenticator's signature over the same data.
        var other = try SoftwareAuthenticator()
        _ = try register(&other)
        let forged = try other.assert(challenge: "c", count: 9)
        #expect(throws: WebAuthn.Failure.self) { try signIn(forged, credential, stored: 0) }
        // A key of another algorithm than the two accepted.
        let eddsa = CBOR.map([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)), (.int(-2), .bytes(Array(repeating: 1, count: 32)))])
        #expect(throws: WebAuthn.Failure.self) { try WebAuthn.PublicKey(cose: eddsa.encoded) }
    }

    @Test func theRelyingPartyComesFromAPublicURLWithAName() throws {
        let local = try #require(WebAuthn(publicURL: URL(string: "http://localhost:8080")!))
        #expect(local.rpID == "localhost" && local.origin == "http://localhost:8080")
        let home = try #require(WebAuthn(publicURL: URL(string: "https://Receipts.Example.com:443/app")!))
        #expect(home.rpID == "receipts.example.com" && home.origin == "https://receipts.example.com")
        #expect(WebAuthn(publicURL: URL(string: "http://127.0.0.1:8080")!) == nil, "an IP address is no relying party")
        #expect(WebAuthn(publicURL: URL(string: "http://[::1]:8080")!) == nil)
    }
}
