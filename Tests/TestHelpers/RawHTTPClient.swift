import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 client as Python's `urllib` and `http.client` behave: it writes the whole request
/// (headers, then every byte of the body) before it reads anything, on a blocking socket. A server
/// that stops reading a body it refuses leaves such a client stuck in `write`; `timeout` bounds each
/// read and write so the test fails instead of hanging.
enum RawHTTPClient {
    struct Answer {
        /// Nil when no status line came back (the server closed, reset, or the client timed out).
        var status: Int?
        var head: String
        var body: String
        /// What went wrong on the client's side (a write or read that failed or timed out).
        var failure: String?
    }

    static func send(port: Int, head: String, body: Data, timeout: Int = 10) async throws -> Answer {
        try await OffPool.run { try sendBlocking(port: port, head: head, body: body, timeout: timeout) }
    }

    private static func sendBlocking(port: Int, head: String, body: Data, timeout: Int) throws -> Answer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var failure: String?
        for chunk in [Data(head.utf8), body] where failure == nil {
            chunk.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    if n < 0 {
                        if errno == EINTR { continue }
                        failure = "write failed after \(offset) of \(raw.count) bytes: \(String(cString: strerror(errno)))"
                        return
                    }
                    offset += n
                }
            }
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { received.append(contentsOf: buffer[0..<n]); continue }
            if n < 0, errno == EINTR { continue }
            if n < 0 { failure = failure ?? "read failed: \(String(cString: strerror(errno)))" }
            break
        }
        let text = String(decoding: received, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return Answer(status: status, head: head, body: parts.dropFirst().joined(separator: "\r\n\r\n"), failure: failure)
    }
}
