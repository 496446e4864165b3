import Foundation
import ReceiptModel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

/// A status, headers (lower-cased names) and body.
package struct HTTPReply: Sendable {
    package var status: Int
    package var headers: [String: String]
    package var body: Data
}

/// A successful exchange: the reply, how many attempts it took, and whether the request had to be
/// changed after a 400 (see `RemoteClient.send`).
package struct RemoteExchange: Sendable {
    package var reply: HTTPReply
    package var attempts: Int
    package var requestChanged: Bool
}

/// Who is on the other end, for messages.
package struct RemoteProvider: Sendable {
    /// `gemini`, `openai`.
    package var name: String
    /// `Gemini`, `the OpenAI-compatible server`.
    package var displayName: String
    /// Where the user sets the key (the environment variable; a program adds its own ways through
    /// the `.apiKey` hint).
    package var keyHint: String
}

/// Sends requests for one remote analyzer: limits requests in flight, retries what is worth
/// retrying (rate limits after the server's delay, server errors, timeouts and dropped
/// connections with bounded exponential backoff and jitter) and turns the rest into one clear
/// line. The API key is redacted from everything the server sends back before it is reported.
///
/// Its errors carry the retry advice the queue acts on (`ReceiptError.retry`): `.never` for what
/// the same request will meet again (a rejected key, a daily quota, an unknown model), `.later`
/// only when it gave up on something transient (retries exhausted, or a wait longer than allowed).
/// The client knows which is which; nothing above it guesses from the code or the message.
package final class RemoteClient: Sendable {
    package let provider: RemoteProvider
    package let configuration: RemoteAnalyzerConfiguration
    private let session: URLSession
    private let limiter: ConcurrencyLimiter
    private let logger: Logger

    package init(provider: RemoteProvider, configuration: RemoteAnalyzerConfiguration, logger: Logger) {
        self.provider = provider
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = Self.timeoutInterval(configuration.timeout)
        sessionConfiguration.timeoutIntervalForResource = Self.timeoutInterval(configuration.timeout)
        sessionConfiguration.httpMaximumConnectionsPerHost = configuration.maxConcurrentRequests
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpCookieStorage = nil
        self.session = URLSession(configuration: sessionConfiguration)
        self.limiter = ConcurrencyLimiter(limit: configuration.maxConcurrentRequests)
        self.logger = logger
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Whole seconds, rounded up: swift-corelibs-foundation truncates the interval to whole
    /// seconds for its timer, so 0.7 s would time out at once.
    package static func timeoutInterval(_ timeout: Duration) -> TimeInterval {
        max(1, timeout.seconds.rounded(.up))
    }

    /// Removes the API key from text that came from outside.
    package func redact(_ text: String) -> String {
        configuration.apiKey?.redact(text) ?? text
    }

    private enum Verdict {
        case accept(HTTPReply)
        /// Worth another attempt, after the server's delay or (nil) after backoff.
        case retry(after: Duration?, why: String)
        case fail(String, hint: ReceiptError.Hint? = nil)
    }

    /// Sends `request` until it succeeds, fails for good or runs out of retries. Returns the
    /// successful reply and the number of attempts it took. `onBadRequest` may return a changed
    /// request to try once more after a 400 (used to drop an unsupported `response_format`).
    package func send(_ request: URLRequest, source: String,
              onBadRequest: ((RemoteErrorAnswer) -> URLRequest?)? = nil) async throws -> RemoteExchange {
        var request = request
        request.timeoutInterval = Self.timeoutInterval(configuration.timeout)
        var attempt = 0
        var retried = false
        var adjusted = false
        while true {
            attempt += 1
            try Task.checkCancellation()
            var meta: Logger.Metadata = [
                "receipt.source": "\(source)", "remote.provider": "\(provider.name)",
                "remote.model": "\(configuration.model)", "remote.attempt": "\(attempt)",
            ]
            logger.debug("remote analysis request", metadata: meta)
            let verdict: Verdict
            do {
                let req = request
                let session = self.session
                let (data, response) = try await limiter.withPermit { try await session.data(for: req) }
                guard let http = response as? HTTPURLResponse else {
                    throw ReceiptError(.remoteFailed, "not an HTTP response from \(configuration.baseURL.absoluteString)",
                                       file: source, retry: .never)
                }
                var headers: [String: String] = [:]
                for (name, value) in http.allHeaderFields {
                    if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
                }
                let reply = HTTPReply(status: http.statusCode, headers: headers, body: data)
                if reply.status == 400, !adjusted, let onBadRequest, let changed = onBadRequest(RemoteErrorAnswer(reply: reply)) {
                    adjusted = true
                    attempt -= 1                  // a changed request, not a retry
                    request = changed
                    request.timeoutInterval = Self.timeoutInterval(configuration.timeout)
                    logger.debug("remote analysis request changed after HTTP 400", metadata: meta)
                    continue
                }
                verdict = judge(reply)
            } catch let error as URLError {
                if error.code == .cancelled, Task.isCancelled { throw CancellationError() }
                verdict = judge(error)
            } catch is CancellationError {
                throw CancellationError()
            }
            switch verdict {
            case .accept(let reply):
                return RemoteExchange(reply: reply, attempts: attempt, requestChanged: adjusted)
            case .fail(let message, let hint):
                // Sending the same request again (now or in an hour) meets the same answer.
                let tail = retried ? " (after \(attempt) attempts)" : ""
                throw ReceiptError(.remoteFailed, redact(message) + tail, file: source, retry: .never, hint: hint)
            case .retry(let after, let why):
                let why = redact(why)
                // Transient, but not worth waiting for here: the queue may try the receipt later.
                guard attempt <= configuration.maxRetries else {
                    throw ReceiptError(.remoteFailed, "\(why); gave up after \(attempt == 1 ? "1 attempt" : "\(attempt) attempts")", file: source, retry: .later)
                }
                if let after, after > configuration.maxRetryDelay {
                    throw ReceiptError(.remoteFailed,
                        "\(why); the server asks to wait \(Self.format(after)), longer than the \(Self.format(configuration.maxRetryDelay)) allowed",
                        file: source, retry: .later)
                }
                let delay = after ?? backoff(afterAttempt: attempt)
                meta["remote.error"] = "\(why)"
                meta["remote.retryDelay"] = "\(Self.format(delay))"
                logger.info("remote analysis attempt failed, retrying", metadata: meta)
                retried = true
                try await Task.sleep(for: delay)
            }
        }
    }

    /// `base × 2^(attempt−1)`, capped at `maxRetryDelay`, times a random factor in 0.5…1.
    package func backoff(afterAttempt attempt: Int) -> Duration {
        let base = configuration.baseRetryDelay.seconds
        let capped = min(configuration.maxRetryDelay.seconds, base * pow(2, Double(attempt - 1)))
        return .milliseconds(Int64(capped * Double.random(in: 0.5...1.0) * 1000))
    }

    private func judge(_ reply: HTTPReply) -> Verdict {
        if (200..<300).contains(reply.status) { return .accept(reply) }
        let answer = RemoteErrorAnswer(reply: reply)
        let separator = answer.code == nil && answer.reason == nil ? ": " : " "
        let detail = answer.summary.isEmpty ? "" : separator + answer.summary
        let status = "HTTP \(reply.status)\(detail)"
        let model = configuration.model
        if [400, 401].contains(reply.status), answer.isKeyRejected {
            if configuration.apiKey == nil {
                return .fail("\(provider.displayName) needs an API key (\(status)); set \(provider.keyHint)", hint: .apiKey)
            }
            return .fail("\(provider.displayName) rejected the API key (\(status)); check \(provider.keyHint)", hint: .apiKey)
        }
        switch reply.status {
        case 429:
            if answer.isDailyQuota {
                let quota = answer.quotas.first.map { ", quota \($0)" } ?? ""
                return .fail("\(provider.displayName) daily quota exhausted for model '\(model)'\(quota) (\(status)); "
                             + "wait for the quota to reset or use another key or model")
            }
            return .retry(after: answer.retryDelay, why: "rate limited by \(provider.displayName) (\(status))")
        case 408, 500, 502, 503, 504:
            return .retry(after: nil, why: "\(provider.displayName) server error (\(status))")
        case 403:
            return .fail("\(provider.displayName) refused access (\(status)); the key may lack access to model '\(model)' "
                         + "or the API is not enabled for its project")
        case 404:
            return .fail("model '\(model)' not found at \(configuration.baseURL.absoluteString) (\(status))", hint: .modelNotFound)
        case 400:
            return .fail("\(provider.displayName) rejected the request (\(status))")
        default:
            return .fail("unexpected answer from \(provider.displayName) (\(status))")
        }
    }

    private func judge(_ error: URLError) -> Verdict {
        let host = configuration.baseURL.host ?? configuration.baseURL.absoluteString
        switch error.code {
        case .timedOut:
            return .retry(after: nil, why: "no answer from \(host) within \(Self.format(.seconds(Self.timeoutInterval(configuration.timeout)))) (timeout)")
        case .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet, .badServerResponse,
             .resourceUnavailable, .zeroByteResource, .cannotParseResponse:
            return .retry(after: nil, why: "connection to \(host) failed (\(Self.describe(error)))")
        case .cannotFindHost, .dnsLookupFailed:
            return .fail("cannot resolve host \(host); check the base URL")
        case .cancelled:
            return .fail("request cancelled")
        default:
            return .fail("request to \(host) failed (\(Self.describe(error)))")
        }
    }

    private static func describe(_ error: URLError) -> String {
        "URLError \(error.code.rawValue): \(error.localizedDescription)"
    }

    package static func format(_ duration: Duration) -> String {
        let s = duration.seconds
        if s < 1 { return "\(Int((s * 1000).rounded())) ms" }
        if s == s.rounded() { return "\(Int(s)) s" }
        return String(format: "%.1f s", s)
    }
}
