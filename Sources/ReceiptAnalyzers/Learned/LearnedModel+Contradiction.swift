import ReceiptModel

extension LearnedModel {
    /// Whether the printed amounts contradict a chosen candidate (`CandidateProposer.contradictionFeatures`:
    /// the total is cash tendered, or the arithmetic closes on another amount and not on it; the tax
    /// is above the country's ceiling, the total, the net, or not what the printed rate gives), in
    /// either reading's features. Such a field is named in `analysis.review` whatever its probability.
    package func contradicts(_ candidate: Candidate) -> Bool {
        guard let suffixes = CandidateProposer.contradictionFeatures[candidate.field] else { return false }
        let names = CandidateProposer.features(for: candidate.field, readers: readers)
        for (i, name) in names.enumerated() where i < candidate.features.count && candidate.features[i] == 1 {
            if suffixes.contains(where: { name == $0 || name.hasSuffix("." + $0) }) { return true }
        }
        return false
    }
}
