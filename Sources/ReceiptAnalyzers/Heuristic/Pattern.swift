import Foundation
import ReceiptModel

/// A compiled regular expression usable from any thread.
///
/// `@unchecked Sendable`: `NSRegularExpression` is immutable after creation and documented as
/// safe to use from several threads at once.
package struct Pattern: @unchecked Sendable {
    package let regex: NSRegularExpression

    package init(_ pattern: String, caseInsensitive: Bool = true) {
        // The patterns are literals of this module; a bad one is a programming error caught by tests.
        regex = try! NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
    }

    /// Capture groups of every match (nil for a group that did not take part), with the match's
    /// start offset in UTF-16 units.
    package func matches(in text: String) -> [(groups: [String?], offset: Int)] {
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
            let groups = (0..<m.numberOfRanges).map { i -> String? in
                let r = m.range(at: i)
                return r.location == NSNotFound ? nil : ns.substring(with: r)
            }
            return (groups, m.range.location)
        }
    }

    package func firstMatch(in text: String) -> [String?]? {
        let ns = text as NSString
        guard let m = regex.firstMatch(in: text, range: NSRange(location: 0, length: ns.length)) else { return nil }
        return (0..<m.numberOfRanges).map { i in
            let r = m.range(at: i)
            return r.location == NSNotFound ? nil : ns.substring(with: r)
        }
    }

    package func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(location: 0, length: (text as NSString).length)) != nil
    }
}
