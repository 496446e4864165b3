import Foundation
import ReceiptModel

package struct CategoryFinding: Sendable, Equatable {
    package var name: String
    package var confidence: Double
}

/// Picks the expense category from the taxonomy's keywords and patterns.
///
/// Each distinct keyword found counts 1 (2 in the first three rows, where the merchant is named;
/// numeric keywords such as `76` count only there);
/// each pattern that matches counts 2. A category needs a score of 2; otherwise the taxonomy's
/// fallback applies.
package struct CategoryClassifier: Sendable {
    private struct Compiled: Sendable {
        var name: String
        var keywords: [String]
        var patterns: [Pattern]
    }
    private let categories: [Compiled]
    private let fallback: String

    /// The classifier of the default taxonomy, compiled once.
    package static let standard = CategoryClassifier(taxonomy: .default)

    package static func forTaxonomy(_ taxonomy: Taxonomy) -> CategoryClassifier {
        taxonomy == .default ? standard : CategoryClassifier(taxonomy: taxonomy)
    }

    package init(taxonomy: Taxonomy) {
        categories = taxonomy.categories.map { c in
            Compiled(name: c.name,
                     keywords: c.keywords.map { LabelText($0).words.joined(separator: " ") }.filter { !$0.isEmpty },
                     patterns: c.patterns.map { Pattern($0) })
        }
        fallback = taxonomy.fallback
    }

    package func classify(_ document: ReceiptDocument, vendor: String?) -> CategoryFinding {
        let headerText = (document.lines.prefix(3).map(\.text) + [vendor ?? ""]).joined(separator: "\n")
        let header = LabelText(headerText)
        let body = LabelText(document.lines.map(\.text).joined(separator: "\n"))
        let raw = document.lines.map(\.text).joined(separator: "\n")
        var best: (name: String, score: Int)? = nil
        for c in categories where c.name != fallback {
            var score = 0
            for k in c.keywords where body.has(k) {
                // A bare number ("76") names a brand only in the header; elsewhere it is a price.
                if k.allSatisfy(\.isNumber) {
                    if header.has(k) { score += 2 }
                    continue
                }
                score += header.has(k) ? 2 : 1
            }
            for p in c.patterns where p.matches(raw) { score += 2 }
            if score >= 2, best == nil || score > best!.score { best = (c.name, score) }
        }
        guard let best else { return CategoryFinding(name: fallback, confidence: 0.4) }
        return CategoryFinding(name: best.name, confidence: min(0.95, 0.5 + Double(best.score) * 0.1))
    }
}
