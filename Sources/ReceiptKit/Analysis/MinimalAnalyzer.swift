import Foundation

/// Placeholder analyzer: finds nothing, marks every receipt for review. Replaced by the heuristic one.
public struct MinimalAnalyzer: ReceiptAnalyzer {
    public var name: String { "minimal" }
    public init() {}
    public func analyze(_ input: AnalysisInput, options: AnalysisOptions) async throws -> ReceiptAnalysis {
        ReceiptAnalysis(currency: options.defaultCurrency, category: options.taxonomy.fallback, analyzer: name)
    }
}
