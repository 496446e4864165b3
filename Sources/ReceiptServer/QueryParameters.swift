import Foundation
import Hummingbird
import ReceiptKit
import ReceiptServerStore

/// A request's query, checked: a parameter the route does not take, or one given twice, is a 400
/// naming it (a mistyped `?needsReveiw=true` must not quietly list everything). Read as browsers
/// and HTTP libraries write a query (`application/x-www-form-urlencoded`): `%XX` escapes, and `+`
/// for a space (`%2B` for a plus).
struct QueryParameters {
    private var values: [String: String] = [:]

    init(_ request: Request, allowed: [String]) throws {
        for (key, value) in try Self.pairs(request.uri.query ?? "") {
            let name = key
            guard allowed.contains(name) else {
                let takes = allowed.isEmpty ? "takes no query parameters" : "takes \(allowed.joined(separator: ", "))"
                throw Problem(.badRequest, "unknown query parameter '\(name)' (\(request.method) \(request.uri.path) \(takes))")
            }
            guard values[name] == nil else { throw Problem(.badRequest, "query parameter '\(name)' is given more than once") }
            values[name] = String(value)
        }
    }

    subscript(_ name: String) -> String? { values[name] }

    /// The query's names and values, decoded; a pair that is not valid percent-encoding is a 400.
    static func pairs(_ query: String) throws -> [(String, String)] {
        try query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) throws -> String {
                guard let text = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
                    throw Problem(.badRequest, "the query is not valid percent-encoding near '\(APIToken.redacted(String(pair.prefix(40))))'")
                }
                return text
            }
            return (try decoded(parts[0]), parts.count > 1 ? try decoded(parts[1]) : "")
        }
    }

    /// `true` or `false`; anything else is a 400 (`?store=1` must not quietly mean false).
    func flag(_ name: String) throws -> Bool? {
        guard let text = values[name] else { return nil }
        switch text {
        case "true": return true
        case "false": return false
        default: throw Problem(.badRequest, "\(name) must be true or false (got '\(text)')")
        }
    }

    /// A whole number in `range` (400 otherwise).
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let n = Int(text), range.contains(n) else {
            throw Problem(.badRequest, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound) (got '\(text)')")
        }
        return n
    }

    /// A receipt or expense id (400 otherwise).
    func id(_ name: String) throws -> UUID? {
        guard let text = values[name] else { return nil }
        guard let id = UUID(uuidString: text) else { throw Problem(.badRequest, "\(name) must be an id as the API returns it (got '\(text)')") }
        return id
    }

    /// A calendar date `YYYY-MM-DD` (400 otherwise).
    func date(_ name: String) throws -> CalendarDate? {
        guard let text = values[name] else { return nil }
        guard let date = CalendarDate(iso: text) else { throw Problem(.badRequest, "\(name) must be a date YYYY-MM-DD (got '\(text)')") }
        return date
    }
}
