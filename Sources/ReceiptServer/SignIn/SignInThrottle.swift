import Foundation
import Synchronization

/// Failed sign-ins slowed per user and per address: after `free` failures within `window`, the
/// next attempt must wait `base` seconds, doubling with each further failure up to `longest`
/// (15 minutes); a success clears the user's count. Kept in this process's memory, as the rate
/// limits are (several `serve` processes each slow on their own).
final class SignInThrottle: Sendable {
    struct Policy: Sendable {
        /// Failures allowed at full speed, per user and per address.
        var freePerUser = 5
        var freePerAddress = 20
        var base: TimeInterval = 1
        var longest: TimeInterval = 900
        /// Failures older than this are forgotten.
        var window: TimeInterval = 3600
    }

    private struct Record {
        var failures: Int
        var last: Date
    }

    let policy: Policy
    /// The hash an unknown user's password is checked against (made once, with the server's cost),
    /// so that the answer's time does not tell which users exist.
    let dummyHash = Mutex<String?>(nil)
    private let records = Mutex<[String: Record]>([:])

    init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// Seconds to wait before `user` may try again from `address` (0: now).
    func wait(user: String?, address: String?, now: Date = Date()) -> Int {
        records.withLock { records in
            var longest: TimeInterval = 0
            for (key, free) in keys(user: user, address: address) {
                guard let record = records[key], now.timeIntervalSince(record.last) < policy.window, record.failures >= free else { continue }
                let delay = min(policy.longest, policy.base * pow(2, Double(record.failures - free)))
                longest = max(longest, record.last.addingTimeInterval(delay).timeIntervalSince(now))
            }
            return longest > 0 ? max(1, Int(longest.rounded(.up))) : 0
        }
    }

    func failed(user: String?, address: String?, now: Date = Date()) {
        records.withLock { records in
            if records.count > 100_000 { records = records.filter { now.timeIntervalSince($0.value.last) < policy.window } }
            for (key, _) in keys(user: user, address: address) {
                var record = records[key].flatMap { now.timeIntervalSince($0.last) < policy.window ? $0 : nil } ?? Record(failures: 0, last: now)
                record.failures += 1
                record.last = now
                records[key] = record
            }
        }
    }

    func succeeded(user: String) {
        _ = records.withLock { $0.removeValue(forKey: "user:" + user) }
    }

    private func keys(user: String?, address: String?) -> [(String, Int)] {
        var keys: [(String, Int)] = []
        if let user { keys.append(("user:" + user, policy.freePerUser)) }
        if let address { keys.append(("address:" + address, policy.freePerAddress)) }
        return keys
    }
}

/// A session's device in words, from its User-Agent: `iPhone Safari`, `Android Chrome`,
/// `Mac Firefox`, `Windows Edge`; `unknown browser` when it says nothing known.
enum DeviceName {
    static func of(userAgent: String?) -> String {
        guard let agent = userAgent, !agent.isEmpty else { return "unknown browser" }
        let system: String? = [("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"),
                               ("Macintosh", "Mac"), ("Mac OS X", "Mac"), ("Windows", "Windows"), ("Linux", "Linux")]
            .first { agent.contains($0.0) }?.1
        let browser: String? = [("Edg/", "Edge"), ("EdgiOS", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser", "Samsung Internet"),
                                ("Firefox/", "Firefox"), ("FxiOS", "Firefox"), ("CriOS", "Chrome"), ("HeadlessChrome", "Headless Chrome"),
                                ("Chromium/", "Chromium"), ("Chrome/", "Chrome"), ("Safari/", "Safari"), ("curl/", "curl")]
            .first { agent.contains($0.0) }?.1
        let words = [system, browser].compactMap { $0 }
        return words.isEmpty ? "unknown browser" : words.joined(separator: " ")
    }
}
