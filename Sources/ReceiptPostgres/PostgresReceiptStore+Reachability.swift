import Foundation
import PostgresNIO
import ReceiptModel

/// What the store knows of PostgreSQL's availability. While it is down, requests fail at once with
/// a transient `ReceiptError` (an HTTP server answers 503 with Retry-After) instead of each waiting
/// in the pool for an answer that does not come; one probe a second finds it up again.
struct Reachability: Sendable {
    /// Since when PostgreSQL has not answered (nil: it answers, as far as the store knows).
    var downSince: Date?
    /// When it was last probed while down.
    var lastProbe: Date?
    /// Why it was last found unreachable (one line, never the password).
    var cause: String?
}

extension PostgresReceiptStore {
    /// How long a request waits for its answer before the server is probed.
    static let suspicionDelay: Duration = .seconds(2)
    /// How long a probe may take (connecting and `SELECT 1`): the URL's `connect_timeout` when it
    /// has one (connecting may take that long there), else 2 s.
    var probeLimit: Duration { postgres.connectTimeout ?? .seconds(2) }
    /// While down, at most one probe this often; requests in between fail at once.
    static let probeInterval: TimeInterval = 1

    /// Whether PostgreSQL is known to be down (for readiness checks and tests).
    public var isKnownUnreachable: Bool { reachability.withLock { $0.downSince != nil } }

    /// Returns at once while PostgreSQL answers. While it is known to be down, probes it (at most
    /// once per `probeInterval`) and throws a transient error unless it answers again.
    func ensureReachable() async throws {
        enum Decision { case go, fail(String?), probe }
        let now = Date()
        let decision = reachability.withLock { state -> Decision in
            guard state.downSince != nil else { return .go }
            if let last = state.lastProbe, now.timeIntervalSince(last) < Self.probeInterval { return .fail(state.cause) }
            state.lastProbe = now
            return .probe
        }
        switch decision {
        case .go:
            return
        case let .fail(cause):
            throw unreachable(cause: cause)
        case .probe:
            if let cause = await probe() {
                reachability.withLock { $0.cause = cause }
                throw unreachable(cause: cause)
            }
            reachability.withLock { $0 = Reachability() }
            // The old pool's connections died with the server: start from fresh ones.
            replacePool(client, reason: "PostgreSQL answers again; connecting anew")
        }
    }

    /// Records that PostgreSQL did not answer (logged once per outage).
    func markUnreachable(cause: String) {
        let first = reachability.withLock { state -> Bool in
            defer {
                if state.downSince == nil { state.downSince = Date() }
                state.cause = cause
                state.lastProbe = Date()
            }
            return state.downSince == nil
        }
        if first {
            logger.warning("PostgreSQL is unreachable; requests fail at once until it answers again",
                           metadata: ["store.path": "\(location)", "error.message": "\(cause)"])
        }
    }

    /// Connects on a connection of its own and runs `SELECT 1`, within `probeLimit`. Nil when
    /// PostgreSQL answered, else why not.
    func probe() async -> String? {
        do {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    let connection = try await self.connectDirectly(id: 2, connectTimeout: Self.timeAmount(self.probeLimit))
                    // Closed before it is let go, whatever happens (postgres-nio requires it).
                    do {
                        _ = try await connection.query("SELECT 1", logger: self.logger).collect()
                    } catch {
                        try? await connection.close()
                        throw error
                    }
                    try? await connection.close()
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: self.probeLimit)
                    return false
                }
                defer { group.cancelAll() }
                guard try await group.next() == true else {
                    throw ReceiptError(.database, "no answer within \(self.probeLimit)")
                }
            }
            return nil
        } catch {
            return Self.describe(error)
        }
    }

    func unreachable(cause: String?) -> ReceiptError {
        ReceiptError(.database, "PostgreSQL at \(postgres.host):\(postgres.port) is not reachable; try again shortly",
                     file: location, cause: cause, retry: .later)
    }
}
