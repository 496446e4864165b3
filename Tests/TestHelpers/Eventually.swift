import Foundation

/// Waits until `condition` holds, checking every 50 ms; false after `timeout` seconds. (The default
/// is generous: it only matters when the condition never holds. On a loaded 2-core machine ten
/// seconds were once not enough for a few files, and with the whole suite running (load average
/// above 20: servers loading the neural reader, OCR processes, PostgreSQL) sixty were not.)
/// `RECEIPTS_TEST_TIME_SCALE` multiplies it: `make test-sanitize` sets 4, as everything runs
/// several times slower under a sanitizer.
func eventually(timeout: Double = 180, _ condition: () throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * testTimeScale * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return try condition()
}

/// `eventually` for a condition that awaits (an HTTP request): polled every 0.2 s, false after
/// `timeout` seconds (times `RECEIPTS_TEST_TIME_SCALE`).
func eventuallyAsync(timeout: Double, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * testTimeScale * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(200))
    }
    return try await condition()
}

/// How much longer than usual a test may wait (`RECEIPTS_TEST_TIME_SCALE`, 1 when unset).
let testTimeScale: Double = ProcessInfo.processInfo.environment["RECEIPTS_TEST_TIME_SCALE"].flatMap(Double.init).map { max(1, $0) } ?? 1

/// How much more memory a process may use than usual (`RECEIPTS_TEST_MEMORY_SCALE`, 1 when unset):
/// a sanitizer's shadow memory, red zones and quarantine add to every allocation.
let testMemoryScale: Double = ProcessInfo.processInfo.environment["RECEIPTS_TEST_MEMORY_SCALE"].flatMap(Double.init).map { max(1, $0) } ?? 1
