import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import ReceiptKit
import ReceiptServerStore
import ServiceLifecycle

/// Delivers the store's webhook outbox: POSTs each event's record to a URL, at least once.
///
/// Events are written by the store in the transaction that completes or finally fails a receipt,
/// by any process or host, once webhooks are on in the store (`run` turns them on; see
/// `WebhookEvent`). A stop, a crash or a receiver that is down loses none: what is not delivered
/// stays pending in the store and is sent after the next start.
///
/// The body is the NDJSON record (`application/json`). Headers: `Receipts-Signature: t=<unix
/// seconds>,v1=<hex>` (HMAC-SHA256 with the shared secret over `"<t>.<body>"`, so a receiver checks
/// both the body and its age), `Receipts-Delivery-Id: <event id>` (the same on every attempt: a
/// receiver drops duplicates by it) and `Receipts-Event: receipt.completed|receipt.failed`.
///
/// A 2xx answer marks the event delivered. Any other outcome is tried again after
/// `firstRetryDelay`, doubling up to `maxRetryDelay`; the next attempt's time is kept in the store,
/// so the backoff goes on across restarts. An event not delivered `deadAfter` after it was written
/// (or retried) becomes dead, a dead letter logged once (`receipts webhooks list --state dead`,
/// `receipts webhooks retry`). Senders claim events with a lease (PostgreSQL: `FOR UPDATE SKIP
/// LOCKED`), so servers on several hosts never send one event at the same time.
public final class WebhookSender: Service, Sendable {
    public struct Configuration: Sendable {
        /// The server-wide webhook (`receipts serve --webhook`): every finished receipt. Nil: only
        /// users' own webhooks (`POST /v1/webhooks`) are delivered.
        public var url: URL?
        public var secret: String
        public var firstRetryDelay: Duration
        public var maxRetryDelay: Duration
        /// How long an event may stay undelivered before it is dead.
        public var deadAfter: Duration
        /// How long a delivered event stays in the store (for `receipts webhooks list`) before the
        /// sender deletes it; checked when the sender starts and then every hour.
        public var keepDelivered: Duration
        public var timeout: Duration
        /// How often to look for events written by other processes when the store cannot announce
        /// them (SQLite); PostgreSQL announces them, and is looked at every 30 s as a safety net.
        public var pollInterval: Duration
        /// Events sent at once.
        public var concurrency: Int

        public init(url: URL?, secret: String, firstRetryDelay: Duration = .seconds(1), maxRetryDelay: Duration = .seconds(600),
                    deadAfter: Duration = .seconds(24 * 3600), keepDelivered: Duration = .seconds(30 * 24 * 3600),
                    timeout: Duration = .seconds(10), pollInterval: Duration = .seconds(5), concurrency: Int = 8) {
            self.url = url
            self.secret = secret
            self.firstRetryDelay = max(.milliseconds(1), firstRetryDelay)
            self.maxRetryDelay = max(self.firstRetryDelay, maxRetryDelay)
            self.deadAfter = deadAfter
            self.keepDelivered = keepDelivered
            self.timeout = timeout
            self.pollInterval = max(.milliseconds(10), pollInterval)
            self.concurrency = max(1, concurrency)
        }
    }

    let configuration: Configuration
    let store: any AccountStore
    let logger: Logger
    /// Names this sender in the events' leases: `host:pid:webhooks:<random>`.
    let holder: String
    private let signal = WakeSignal()

    public init(configuration: Configuration, store: any AccountStore, logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        holder = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):webhooks:"
            + UUID().uuidString.prefix(8).lowercased()
    }

    /// Looks for due events now: a receipt finished in this process (its event is in the store).
    /// Returns at once (for `ReceiptPipeline.Configuration.onFinished`).
    public func wake() { signal.notifyAll() }

    /// The `Receipts-Signature` header value for `body` sent at `timestamp` (unix seconds).
    public static func signature(body: Data, timestamp: Int, secret: String) -> String {
        var signed = Data("\(timestamp).".utf8)
        signed.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secret.utf8)))
        return "t=\(timestamp),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// The wait before the attempt after `attempts` failed ones: `first`, doubling, at most `max`.
    public static func retryDelay(afterAttempts attempts: Int, first: Duration, max cap: Duration) -> Duration {
        var delay = first
        for _ in 1..<Swift.max(1, attempts) {
            delay *= 2
            if delay >= cap { return cap }
        }
        return min(delay, cap)
    }

    /// A claimed event is held for the request's timeout and a margin; a sender that dies holding
    /// one lets it go when this runs out.
    private var leaseSeconds: TimeInterval { Double(configuration.timeout.components.seconds) + 20 }

    private var metadataBase: Logger.Metadata { ["webhook.url": "\(configuration.url?.absoluteString ?? "users' webhooks")"] }

    public func run() async throws {
        // Turn webhooks on in the store (from now on every process records events), waiting out a
        // store that is down for a moment. (Users' own webhooks get events whether or not.)
        var delay = Duration.milliseconds(200)
        while configuration.url != nil, !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                try await store.setWebhooksEnabled(true)
                break
            } catch {
                logger.warning("Webhooks cannot be turned on in the store; trying again", metadata: metadataBase.merging(
                    ["error.message": "\(error)"]) { $1 })
                let wait = delay
                do { try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) } } catch { return }
                delay = min(delay * 2, .seconds(10))
            }
        }
        let store = self.store
        let signal = self.signal
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                if store.announcesChanges {
                    group.addTask {
                        await cancelWhenGracefulShutdown {
                            await store.watchChanges { change in if change == .finished { signal.notifyAll() } }
                        }
                    }
                }
                group.addTask { await self.sendLoop() }
            }
        } onGracefulShutdown: {
            signal.notifyAll()
        }
        if let pending = try? await store.webhookEventCounts()[.pending], pending > 0 {
            logger.info("Webhook deliveries left pending in the store; they are sent after the next start",
                        metadata: metadataBase.merging(["webhook.pending": "\(pending)"]) { $1 })
        }
    }

    private func sendLoop() async {
        let idle = store.announcesChanges ? max(configuration.pollInterval, .seconds(30)) : configuration.pollInterval
        var pruned: Date?
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            let generation = signal.generation
            var timeout = idle
            do {
                let now = Date()
                if pruned.map({ now.timeIntervalSince($0) >= 3600 }) ?? true {
                    pruned = now
                    let deleted = try await store.pruneWebhookEvents(deliveredBefore: now.addingTimeInterval(-configuration.keepDelivered.seconds))
                    if deleted > 0 {
                        logger.info("Delivered webhook events deleted from the store", metadata: metadataBase.merging(
                            ["webhook.deleted": "\(deleted)", "webhook.keep_seconds": "\(Int(configuration.keepDelivered.seconds))"]) { $1 })
                    }
                }
                let serverWide = configuration.url != nil
                let events = try await store.claimWebhookEvents(Lease(holder: holder, now: now, duration: leaseSeconds),
                                                                limit: configuration.concurrency, serverWide: serverWide)
                if !events.isEmpty {
                    let subscriptions = events.contains { $0.subscriptionId != nil }
                        ? Dictionary(try await store.webhookSubscriptions(user: nil).map { ($0.id, $0) }) { a, _ in a } : [:]
                    await withDiscardingTaskGroup { group in
                        for event in events {
                            let destination = event.subscriptionId.map { subscriptions[$0].map { ($0.url, $0.secret) } }
                                ?? configuration.url.map { ($0, configuration.secret) }
                            group.addTask { await self.deliver(event, to: destination) }
                        }
                    }
                    continue
                }
                if let next = try await store.nextWebhookAttempt(serverWide: serverWide) {
                    let seconds = max(0.005, next.timeIntervalSince(Date()))
                    timeout = min(idle, .milliseconds(Int64(seconds * 1000)))
                }
            } catch let error where error is CancellationError || Task.isCancelled {
                // Stopping (another service failed, or a signal; the store may wrap the
                // cancellation in an error of its own): not the outbox's fault.
                break
            } catch {
                logger.warning("Webhook outbox cannot be read", metadata: metadataBase.merging(["error.message": "\(error)"]) { $1 })
                timeout = min(idle, .seconds(5))
            }
            await signal.wait(since: generation, timeout: timeout)
        }
    }

    /// Sends `event` to `destination` (its URL and secret; nil: a user's webhook that was removed
    /// since, and the event is dropped as a dead letter).
    private func deliver(_ event: WebhookEvent, to destination: (url: URL, secret: String)?) async {
        var metadata = metadataBase.merging(["webhook.delivery_id": "\(event.id.uuidString.lowercased())",
                                             "webhook.event": "\(event.type)",
                                             "receipt.id": "\(event.receiptId.uuidString.lowercased())",
                                             "webhook.attempt": "\(event.attempts)"]) { $1 }
        guard let destination else {
            _ = try? await store.markWebhookFailed(id: event.id, holder: holder, error: "the webhook was removed", retryAt: nil, now: Date())
            return
        }
        metadata["webhook.url"] = "\(destination.url.absoluteString)"
        if let subscription = event.subscriptionId { metadata["webhook.id"] = "\(subscription.uuidString.lowercased())" }
        let body = Data(event.body.utf8)
        let timestamp = Int(Date().timeIntervalSince1970)
        var request = URLRequest(url: destination.url)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(Self.signature(body: body, timestamp: timestamp, secret: destination.secret),
                         forHTTPHeaderField: "Receipts-Signature")
        request.setValue(event.id.uuidString.lowercased(), forHTTPHeaderField: "Receipts-Delivery-Id")
        request.setValue(event.type, forHTTPHeaderField: "Receipts-Event")
        request.timeoutInterval = Double(configuration.timeout.components.seconds)
        let problem: String
        do {
            let (_, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            if (200..<300).contains(status) {
                do {
                    _ = try await store.markWebhookDelivered(id: event.id, now: Date())
                    logger.debug("Webhook delivered", metadata: metadata)
                } catch {
                    // Sent again once the lease runs out, with the same delivery id.
                    metadata["error.message"] = "\(error)"
                    logger.warning("Webhook delivered but not recorded as such; it will be sent again", metadata: metadata)
                }
                return
            }
            problem = "HTTP \(status)"
        } catch {
            problem = error.localizedDescription.oneLine
        }
        metadata["error.message"] = "\(problem)"
        let now = Date()
        let deadline = event.pendingSince.addingTimeInterval(configuration.deadAfter.seconds)
        let retryAt: Date? = now >= deadline ? nil : min(deadline, now.addingTimeInterval(
            Self.retryDelay(afterAttempts: event.attempts, first: configuration.firstRetryDelay, max: configuration.maxRetryDelay).seconds))
        do {
            guard try await store.markWebhookFailed(id: event.id, holder: holder, error: problem, retryAt: retryAt, now: now) else {
                logger.debug("Webhook lease lost", metadata: metadata)
                return
            }
        } catch {
            metadata["store.error"] = "\(error)"
            logger.warning("Webhook failure not recorded; it is tried again once its lease runs out", metadata: metadata)
            return
        }
        if let retryAt {
            metadata["webhook.retry_at"] = "\(retryAt.iso8601)"
            // The first failure of an event is worth a line; the next ones only with -vv.
            if event.attempts == 1 {
                logger.warning("Webhook not delivered yet; retrying with backoff", metadata: metadata)
            } else {
                logger.debug("Webhook delivery failed; retrying", metadata: metadata)
            }
        } else {
            metadata["webhook.attempts"] = "\(event.attempts)"
            logger.error("Webhook not delivered: dead letter (see `receipts webhooks list --state dead`, `receipts webhooks retry`)",
                         metadata: metadata)
        }
    }
}

fileprivate extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}
