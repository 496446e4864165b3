import Foundation
import ReceiptModel

/// What a remote model server answered instead of an analysis: the error body of a Gemini
/// (`google.rpc.Status`) or OpenAI-style server, read as far as it goes. Not an `Error`: the remote
/// client reads it to decide what `ReceiptError` to throw and whether trying again can help.
package struct RemoteErrorAnswer: Sendable {
    package var status: Int
    /// Gemini's `error.status` (`RESOURCE_EXHAUSTED`, …) or OpenAI's `error.type`/`error.code`.
    package var code: String?
    package var message: String?
    /// `google.rpc.ErrorInfo.reason`, e.g. `API_KEY_INVALID`.
    package var reason: String?
    /// `google.rpc.RetryInfo.retryDelay`, or the `Retry-After` header.
    package var retryDelay: Duration?
    /// `google.rpc.QuotaFailure` violations: quota ids and metrics.
    package var quotas: [String] = []

    package init(reply: HTTPReply) {
        status = reply.status
        if let header = reply.headers["retry-after"] { retryDelay = RemoteErrorAnswer.parseRetryAfter(header) }
        guard let json = try? JSONValue.parse(reply.body) else {
            let text = String(decoding: reply.body.prefix(300), as: UTF8.self)
            message = text.isEmpty ? nil : text
            return
        }
        let error = json["error"] ?? json
        if let text = error.stringValue {           // Ollama: {"error": "model 'x' not found"}
            message = text
            return
        }
        message = error["message"]?.stringValue
        code = error["status"]?.stringValue ?? error["code"]?.stringValue ?? error["type"]?.stringValue
        for detail in error["details"]?.arrayValue ?? [] {
            let type = detail["@type"]?.stringValue ?? ""
            if type.hasSuffix("google.rpc.RetryInfo"), let text = detail["retryDelay"]?.stringValue {
                retryDelay = RemoteErrorAnswer.parseProtobufDuration(text) ?? retryDelay
            } else if type.hasSuffix("google.rpc.QuotaFailure") {
                for violation in detail["violations"]?.arrayValue ?? [] {
                    quotas += [violation["quotaId"]?.stringValue, violation["quotaMetric"]?.stringValue].compactMap { $0 }
                }
            } else if type.hasSuffix("google.rpc.ErrorInfo") {
                reason = detail["reason"]?.stringValue
            }
        }
    }

    /// A quota that resets daily: waiting seconds will not help.
    package var isDailyQuota: Bool {
        let squashed = quotas.map { $0.lowercased().filter(\.isLetter) }
        if squashed.contains(where: { $0.contains("perday") }) { return true }
        let text = (message ?? "").lowercased()
        return text.contains("per day") || text.contains("daily")
    }

    package var isKeyRejected: Bool {
        if status == 401 { return true }
        if reason == "API_KEY_INVALID" { return true }
        let text = (message ?? "").lowercased()
        return status == 400 && (text.contains("api key not valid") || text.contains("invalid api key"))
    }

    /// ` RESOURCE_EXHAUSTED: the server's message` (one line, at most 200 characters), or empty.
    package var summary: String {
        var parts: [String] = []
        if let code { parts.append(code) }
        if let reason, reason != code { parts.append(reason) }
        var text = parts.joined(separator: " ")
        if let message {
            let line = message.oneLine
            let short = line.count > 200 ? line.prefix(200) + "…" : Substring(line)
            text += (text.isEmpty ? "" : ": ") + short
        }
        return text
    }

    /// `"43s"`, `"1.5s"` (protobuf Duration in JSON).
    package static func parseProtobufDuration(_ text: String) -> Duration? {
        guard text.hasSuffix("s"), let seconds = Double(text.dropLast()), seconds >= 0, seconds.isFinite else { return nil }
        return delay(seconds: seconds)
    }

    /// `Retry-After: 30` (seconds) or an HTTP date.
    package static func parseRetryAfter(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0, seconds.isFinite {
            return delay(seconds: seconds)
        }
        // An HTTP date is ASCII. Foundation's DateFormatter stops the process (a fatal error, "Incorrect
        // range CFRange") on some other text, e.g. a combining mark after a digit: a remote server's
        // header must never reach it unchecked.
        guard trimmed.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return delay(seconds: max(0, date.timeIntervalSinceNow))
    }

    /// A delay a server asked for, in whole milliseconds. At most 10⁹ s (about 32 years): a larger
    /// number (`1e300s`) would overflow Int64 and stop the process; no caller waits that long anyway.
    private static func delay(seconds: Double) -> Duration {
        .milliseconds(Int64((min(seconds, 1e9) * 1000).rounded(.up)))
    }
}
