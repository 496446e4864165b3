import Crypto
import _CryptoExtras
import Foundation
import ReceiptKit

/// Passkeys (WebAuthn Level 2) as a relying party checks them: the server is the relying party,
/// named by `--public-url` (its host is the RP ID, its scheme, host and port the one origin
/// accepted). Attestation is `none`: a passkey's public key is trusted because a signed-in user
/// registered it, not because of who made the authenticator. ES256 (P-256) and RS256 (RSA of
/// 2048 bits or more, PKCS#1 v1.5) keys are verified with swift-crypto; user verification is
/// required (the authenticator's fingerprint, face or PIN); the signature counter must grow.
///
/// Pure checks, no store and no clock: the caller takes the challenge (single-use, short-lived)
/// from the store and passes what it was. Fuzzed (`make fuzz`, target `webauthn`).
struct WebAuthn: Sendable {
    /// The relying party's ID: `--public-url`'s host (a browser refuses an IP address).
    let rpID: String
    /// `--public-url`'s origin: `https://receipts.example` or `http://localhost:8080`.
    let origin: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The relying party of a public URL: nil when it has no host, or an IP address as its host
    /// (a browser refuses an IP address as an RP ID), or a scheme other than http(s).
    init?(publicURL: URL) {
        guard let scheme = publicURL.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = publicURL.host?.lowercased(), !host.isEmpty, !Self.isIPAddress(host) else { return nil }
        rpID = host
        let defaultPort = scheme == "https" ? 443 : 80
        origin = "\(scheme)://\(host)" + (publicURL.port.map { $0 == defaultPort ? "" : ":\($0)" } ?? "")
    }

    init(rpID: String, origin: String) {
        self.rpID = rpID
        self.origin = origin
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil })
    }

    /// COSE algorithm numbers of the keys accepted.
    static let es256 = -7, rs256 = -257

    // MARK: What the browser sends back

    /// `clientDataJSON`'s fields a relying party checks.
    struct ClientData {
        var type: String
        var challenge: String
        var origin: String
        var crossOrigin: Bool
    }

    static func clientData(_ bytes: [UInt8]) throws -> ClientData {
        guard let json = try? JSONValue.parse(bytes), json.objectValue != nil else { throw Failure("clientDataJSON is not a JSON object") }
        guard let type = json["type"]?.stringValue, let challenge = json["challenge"]?.stringValue,
              let origin = json["origin"]?.stringValue else {
            throw Failure("clientDataJSON lacks its type, challenge or origin")
        }
        return ClientData(type: type, challenge: challenge, origin: origin, crossOrigin: json["crossOrigin"]?.boolValue ?? false)
    }

    /// `authenticatorData`: the RP ID's hash, the flags, the counter, and (when registering) the
    /// new credential's ID and COSE public key.
    struct AuthenticatorData {
        var rpIDHash: [UInt8]
        var flags: UInt8
        var signCount: UInt32
        var credentialID: [UInt8]?
        var publicKey: [UInt8]?

        var userPresent: Bool { flags & 0x01 != 0 }
        var userVerified: Bool { flags & 0x04 != 0 }
        var backupEligible: Bool { flags & 0x08 != 0 }
        var backedUp: Bool { flags & 0x10 != 0 }
    }

    static func authenticatorData(_ bytes: [UInt8]) throws -> AuthenticatorData {
        guard bytes.count >= 37 else { throw Failure("authenticatorData is \(bytes.count) bytes, less than 37") }
        let flags = bytes[32]
        var data = AuthenticatorData(rpIDHash: Array(bytes[0..<32]), flags: flags,
                                     signCount: bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) })
        var rest = bytes[37...]
        if flags & 0x40 != 0 {
            guard rest.count >= 18 else { throw Failure("authenticatorData ends inside its attested credential data") }
            let length = Int(rest[rest.startIndex + 16]) << 8 | Int(rest[rest.startIndex + 17])
            rest = rest.dropFirst(18)
            guard length > 0, length <= 1023, rest.count >= length else { throw Failure("the credential ID's length (\(length)) is wrong") }
            data.credentialID = Array(rest.prefix(length))
            rest = rest.dropFirst(length)
            let (key, after) = try CBOR.decodePrefix(rest)
            guard key.mapValue != nil else { throw Failure("the credential's public key is not a COSE key (a CBOR map)") }
            data.publicKey = Array(rest.prefix(rest.count - after.count))
            rest = after
        }
        if flags & 0x80 != 0 {
            let (extensions, after) = try CBOR.decodePrefix(rest)
            guard extensions.mapValue != nil else { throw Failure("authenticatorData's extensions are not a CBOR map") }
            rest = after
        }
        guard rest.isEmpty else { throw Failure("\(rest.count) bytes follow authenticatorData's fields") }
        return data
    }

    // MARK: Public keys

    /// A passkey's public key, read from its COSE_Key (RFC 9053): EC2 P-256 for ES256, RSA for RS256.
    enum PublicKey {
        case es256(P256.Signing.PublicKey)
        case rs256(_RSA.Signing.PublicKey)

        init(cose bytes: [UInt8]) throws {
            let key = try CBOR.decode(bytes)
            guard let kty = key[1]?.int, let alg = key[3]?.int else { throw Failure("the COSE key lacks its type or algorithm") }
            switch (kty, alg) {
            case (2, WebAuthn.es256):
                guard key[-1]?.int == 1, let x = key[-2]?.bytesValue, let y = key[-3]?.bytesValue, x.count == 32, y.count == 32 else {
                    throw Failure("the ES256 key is not a P-256 point")
                }
                guard let point = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y) else {
                    throw Failure("the ES256 key's point is not on the P-256 curve")
                }
                self = .es256(point)
            case (3, WebAuthn.rs256):
                guard let n = key[-1]?.bytesValue, let e = key[-2]?.bytesValue, !n.isEmpty, !e.isEmpty, e.count <= 8 else {
                    throw Failure("the RS256 key lacks its modulus or exponent")
                }
                guard let rsa = try? _RSA.Signing.PublicKey(n: n, e: e), rsa.keySizeInBits >= 2048 else {
                    throw Failure("the RS256 key is not an RSA key of 2048 bits or more")
                }
                self = .rs256(rsa)
            default:
                throw Failure("the key's algorithm \(alg) (key type \(kty)) is neither ES256 (-7) nor RS256 (-257)")
            }
        }

        var algorithm: Int {
            switch self {
            case .es256: WebAuthn.es256
            case .rs256: WebAuthn.rs256
            }
        }

        func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
            switch self {
            case let .es256(key):
                guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
                return key.isValidSignature(signature, for: data)
            case let .rs256(key):
                return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
            }
        }
    }

    // MARK: The two ceremonies

    /// A passkey being registered, as checked: what the store keeps of it.
    struct NewCredential {
        var id: [UInt8]
        var publicKey: [UInt8]
        var algorithm: Int
        var signCount: UInt32
        /// The challenge the browser signed (base64url): the caller takes it from the store.
        var challenge: String
        var backedUp: Bool
    }

    /// Checks a registration (`navigator.credentials.create`'s answer) but its challenge, which the
    /// caller must take (single use) from the store: the type, this origin, this RP ID, the user
    /// present and verified, a credential ID equal to `rawID`, and a public key of an accepted
    /// algorithm. Attestation statements are not checked (attestation `none`).
    func register(clientDataJSON: [UInt8], attestationObject: [UInt8], rawID: [UInt8]) throws -> NewCredential {
        let client = try Self.clientData(clientDataJSON)
        try check(client, type: "webauthn.create")
        let object = try CBOR.decode(attestationObject)
        guard object["fmt"]?.textValue != nil, object["attStmt"]?.mapValue != nil, let authBytes = object["authData"]?.bytesValue else {
            throw Failure("the attestationObject lacks its fmt, attStmt or authData")
        }
        let auth = try Self.authenticatorData(authBytes)
        try check(auth)
        guard let id = auth.credentialID, let key = auth.publicKey else { throw Failure("the registration holds no new credential") }
        guard id == rawID else { throw Failure("the credential's ID differs from the one the browser gave") }
        let publicKey = try PublicKey(cose: key)
        return NewCredential(id: id, publicKey: key, algorithm: publicKey.algorithm, signCount: auth.signCount, challenge: client.challenge,
                             backedUp: auth.backedUp)
    }

    /// A sign-in as checked: the challenge signed (the caller takes it from the store) and the
    /// authenticator's new counter.
    struct Assertion {
        var challenge: String
        var signCount: UInt32
    }

    /// Checks a sign-in (`navigator.credentials.get`'s answer) with the stored passkey's COSE key
    /// and counter: the type, this origin, this RP ID, the user present and verified, the
    /// signature over `authenticatorData ‖ SHA-256(clientDataJSON)`, and a counter above the one
    /// stored (a lower or equal one means a cloned authenticator) unless both are 0 (authenticators
    /// that keep no counter).
    func signIn(clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
                publicKey: [UInt8], storedSignCount: UInt32) throws -> Assertion {
        let client = try Self.clientData(clientDataJSON)
        try check(client, type: "webauthn.get")
        let auth = try Self.authenticatorData(authenticatorData)
        try check(auth)
        let key = try PublicKey(cose: publicKey)
        guard key.isValidSignature(signature, for: authenticatorData + Array(SHA256.hash(data: clientDataJSON))) else {
            throw Failure("the passkey's signature does not verify")
        }
        if auth.signCount != 0 || storedSignCount != 0, auth.signCount <= storedSignCount {
            throw Failure("the passkey's signature counter went from \(storedSignCount) to \(auth.signCount): it may have been copied")
        }
        return Assertion(challenge: client.challenge, signCount: auth.signCount)
    }

    private func check(_ client: ClientData, type: String) throws {
        guard client.type == type else { throw Failure("clientDataJSON's type is '\(client.type)', not \(type)") }
        guard client.origin == origin else { throw Failure("the origin \(client.origin) is not this server's (\(origin))") }
        guard !client.crossOrigin else { throw Failure("the passkey was used in a frame of another site") }
    }

    private func check(_ auth: AuthenticatorData) throws {
        guard auth.rpIDHash == Array(SHA256.hash(data: Data(rpID.utf8))) else {
            throw Failure("the passkey is for another relying party than \(rpID)")
        }
        guard auth.userPresent else { throw Failure("the authenticator did not see the user (no user presence)") }
        guard auth.userVerified else { throw Failure("the authenticator did not verify the user (no fingerprint, face or PIN)") }
    }
}

/// base64url without padding, as WebAuthn's JSON carries bytes.
enum Base64URL {
    static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }

    /// `count` random bytes.
    static func random(_ count: Int = 32) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
