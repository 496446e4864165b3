import Crypto
import _CryptoExtras
import Foundation
import ReceiptKit
@testable import ReceiptServer

/// A passkey authenticator in software, as a phone's would answer (CTAP2, attestation none): it
/// makes a credential (ES256 or RS256), signs assertions with its counter, and can be told to
/// lie (another origin, another RP ID, no user verification, a lowered counter) for the refusals.
struct SoftwareAuthenticator {
    enum Key {
        case es256(P256.Signing.PrivateKey)
        case rs256(_RSA.Signing.PrivateKey)
    }

    var rpID = "localhost"
    var origin = "http://localhost:8080"
    let key: Key
    let credentialID = Base64URL.random(16)
    var signCount: UInt32 = 0
    var userHandle: [UInt8] = []

    init(rsa: Bool = false) throws {
        key = rsa ? .rs256(try _RSA.Signing.PrivateKey(keySize: .bits2048)) : .es256(P256.Signing.PrivateKey())
    }

    var cose: [UInt8] {
        switch key {
        case let .es256(key):
            let point = key.publicKey.x963Representation
            return CBOR.map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
                             (.int(-2), .bytes(Array(point[1...32]))), (.int(-3), .bytes(Array(point[33...])))]).encoded
        case let .rs256(key):
            let primitives = try! key.publicKey.getKeyPrimitives()
            return CBOR.map([(.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes(Array(primitives.modulus))),
                             (.int(-2), .bytes(Array(primitives.publicExponent)))]).encoded
        }
    }

    static func clientData(type: String, challenge: String, origin: String) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    /// User present and verified (0x05); with the attested credential (0x40) when registering.
    func authenticatorData(flags: UInt8 = 0x05, count: UInt32, attested: Bool, rpID: String? = nil) -> [UInt8] {
        var data = Array(SHA256.hash(data: Data((rpID ?? self.rpID).utf8)))
        data.append(attested ? flags | 0x40 : flags)
        data += (0..<4).reversed().map { UInt8(truncatingIfNeeded: count >> ($0 * 8)) }
        if attested {
            data += [UInt8](repeating: 0, count: 16)
            data += [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xff)] + credentialID
            data += cose
        }
        return data
    }

    /// `navigator.credentials.create`'s answer to the server's options, as the page posts it.
    mutating func register(options: JSONValue, name: String = "test key", origin: String? = nil, rpID: String? = nil,
                           flags: UInt8 = 0x05) -> JSONValue {
        let challenge = options["challenge"]?.stringValue ?? ""
        userHandle = Base64URL.decode(options["user"]?["id"]?.stringValue ?? "") ?? []
        let object = CBOR.map([(.text("fmt"), .text("none")), (.text("attStmt"), .map([])),
                               (.text("authData"), .bytes(authenticatorData(flags: flags, count: signCount, attested: true, rpID: rpID)))])
        return .object([
            ("name", .string(name)), ("id", .string(Base64URL.encode(credentialID))), ("rawId", .string(Base64URL.encode(credentialID))),
            ("type", .string("public-key")),
            ("clientDataJSON", .string(Base64URL.encode(Self.clientData(type: "webauthn.create", challenge: challenge, origin: origin ?? self.origin)))),
            ("attestationObject", .string(Base64URL.encode(object.encoded))),
            ("userHandle", .string(options["user"]?["id"]?.stringValue ?? "")),
        ])
    }

    /// `navigator.credentials.get`'s answer: the counter goes up by one unless `count` is given.
    mutating func assert(challenge: String, origin: String? = nil, rpID: String? = nil, count: UInt32? = nil,
                         flags: UInt8 = 0x05) throws -> JSONValue {
        signCount = count ?? signCount + 1
        let client = Self.clientData(type: "webauthn.get", challenge: challenge, origin: origin ?? self.origin)
        let auth = authenticatorData(flags: flags, count: signCount, attested: false, rpID: rpID)
        let signed = auth + Array(SHA256.hash(data: client))
        let signature: [UInt8]
        switch key {
        case let .es256(key): signature = Array(try key.signature(for: signed).derRepresentation)
        case let .rs256(key): signature = Array(try key.signature(for: signed, padding: .insecurePKCS1v1_5).rawRepresentation)
        }
        return .object([
            ("id", .string(Base64URL.encode(credentialID))), ("rawId", .string(Base64URL.encode(credentialID))), ("type", .string("public-key")),
            ("clientDataJSON", .string(Base64URL.encode(client))), ("authenticatorData", .string(Base64URL.encode(auth))),
            ("signature", .string(Base64URL.encode(signature))), ("userHandle", .string(Base64URL.encode(userHandle))),
        ])
    }
}

extension JSONValue {
    /// The bytes of a base64url field.
    func bytes(_ name: String) -> [UInt8] { Base64URL.decode(self[name]?.stringValue ?? "") ?? [] }
}
