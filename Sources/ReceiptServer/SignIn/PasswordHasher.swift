import CSodium
import Dispatch
import Foundation
import Synchronization

/// Passwords, the fallback for a browser without passkeys: Argon2id through libsodium
/// (`crypto_pwhash_str`), whose string keeps the salt and the limits it was made with. Made and
/// checked off the server's threads (a moderate hash takes about a second and 256 MiB), at most
/// two at a time.
public struct PasswordHasher: Sendable {
    /// libsodium's limits: `moderate` is what passwords are hashed with (`crypto_pwhash`'s
    /// MODERATE: 3 passes over 256 MiB); `interactive` (2 passes, 64 MiB) and `minimum` are for
    /// tests that do not measure the cost (`--password-cost`, hidden).
    public enum Cost: String, Sendable, CaseIterable {
        case moderate, interactive, minimum

        var limits: (ops: UInt64, memory: Int) {
            switch self {
            case .moderate: (UInt64(crypto_pwhash_opslimit_moderate()), crypto_pwhash_memlimit_moderate())
            case .interactive: (UInt64(crypto_pwhash_opslimit_interactive()), crypto_pwhash_memlimit_interactive())
            case .minimum: (UInt64(crypto_pwhash_opslimit_min()), crypto_pwhash_memlimit_min())
            }
        }
    }

    public let cost: Cost

    public init(cost: Cost = .moderate) {
        self.cost = cost
        _ = Self.initialized
    }

    private static let initialized: Bool = sodium_init() >= 0
    /// Hashes in progress: each takes its memory limit (256 MiB for `moderate`).
    private static let running = HashSlots(slots: 2)

    /// Passwords are 8 to 1024 bytes.
    public static func check(_ password: String) throws -> String {
        guard password.utf8.count >= 8 else { throw PasswordError("a password needs at least 8 characters") }
        guard password.utf8.count <= 1024 else { throw PasswordError("a password is at most 1024 bytes") }
        return password
    }

    public struct PasswordError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The Argon2id string of `password` (`$argon2id$v=19$m=…`), with a new random salt.
    public func hash(_ password: String) async throws -> String {
        let (ops, memory) = cost.limits
        return try await Self.offThread {
            var out = [CChar](repeating: 0, count: crypto_pwhash_strbytes())
            let status = crypto_pwhash_str_alg(&out, password, UInt64(password.utf8.count), ops, memory, crypto_pwhash_alg_argon2id13())
            guard status == 0 else { throw PasswordError("could not hash the password (out of memory)") }
            return String(cString: out)
        }
    }

    /// Whether `password` is the one `hash` was made from (in time that does not depend on where
    /// they differ); false for a hash that is not libsodium's.
    public func verify(_ password: String, hash: String) async -> Bool {
        (try? await Self.offThread {
            crypto_pwhash_str_verify(hash, password, UInt64(password.utf8.count)) == 0
        }) ?? false
    }

    /// Whether `hash` was made with other limits than this hasher's (then it is made again at the
    /// next sign-in).
    public func needsRehash(_ hash: String) -> Bool {
        let (ops, memory) = cost.limits
        return crypto_pwhash_str_needs_rehash(hash, ops, memory) != 0
    }

    private static func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        await running.acquire()
        defer { running.release() }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}

/// A counting semaphore for tasks: `acquire` waits (without blocking a thread) while all slots are taken.
final class HashSlots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(slots: Int) {
        state = Mutex(State(free: slots))
    }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
