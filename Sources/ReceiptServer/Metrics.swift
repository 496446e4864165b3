import Foundation
import Hummingbird
import Prometheus
import ReceiptKit
import Synchronization

/// HTTP request counts and latencies, and the OCR and analysis time of the receipts this
/// process's workers read, kept in a Prometheus registry of its own and written in Prometheus'
/// text format (`GET /metrics`) together with the store's receipt counts, read at each scrape.
///
/// The registry belongs to this value, not to the process-wide `MetricsSystem`: several servers in
/// one process (the tests) keep their counts apart, and a program embedding the server keeps its
/// own metrics bootstrap.
public final class HTTPMetrics: Sendable {
    /// Latency buckets in seconds.
    static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    private enum Help {
        static let storeUp = "Whether the store answered this scrape."
        static let receipts = "Receipts in the store by OCR status."
        static let queueDepth = "Receipts waiting for a worker."
        static let requests = "HTTP requests by route, method and status."
        static let latency = "HTTP request latency by route and method."
        static let processed = "Receipts this process's workers finished, by outcome."
        static let signIns = "Sign-ins to the review page by method (password, passkey, invitation, token) and result (ok, refused, slowed)."
        static let stages = "OCR (first reading, waiting for a thread included) and analysis (further passes included) per receipt."
        static let backupFinished = "When the last backup (serve --backup-dir) finished and checked itself, as Unix seconds."
        static let backupDuration = "How long the last successful backup took."
        static let backups = "Backups this server took, by outcome."
    }

    private let registry = PrometheusCollectorRegistry()
    private let storeUp: Gauge
    /// One scrape at a time: the store's gauges are set (or taken out) and the registry written
    /// out as one step, so two scrapes never interleave their counts.
    private let scrape = Mutex(())

    public init() {
        storeUp = registry.makeGauge(name: "receipts_store_up", help: Help.storeUp)
    }

    /// Records a finished receipt's timings (for `ReceiptPipeline.Configuration.onFinished`).
    public func observe(_ outcome: ReceiptOutcome) {
        registry.makeCounter(name: "receipts_processed_total", labels: [("status", outcome.receipt.ocrStatus.rawValue)],
                             help: Help.processed).increment()
        let timings = outcome.analysis?.timings
        for (stage, milliseconds) in [("ocr", timings?.ocrMs), ("analysis", timings?.analysisMs)] {
            guard let milliseconds else { continue }
            registry.makeValueHistogram(name: "receipt_stage_duration_seconds", labels: [("stage", stage)],
                                        buckets: Self.buckets, help: Help.stages).record(Double(milliseconds) / 1000)
        }
    }

    /// A sign-in: `result` is `ok`, `refused` (a wrong password, an unknown passkey, a used link…)
    /// or `slowed` (refused unread: too many failures of this user or address).
    func recordSignIn(method: String, result: String) {
        registry.makeCounter(name: "receipts_sign_ins_total", labels: [("method", method), ("result", result)], help: Help.signIns).increment()
    }

    /// Records a scheduled backup (`serve --backup-dir`): when the last good one finished (also
    /// one found in the folder at start, `seconds` nil) and how each went.
    public func backupFinished(at date: Date, seconds: Double?, succeeded: Bool) {
        if let seconds {
            registry.makeCounter(name: "receipts_backups_total", labels: [("outcome", succeeded ? "success" : "failure")],
                                 help: Help.backups).increment()
        }
        guard succeeded else { return }
        registry.makeGauge(name: "receipts_backup_last_success_timestamp_seconds", help: Help.backupFinished)
            .set(date.timeIntervalSince1970.rounded())
        if let seconds {
            registry.makeGauge(name: "receipts_backup_last_duration_seconds", help: Help.backupDuration).set(seconds)
        }
    }

    func record(route: String, method: String, status: Int, seconds: Double) {
        registry.makeCounter(name: "http_requests_total", labels: [("route", route), ("method", method), ("status", String(status))],
                             help: Help.requests).increment()
        registry.makeValueHistogram(name: "http_request_duration_seconds", labels: [("route", route), ("method", method)],
                                    buckets: Self.buckets, help: Help.latency).record(seconds)
    }

    /// The metrics; `receipts` nil when the store cannot be read (its gauges are left out and
    /// `receipts_store_up` is 0: what this process knows is still served).
    func text(receipts: [OCRStatusCount]?) -> String {
        scrape.withLock { _ in
            storeUp.set(receipts == nil ? 0.0 : 1.0)
            let depth = registry.makeGauge(name: "receipts_queue_depth", help: Help.queueDepth)
            if let receipts {
                for entry in receipts {
                    registry.makeGauge(name: "receipts", labels: [("status", entry.status)], help: Help.receipts).set(Double(entry.count))
                }
                depth.set(Double(receipts.filter { $0.status == "pending" }.map(\.count).reduce(0, +)))
            } else {
                for status in OCRStatus.allCases {
                    registry.unregisterGauge(registry.makeGauge(name: "receipts", labels: [("status", status.rawValue)], help: Help.receipts))
                }
                registry.unregisterGauge(depth)
            }
            return registry.emitToString()
        }
    }
}

struct OCRStatusCount {
    var status: String
    var count: Int
}

/// Counts every request (after errors became problem documents) under its route pattern.
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: HTTPMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let route = context.endpointPath ?? "unmatched"
        metrics.record(route: route, method: request.method.rawValue, status: response.status.code, seconds: seconds)
        return response
    }
}
