// Test support is built for the tests only (debug builds, where @testable imports work):
// `swift build -c release` builds every regular target, this one included, and gets it empty.
#if DEBUG
import Foundation
@testable import ReceiptKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real HTTP/1.1 server on 127.0.0.1 for tests, scripted per request: each request takes the
/// next reply of the script (the last one repeats). It records every request with the time it
/// arrived and how many requests were being handled at once.
///
/// POSIX sockets, one thread per connection, `Connection: close` on every answer.
final class ScriptedHTTPServer: @unchecked Sendable {
    // Invariant: every `var` below is read and written only with `lock` held.

    struct Request: Sendable {
        var method: String
        var path: String
        /// Lower-cased names.
        var headers: [String: String]
        var body: Data
        var receivedAt: ContinuousClock.Instant

        var json: JSONValue? { try? JSONValue.parse(body) }
    }

    enum Reply: Sendable {
        /// Answer after `delay`.
        case respond(status: Int, headers: [String: String] = [:], body: String, delay: Duration = .zero)
        /// Close the connection without answering.
        case drop
        /// Never answer (the connection stays open until the server stops).
        case hang

        static func json(_ status: Int, _ body: String, headers: [String: String] = [:], delay: Duration = .zero) -> Reply {
            .respond(status: status, headers: ["Content-Type": "application/json"].merging(headers) { $1 }, body: body, delay: delay)
        }
    }

    private let lock = NSLock()
    private let listener: Int32
    let port: UInt16
    private var script: [Reply]
    private var served = 0
    private var recorded: [Request] = []
    private var inFlight = 0
    private var peakInFlight = 0
    private var stopped = false
    private var openConnections: Set<Int32> = []
    private let stopSignal = DispatchSemaphore(value: 0)

    /// Listens on `port` (0: a free one). A port a stopped server used can be taken again (a
    /// receiver that was down and is back).
    init(_ script: [Reply], port requested: UInt16 = 0) throws {
        precondition(!script.isEmpty)
        self.script = script
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = requested.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    var requests: [Request] { lock.withLock { recorded } }

    /// The most requests being handled at the same moment.
    var maxConcurrentRequests: Int { lock.withLock { peakInFlight } }

    /// Seconds between consecutive requests.
    var gaps: [Double] {
        let times = requests.map(\.receivedAt)
        return zip(times, times.dropFirst()).map { ($1 - $0).seconds }
    }

    /// Stops accepting and ends every open connection (a `.hang` reply returns). File descriptors
    /// are shut down and closed only with `lock` held, so a number reused by another socket of the
    /// test process is never touched.
    func stop() {
        let first: Bool = lock.withLock {
            if stopped { return false }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for fd in openConnections { shutdown(fd, Int32(SHUT_RDWR)) }
            return true
        }
        if first { for _ in 0..<64 { stopSignal.signal() } }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR, !lock.withLock({ stopped }) { continue }
                lock.withLock { _ = close(listener) }
                return
            }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let accepted: Bool = lock.withLock {
                if stopped { close(fd); return false }
                openConnections.insert(fd)
                return true
            }
            if accepted { Thread { [self] in handle(fd) }.start() }
        }
    }

    private func handle(_ fd: Int32) {
        defer {
            lock.withLock {
                openConnections.remove(fd)
                close(fd)
            }
        }
        guard let request = readRequest(fd) else { return }
        let reply: Reply = lock.withLock {
            recorded.append(request)
            let reply = script[min(served, script.count - 1)]
            served += 1
            inFlight += 1
            peakInFlight = max(peakInFlight, inFlight)
            return reply
        }
        defer { lock.withLock { inFlight -= 1 } }
        switch reply {
        case .drop:
            return
        case .hang:
            stopSignal.wait()
        case let .respond(status, headers, body, delay):
            if delay > .zero { Thread.sleep(forTimeInterval: delay.seconds) }
            let bytes = Array(body.utf8)
            var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "\r\n"
            write(fd, Array(head.utf8) + bytes)
        }
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, flags) }
            if n <= 0 { return }
            offset += n
        }
    }

    private func readRequest(_ fd: Int32) -> Request? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        func fill() -> Bool {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return false }
            buffer += chunk[0..<n]
            return true
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            guard fill() else { return nil }
            headerEnd = Self.find(separator, in: buffer)
        }
        let head = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(buffer[(headerEnd! + 4)...])
        if headers["expect"]?.lowercased() == "100-continue" {
            write(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        if let length = headers["content-length"].flatMap(Int.init) {
            while body.count < length {
                buffer = []
                guard fill() else { return nil }
                body += buffer
            }
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            var decoded: [UInt8] = []
            while true {
                guard let lineEnd = Self.find([13, 10], in: body) else {
                    buffer = []; guard fill() else { return nil }; body += buffer; continue
                }
                let size = Int(String(decoding: body[0..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
                while body.count < lineEnd + 2 + size + 2 {
                    buffer = []; guard fill() else { return nil }; body += buffer
                }
                if size == 0 { break }
                decoded += body[(lineEnd + 2)..<(lineEnd + 2 + size)]
                body = Array(body[(lineEnd + 2 + size + 2)...])
            }
            body = decoded
        }
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers,
                       body: Data(body), receivedAt: .now)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<i + needle.count]) == needle { return i }
        }
        return nil
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status"
        }
    }
}

#endif
