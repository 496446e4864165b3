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
    /// A record to deliver and the receipt it is about (for the log).
    private struct Delivery: Sendable {
        var body: Data
        var receiptId: UUID
    }

    private let stream: AsyncStream<Delivery>
    private let continuation: AsyncStream<Delivery>.Continuation

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        // At most 10,000 waiting deliveries; past that the oldest are dropped (and logged).
        (stream, continuation) = AsyncStream.makeStream(of: Delivery.self, bufferingPolicy: .bufferingNewest(10_000))
    }

    /// Hands an outcome on for delivery; returns at once (for `ReceiptPipeline.Configuration.onFinished`).
    public func enqueue(_ outcome: ReceiptOutcome) {
        let delivery = Delivery(body: Data(outcome.record.json.serialized().utf8), receiptId: outcome.receipt.id)
        if case let .dropped(oldest) = continuation.yield(delivery) {
            logger.warning("Webhook queue full: the oldest delivery was dropped",
                           metadata: ["webhook.url": "\(configuration.url.absoluteString)",
                                      "receipt.id": "\(oldest.receiptId.uuidString.lowercased())"])
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
                for await delivery in stream {
                    group.addTask { await self.deliver(delivery) }
                }
            }
        } onGracefulShutdown: {
            self.continuation.finish()
        }
    }

    private func deliver(_ delivery: Delivery) async {
        var delay = configuration.firstRetryDelay
        var metadata: Logger.Metadata = ["webhook.url": "\(configuration.url.absoluteString)",
                                         "receipt.id": "\(delivery.receiptId.uuidString.lowercased())"]
        var made = 0
        var problem = ""
        while made < configuration.attempts {
            if Task.isCancelled || (made > 0 && Task.isShuttingDownGracefully) { break }
            made += 1
            let timestamp = Int(Date().timeIntervalSince1970)
            var request = URLRequest(url: configuration.url)
            request.httpMethod = "POST"
            request.httpBody = delivery.body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue(Self.signature(body: delivery.body, timestamp: timestamp, secret: configuration.secret),
                             forHTTPHeaderField: "Receipts-Signature")
            request.timeoutInterval = Double(configuration.timeout.components.seconds)
            do {
                let (_, response) = try await URLSession.shared.data(for: request)
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                if (200..<300).contains(status) {
                    logger.debug("Webhook delivered", metadata: metadata.merging(["webhook.attempts": "\(made)"]) { $1 })
                    return
                }
                problem = "HTTP \(status)"
            } catch {
                problem = error.localizedDescription.oneLine
            }
            guard made < configuration.attempts, !Task.isCancelled, !Task.isShuttingDownGracefully else { break }
            logger.debug("Webhook delivery failed; retrying",
                         metadata: metadata.merging(["webhook.attempt": "\(made)", "error.message": "\(problem)"]) { $1 })
            // A stop ends the wait for the next retry at once.
            let wait = delay
            do { try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) } } catch { break }
            delay *= 2
        }
        metadata["webhook.attempts"] = "\(made)"
        if !problem.isEmpty { metadata["error.message"] = "\(problem)" }
        if made < configuration.attempts {
            // The server is stopping: the retries left are not made (deliveries are kept in memory only).
            metadata["webhook.cancelled"] = "true"
            logger.error("Webhook not delivered: the server stopped before its retries", metadata: metadata)
        } else {
            logger.error("Webhook not delivered", metadata: metadata)
        }
    }
}
