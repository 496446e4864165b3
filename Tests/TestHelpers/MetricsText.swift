/// Reading `GET /metrics` (Prometheus' text format) the way Prometheus does: a sample's value as a
/// number, so `1` and `1.0` (how the Prometheus library writes a gauge) are the same sample.
enum MetricsText {
    /// The value of the sample written `series` (a name, with its labels as written), or nil.
    static func value(_ series: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), line[..<space] == series else { continue }
            return Double(line[line.index(after: space)...])
        }
        return nil
    }
}
