import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptServerStore

/// The open mode: while nobody can sign in to a store (no API token, password, passkey, open
/// invitation or person's session: `AccountStore.canAnyoneSignIn`), `receipts serve` answers a
/// `/v1` request from this computer as the store's first administrator, so that one person trying
/// the program needs no token. It never applies to a request that
/// - carries credentials: an `Authorization` header (checked as a token) or a session cookie
///   (valid or not: an ended session is refused, never answered as the administrator);
/// - came over a connection from another computer;
/// - was forwarded by a proxy (`X-Forwarded-For`, `X-Real-IP` or `Forwarded` naming any address
///   that is not loopback, or one it hides): a reverse proxy on this computer (TLS for a phone)
///   connects from loopback, and its headers say whom it forwards.
/// The first password, passkey, invitation or token ends it, for every request after.
enum OpenMode {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let realIP = HTTPField.Name("X-Real-IP")!
    static let forwarded = HTTPField.Name("Forwarded")!

    /// Lets a request without credentials through in the open mode, or refuses it (401) saying
    /// what it needs.
    static func check(_ request: Request, remote: SocketAddress?, store: any AccountStore, now: Date = Date()) async throws {
        let needed = "an API token is needed: Authorization: Bearer <token> (or sign in at /signin)"
        if let why = notLocal(request, remote: remote) {
            throw Problem(.unauthorized, "\(needed); only a request from this computer is answered without one while nobody can sign in, and \(why)")
        }
        guard try await store.canAnyoneSignIn(now: now) else { return }
        if try await store.hasActiveTokens() { throw Problem(.unauthorized, needed) }
        throw Problem(.unauthorized, "\(needed): people can sign in to this server, so it no longer answers requests without either")
    }

    /// Why a request without credentials is not from this computer, or nil when it is: its
    /// connection's address (nil: a request handed to the router in process, by a test) and the
    /// addresses a proxy says it forwards it for.
    static func notLocal(_ request: Request, remote: SocketAddress?) -> String? {
        if let remote, !isLoopback(remote) {
            return "it comes from \(remote.ipAddress ?? "another computer")"
        }
        for (name, spelled) in [(forwardedFor, "X-Forwarded-For"), (realIP, "X-Real-IP"), (forwarded, "Forwarded")] {
            for value in request.headers[values: name] {
                let addresses = name == forwarded ? forwardedForAddresses(value) : value.split(separator: ",").map(String.init)
                // (A header that names nobody hides whom it forwards.)
                let outside = addresses.isEmpty ? "" : addresses.map(trimmed).first { !isLoopbackText($0) }
                if let outside {
                    return "a proxy forwarded it (\(spelled): \(outside.isEmpty ? "no address" : outside))"
                }
            }
        }
        return nil
    }

    static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .unixDomainSocket: true
        default: address.ipAddress.map(isLoopbackText) ?? false
        }
    }

    /// `127.0.0.1`, `::1`, `[::1]:8080`, `127.0.0.1:8080`, `::ffff:127.0.0.1`, `localhost`.
    static func isLoopbackText(_ text: String) -> Bool {
        var host = text.lowercased()
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
            host = String(host[host.index(after: host.startIndex)..<end])
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            host = String(host[..<colon])
        }
        if host.hasPrefix("::ffff:") { host = String(host.dropFirst("::ffff:".count)) }
        return host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1"
            || (host.hasPrefix("127.") && host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil })
    }

    /// The `for=` values of a `Forwarded` header (RFC 7239), unquoted: `for="[::1]:80";proto=https, for=203.0.113.5`.
    static func forwardedForAddresses(_ value: String) -> [String] {
        value.split(separator: ",").flatMap { element in
            element.split(separator: ";").compactMap { pair -> String? in
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, trimmed(String(parts[0])).lowercased() == "for" else { return nil }
                return trimmed(String(parts[1])).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
    }

    private static func trimmed(_ text: String) -> String { text.trimmingCharacters(in: .whitespaces) }
}
