import Foundation
import ReceiptKit
#if canImport(Glibc)
import Glibc
#endif

/// Whether this process can listen on a host and port, asked of the system before `receipts
/// serve` starts anything else: a socket bound there (with `SO_REUSEADDR`, as the server's own)
/// and closed at once. The server binds again when it starts; this only finds out early what
/// would refuse it (a port in use, a privileged port, an address not this host's).
enum ListenCheck {
    /// Nil when `host`:`port` can be listened on; else the system's error number.
    static func errorNumber(host: String, port: Int) -> Int32? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found else { return EADDRNOTAVAIL }
        defer { freeaddrinfo(found) }
        let socket = Glibc.socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard socket >= 0 else { return errno }
        defer { close(socket) }
        var on: Int32 = 1
        _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else { return errno }
        guard listen(socket, 1) == 0 else { return errno }
        return nil
    }

    /// The error `receipts serve` stops with when it cannot listen (`errorNumber`).
    static func error(host: String, port: Int, errorNumber: Int32) -> ReceiptError {
        let (why, hint): (String, ReceiptError.Hint) = errorNumber == EADDRINUSE ? ("another process listens on it; stop it", .portInUse)
            : errorNumber == EACCES ? ("not allowed (ports below 1024 need privileges)", .portPrivileged)
            : ("the address is not one of this host's", .hostAddress)
        return ReceiptError(.invalidConfiguration, "cannot listen on \(host):\(port): \(why)", cause: String(cString: strerror(errorNumber)), hint: hint)
    }
}
