import Foundation

extension Date {
    /// The time as records, exports and messages print it: ISO 8601 in UTC, to the second
    /// (`2026-11-28T09:14:03Z`). A format style, not an `ISO8601DateFormatter`: making one of those
    /// costs about 0.13 ms here (0.001 ms for the style), and a page of 50 receipts' records made
    /// 150 of them.
    public var iso8601: String { formatted(Self.iso8601Style) }

    private static let iso8601Style = Date.ISO8601FormatStyle()
}
