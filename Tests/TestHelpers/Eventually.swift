import Foundation

/// Waits until `condition` holds, checking every 50 ms; false after `timeout` seconds. (The default
/// is generous: it only matters when the condition never holds, and on a loaded 2-core machine ten
/// seconds were once not enough for a few files.)
func eventually(timeout: Double = 60, _ condition: () throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return try condition()
}
