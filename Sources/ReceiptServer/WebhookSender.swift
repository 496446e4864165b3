import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import ReceiptKit
import ServiceLifecycle

/// POSTs a receipt's record to a URL when it is completed or has failed for good.
///
/// The body is the NDJSON record (`application/json`). `Receipts-Signature: t=<unix seconds>,
/// v1=<hex>` signs it: HMAC-SHA256 with the shared secret over `"<t>.<body>"`, so a receiver checks
/// both the body and its age. A delivery that fails (no answer, or not 2xx) is tried again after 1,
/// 2, 4, 8 … seconds (`attempts` in all), then logged as lost; the queue never waits for it.
/// Deliveries are kept in memory: those not yet made when the process stops are not sent.
public final class WebhookSender: Service, Sendable {
    public struct Configuration: Sendable {
        public var url: URL
        public var secret: String
        public var attempts: Int
        public var firstRetryDelay: Duration
        public var timeout: Duration

        public init(url: URL, secret: String, attempts: Int = 6, firstRetryDelay: Duration = .seconds(1), timeout: Duration = .seconds(10)) {
            self.url = url
            self.secret = secret
            self.attempts = max(1, attempts)
            self.firstRetryDelay = firstRetryDelay
            self.timeout = timeout
        }
    }

    let configuration: Configuration
    let logger: Logger
    private let stream: AsyncStream<Data>
    private let continuation: AsyncStream<Data>.Continuation

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        // At most 10,000 waiting deliveries; past that the oldest are dropped (and logged).
        (stream, continuation) = AsyncStream.makeStream(of: Data.self, bufferingPolicy: .bufferingNewest(10_000))
    }

    /// Hands an outcome on for delivery; returns at once (for `ReceiptPipeline.Configuration.onFinished`).
    public func enqueue(_ outcome: ReceiptOutcome) {
        let body = Data(outcome.record.json.serialized().utf8)
        if case .dropped = continuation.yield(body) {
            logger.warning("Webhook queue full: the oldest delivery was dropped", metadata: ["webhook.url": "\(configuration.url.absoluteString)"])
        }
    }

    /// The `Receipts-Signature` header value for `body` sent at `timestamp` (unix seconds).
    public static func signature(body: Data, timestamp: Int, secret: String) -> String {
        var signed = Data("\(timestamp).".utf8)
        signed.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secret.utf8)))
        return "t=\(timestamp),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await body in stream {
                    group.addTask { await self.deliver(body) }
                }
            }
        } onGracefulShutdown: {
            self.continuation.finish()
        }
    }

    private func deliver(_ body: Data) async {
        var delay = configuration.firstRetryDelay
        for attempt in 1...configuration.attempts {
            let timestamp = Int(Date().timeIntervalSince1970)
            var request = URLRequest(url: configuration.url)
            request.httpMethod = "POST"
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue(Self.signature(body: body, timestamp: timestamp, secret: configuration.secret), forHTTPHeaderField: "Receipts-Signature")
            request.timeoutInterval = Double(configuration.timeout.components.seconds)
            var problem: String
            do {
                let (_, response) = try await URLSession.shared.data(for: request)
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                if (200..<300).contains(status) { return }
                problem = "HTTP \(status)"
            } catch {
                problem = error.localizedDescription.oneLine
            }
            guard attempt < configuration.attempts, !Task.isCancelled else {
                logger.error("Webhook not delivered", metadata: ["webhook.url": "\(configuration.url.absoluteString)",
                                                                 "webhook.attempts": "\(attempt)", "error.message": "\(problem)"])
                return
            }
            logger.debug("Webhook delivery failed; retrying", metadata: ["webhook.attempt": "\(attempt)", "error.message": "\(problem)"])
            try? await Task.sleep(for: delay)
            delay *= 2
        }
    }
}
