import Foundation
import Hummingbird
import ReceiptKit
import Synchronization

/// HTTP request counts and latencies, and the OCR and analysis time of the receipts this
/// process's workers read, kept in memory and written in Prometheus' text format (`GET /metrics`)
/// together with the store's receipt counts.
public final class HTTPMetrics: Sendable {
    /// Latency buckets in seconds.
    static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    private struct Series {
        var count = 0
        var sum = 0.0
        var buckets = [Int](repeating: 0, count: HTTPMetrics.buckets.count)
    }

    /// Requests by "route method status", latency by "route method".
    private let state = Mutex<(requests: [String: Int], latency: [String: Series])>(([:], [:]))
    /// Per receipt read: "ocr" and "analysis" seconds, and outcomes by status.
    private let readings = Mutex<(stages: [String: Series], outcomes: [String: Int])>(([:], [:]))

    public init() {}

    /// Records a finished receipt's timings (for `ReceiptPipeline.Configuration.onFinished`).
    public func observe(_ outcome: ReceiptOutcome) {
        let timings = outcome.analysis?.timings
        readings.withLock { r in
            r.outcomes[outcome.receipt.ocrStatus.rawValue, default: 0] += 1
            for (stage, milliseconds) in [("ocr", timings?.ocrMs), ("analysis", timings?.analysisMs)] {
                guard let milliseconds else { continue }
                let ms = Double(milliseconds)
                var series = r.stages[stage, default: Series()]
                series.count += 1
                series.sum += ms / 1000
                for (i, bound) in Self.buckets.enumerated() where ms / 1000 <= bound { series.buckets[i] += 1 }
                r.stages[stage] = series
            }
        }
    }

    func record(route: String, method: String, status: Int, seconds: Double) {
        state.withLock { s in
            s.requests["\(route)\u{0}\(method)\u{0}\(status)", default: 0] += 1
            var series = s.latency["\(route)\u{0}\(method)", default: Series()]
            series.count += 1
            series.sum += seconds
            for (i, bound) in Self.buckets.enumerated() where seconds <= bound { series.buckets[i] += 1 }
            s.latency["\(route)\u{0}\(method)"] = series
        }
    }

    /// The metrics; `receipts` nil when the store cannot be read (its gauges are left out and
    /// `receipts_store_up` is 0: what this process knows is still served).
    func text(receipts: [OCRStatusCount]?) -> String {
        var out = "# HELP receipts_store_up Whether the store answered this scrape.\n# TYPE receipts_store_up gauge\n"
        out += "receipts_store_up \(receipts == nil ? 0 : 1)\n"
        if let receipts {
            out += "# HELP receipts Receipts in the store by OCR status.\n# TYPE receipts gauge\n"
            for entry in receipts { out += "receipts{status=\"\(entry.status)\"} \(entry.count)\n" }
            let depth = receipts.filter { $0.status == "pending" }.map(\.count).reduce(0, +)
            out += "# HELP receipts_queue_depth Receipts waiting for a worker.\n# TYPE receipts_queue_depth gauge\nreceipts_queue_depth \(depth)\n"
        }
        let (requests, latency) = state.withLock { ($0.requests, $0.latency) }
        out += "# HELP http_requests_total HTTP requests by route, method and status.\n# TYPE http_requests_total counter\n"
        for (key, count) in requests.sorted(by: { $0.key < $1.key }) {
            let p = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
            out += "http_requests_total{route=\"\(p[0])\",method=\"\(p[1])\",status=\"\(p[2])\"} \(count)\n"
        }
        out += "# HELP http_request_duration_seconds HTTP request latency by route and method.\n# TYPE http_request_duration_seconds histogram\n"
        for (key, series) in latency.sorted(by: { $0.key < $1.key }) {
            let p = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
            let labels = "route=\"\(p[0])\",method=\"\(p[1])\""
            for (i, bound) in Self.buckets.enumerated() {
                out += "http_request_duration_seconds_bucket{\(labels),le=\"\(bound)\"} \(series.buckets[i])\n"
            }
            out += "http_request_duration_seconds_bucket{\(labels),le=\"+Inf\"} \(series.count)\n"
            out += "http_request_duration_seconds_sum{\(labels)} \(series.sum)\n"
            out += "http_request_duration_seconds_count{\(labels)} \(series.count)\n"
        }
        let (stages, outcomes) = readings.withLock { ($0.stages, $0.outcomes) }
        out += "# HELP receipts_processed_total Receipts this process's workers finished, by outcome.\n# TYPE receipts_processed_total counter\n"
        for (status, count) in outcomes.sorted(by: { $0.key < $1.key }) { out += "receipts_processed_total{status=\"\(status)\"} \(count)\n" }
        out += "# HELP receipt_stage_duration_seconds OCR (first reading, waiting for a thread included) and analysis (further passes included) per receipt.\n# TYPE receipt_stage_duration_seconds histogram\n"
        for (stage, series) in stages.sorted(by: { $0.key < $1.key }) {
            for (i, bound) in Self.buckets.enumerated() {
                out += "receipt_stage_duration_seconds_bucket{stage=\"\(stage)\",le=\"\(bound)\"} \(series.buckets[i])\n"
            }
            out += "receipt_stage_duration_seconds_bucket{stage=\"\(stage)\",le=\"+Inf\"} \(series.count)\n"
            out += "receipt_stage_duration_seconds_sum{stage=\"\(stage)\"} \(series.sum)\n"
            out += "receipt_stage_duration_seconds_count{stage=\"\(stage)\"} \(series.count)\n"
        }
        return out
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
