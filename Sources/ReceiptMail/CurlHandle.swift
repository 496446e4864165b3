import CLibCurl
import Foundation
import ReceiptKit

/// Owns exactly one libcurl easy handle (`CURL*`), and its connection: the transfers made with it
/// reuse one logged-in IMAP connection. Not thread-safe; may move between threads (one transfer
/// at a time).
final class CurlHandle {
    private let raw: UnsafeMutableRawPointer
    /// libcurl writes its error text here (CURLOPT_ERRORBUFFER): it lives as long as the handle.
    private let errorBuffer: UnsafeMutablePointer<CChar>

    private static let globalInit: Bool = {
        curl_global_init(3)   // CURL_GLOBAL_DEFAULT (SSL | WIN32)
        return true
    }()

    init() throws {
        _ = Self.globalInit
        guard let raw = curl_easy_init() else { throw ReceiptError(.mailbox, "libcurl cannot start (curl_easy_init returned NULL)") }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        _ = receipts_curl_set_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer)
        // Threads: no signals (name resolution's time-out would use SIGALRM).
        _ = receipts_curl_set_long(raw, CURLOPT_NOSIGNAL, 1)
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }

    func set(_ option: CURLoption, _ value: Int) { _ = receipts_curl_set_long(raw, option, value) }

    func set(_ option: CURLoption, _ value: String?) {
        // libcurl copies strings it is given (since 7.17), so the Swift string may go.
        if let value {
            _ = value.withCString { receipts_curl_set_string(raw, option, $0) }
        } else {
            _ = receipts_curl_set_pointer(raw, option, nil)
        }
    }

    /// One transfer: `url`, with `customRequest` (an IMAP command) or without (a fetch by URL), or
    /// uploading `upload` (IMAP APPEND). Returns what the server sent back (a fetched message, or a
    /// command's untagged answer). Throws a `CurlFailure`.
    func perform(url: String, customRequest: String? = nil, upload: Data? = nil, maxBytes: Int? = nil) throws -> Data {
        set(CURLOPT_URL, url)
        set(CURLOPT_CUSTOMREQUEST, customRequest)
        let sink = Sink(maxBytes: maxBytes, upload: upload ?? Data())
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        _ = receipts_curl_set_write(raw, { data, size, count, context in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            if let limit = sink.maxBytes, sink.data.count + length > limit {
                sink.overflowed = true
                return 0   // stops the transfer (CURLE_WRITE_ERROR)
            }
            if let data, length > 0 { sink.data.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length) }
            return length
        })
        _ = receipts_curl_set_pointer(raw, CURLOPT_WRITEDATA, context.toOpaque())
        if upload != nil {
            set(CURLOPT_UPLOAD, 1)
            _ = receipts_curl_set_long(raw, CURLOPT_INFILESIZE, upload!.count)
            _ = receipts_curl_set_read(raw, { buffer, size, count, context in
                let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                let length = min(size * count, sink.upload.count - sink.uploaded)
                guard length > 0, let buffer else { return 0 }
                sink.upload.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + sink.uploaded, byteCount: length)
                }
                sink.uploaded += length
                return length
            })
            _ = receipts_curl_set_pointer(raw, CURLOPT_READDATA, context.toOpaque())
        }
        errorBuffer[0] = 0
        let code = curl_easy_perform(raw)
        if upload != nil { set(CURLOPT_UPLOAD, 0) }
        guard code == CURLE_OK else {
            if sink.overflowed { throw CurlFailure(code: CURLE_FILESIZE_EXCEEDED, detail: "more than \(maxBytes ?? 0) bytes") }
            let detail = String(cString: errorBuffer)
            throw CurlFailure(code: code, detail: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
        }
        return sink.data
    }

    /// What a transfer gathers and sends; passed to libcurl's callbacks as their context.
    private final class Sink {
        var data = Data()
        let maxBytes: Int?
        var overflowed = false
        let upload: Data
        var uploaded = 0
        init(maxBytes: Int?, upload: Data) {
            self.maxBytes = maxBytes
            self.upload = upload
        }
    }
}

@available(*, unavailable) extension CurlHandle: Sendable {}

/// A transfer that failed: libcurl's code and its words. The one error `CurlHandle.perform` throws.
struct CurlFailure: Error {
    var code: CURLcode
    var detail: String
}
