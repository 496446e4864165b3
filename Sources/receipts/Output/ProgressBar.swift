import Foundation

/// A one-line progress bar on stderr (count, rate, ETA), drawn only when stderr is a terminal.
final class ProgressBar {
    private let total: Int
    private let start = Date()
    private var done = 0
    private var failed = 0
    private let enabled: Bool
    private var lastDraw = Date.distantPast

    init(total: Int, enabled: Bool = isatty(STDERR_FILENO) != 0) {
        self.total = total
        self.enabled = enabled && total > 0
    }

    /// `count` files done (a receipt of several pictures is as many files).
    func advance(failed didFail: Bool, count: Int = 1) {
        done = min(total, done + max(1, count))
        if didFail { failed += 1 }
        let now = Date()
        if done == total || now.timeIntervalSince(lastDraw) > 0.1 {
            lastDraw = now
            draw()
        }
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// Clears the bar so a log line can be printed; the next advance redraws it.
    func clear() { finish() }

    private func draw() {
        guard enabled else { return }
        let elapsed = Date().timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let remaining = rate > 0 ? Double(total - done) / rate : 0
        let width = 24
        let filled = total > 0 ? width * done / total : width
        let bar = String(repeating: "=", count: filled) + (filled < width ? ">" : "") + String(repeating: " ", count: max(0, width - filled - 1))
        let eta = String(format: "%d:%02d", Int(remaining) / 60, Int(remaining) % 60)
        var line = String(format: "\r[%@] %d/%d  %.1f/s  ETA %@", bar, done, total, rate, eta)
        if failed > 0 { line += "  \(failed) failed" }
        FileHandle.standardError.write(Data((line + "\u{1B}[K").utf8))
    }
}
