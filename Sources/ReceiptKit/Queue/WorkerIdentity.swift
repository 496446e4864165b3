import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names a queue worker in a lease: `host:pid:instance`. A lease held by a process of this host
/// that no longer exists is abandoned at once (no need to wait for it to expire).
public struct WorkerIdentity: Sendable, Equatable {
    public var host: String
    public var pid: Int32
    public var instance: String

    public init(host: String = ProcessInfo.processInfo.hostName, pid: Int32 = getpid(),
                instance: String = String(UUID().uuidString.prefix(8)).lowercased()) {
        self.host = host
        self.pid = pid
        self.instance = instance
    }

    /// The lease holder's name for worker number `worker`.
    public func holder(worker: Int) -> String { "\(host):\(pid):\(instance)/\(worker)" }

    /// True when `holder` names a process on this host that has exited, or this very process under
    /// an earlier instance (a pipeline that was shut down).
    public func isAbandoned(_ holder: String) -> Bool {
        let parts = holder.split(separator: ":")
        guard parts.count >= 3, String(parts[0]) == host, let pid = Int32(parts[1]) else { return false }
        if pid == self.pid {
            let instance = parts[2].split(separator: "/").first.map(String.init) ?? ""
            return instance != self.instance && !WorkerIdentity.liveInstances.contains(instance)
        }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Instances of pipelines alive in this process (several may share one store).
    private static let live = Mutex(Set<String>())
    static var liveInstances: Set<String> { live.withLock { $0 } }
    static func register(_ instance: String) { _ = live.withLock { $0.insert(instance) } }
    static func unregister(_ instance: String) { _ = live.withLock { $0.remove(instance) } }
}
