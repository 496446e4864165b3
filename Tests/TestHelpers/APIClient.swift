import Foundation
import ReceiptModel

/// A client of `receipts serve`'s HTTP API as the tests use it — in process (HummingbirdTesting)
/// or over a real socket: each supplies `send`, and gets the JSON and upload calls from it.
package protocol APIClient {
    /// Sends a request; returns the status, the headers (names lowercased) and the body.
    func send(_ method: String, _ path: String, body: Data?, headers: [String: String]) async throws
        -> (status: Int, headers: [String: String], body: Data)
}

extension APIClient {
    /// The status and the JSON body of a request.
    package func json(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws -> (Int, JSONValue) {
        let answer = try await send(method, path, body: body, headers: headers)
        return (answer.status, try JSONValue.parse(answer.body))
    }

    /// Uploads the TestReceipt `name` as a raw body, waiting up to `wait` seconds for its result
    /// (longer under a sanitizer, `testTimeScale`).
    package func upload(_ name: String, wait: Int? = nil) async throws -> (Int, JSONValue) {
        let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt(name)))
        return try await json("POST", "/v1/receipts" + (wait.map { "?wait=\(Int(Double($0) * testTimeScale))" } ?? ""), body: data,
                              headers: ["Content-Type": "image/jpeg"])
    }
}
