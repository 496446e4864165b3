/// One feature the learned model weighs: its name and how it is computed from what is known of a
/// candidate (`Evidence`), side by side. A field's features are a list of these; the model's
/// parameters carry the names, so a build whose list differs refuses them.
package struct Feature<Evidence>: Sendable {
    package let name: String
    private let compute: @Sendable (Evidence) -> Double

    package init(_ name: String, _ compute: @escaping @Sendable (Evidence) -> Double) {
        self.name = name
        self.compute = compute
    }

    package func callAsFunction(_ evidence: Evidence) -> Double { compute(evidence) }
}

extension Array {
    /// The names of a list of features, in order.
    package func names<Evidence>() -> [String] where Element == Feature<Evidence> { map(\.name) }

    /// Each feature's value for `evidence`, in order.
    package func values<Evidence>(_ evidence: Evidence) -> [Double] where Element == Feature<Evidence> {
        map { $0(evidence) }
    }
}

extension Bool {
    /// 1 or 0, as a feature.
    var feature: Double { self ? 1 : 0 }
}
