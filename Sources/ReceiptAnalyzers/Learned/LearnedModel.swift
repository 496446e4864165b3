import Foundation
import ReceiptModel

/// The trained parameters that choose among the rules' candidates and turn scores into calibrated
/// probabilities. Made by `make train` (`scripts/train.py`, scikit-learn) from the labelled
/// receipts and shipped as `LearnedModel+Parameters.swift`; read here with Swift only.
///
/// Per field: a logistic regression over standardized candidate features gives each candidate a
/// score; the highest wins; a second logistic regression (Platt scaling over the winner's score and
/// its margin over the runner-up, fitted on held-out folds) turns that into the probability the
/// winner is right. `needsReview` is set when the total's or the date's probability is below the
/// thresholds chosen on held-out folds.
package struct LearnedModel: Sendable {
    package struct Field: Sendable {
        package var features: [String]
        package var mean: [Double]
        package var scale: [Double]
        package var weights: [Double]
        package var intercept: Double
        /// Platt scaling: p = σ(a·score + b·margin + c).
        package var calibration: [Double]

        package func score(_ features: [Double]) -> Double {
            var s = intercept
            for i in weights.indices {
                s += weights[i] * (features[i] - mean[i]) / scale[i]
            }
            return s
        }

        /// The probability that the best of candidates scored `best` and `runnerUp` is right.
        package func probability(best: Double, runnerUp: Double?) -> Double {
            let margin = runnerUp.map { best - $0 } ?? 10
            let z = calibration[0] * best + calibration[1] * min(margin, 10) + calibration[2]
            return 1 / (1 + exp(-z))
        }
    }

    package var version: String
    package var fields: [LearnedField: Field]
    /// Probability below which a field marks the receipt for review.
    package var reviewBelow: [LearnedField: Double]

    /// The model shipped with the package.
    package static let shipped: LearnedModel? = try? LearnedModel(json: LearnedModel.shippedParameters)

    package init(json text: String) throws {
        let json = try JSONValue.parse(text)
        guard let version = json["version"]?.stringValue, let fieldsJSON = json["fields"] else {
            throw ReceiptError(.configuration, "learned model: no version or fields")
        }
        self.version = version
        var fields: [LearnedField: Field] = [:]
        var review: [LearnedField: Double] = [:]
        for field in LearnedField.allCases {
            guard let f = fieldsJSON[field.rawValue] else { continue }
            let names = f["features"]?.arrayValue?.compactMap(\.stringValue) ?? []
            guard names == CandidateProposer.features(for: field) else {
                throw ReceiptError(.configuration, "learned model \(version): the \(field.rawValue) features differ from this build's; run make train")
            }
            func numbers(_ key: String) -> [Double] { f[key]?.arrayValue?.compactMap(\.doubleValue) ?? [] }
            let parsed = Field(features: names, mean: numbers("mean"), scale: numbers("scale"), weights: numbers("weights"),
                               intercept: f["intercept"]?.doubleValue ?? 0, calibration: numbers("calibration"))
            guard parsed.mean.count == names.count, parsed.scale.count == names.count, parsed.weights.count == names.count,
                  parsed.calibration.count == 3, parsed.scale.allSatisfy({ $0 > 0 }) else {
                throw ReceiptError(.configuration, "learned model \(version): malformed parameters for \(field.rawValue)")
            }
            fields[field] = parsed
            if let t = f["reviewBelow"]?.doubleValue { review[field] = t }
        }
        self.fields = fields
        self.reviewBelow = review
    }

    /// Whether a field's value this likely right marks its receipt for review.
    package func flagsReview(_ field: LearnedField, probability p: Double) -> Bool {
        p < (reviewBelow[field] ?? 0)
    }

    /// Whether `candidates`' best marks the receipt for review, whatever its other fields: less
    /// likely right than the field's threshold, or none at all.
    package func flagsReview(_ candidates: [Candidate]) -> Bool {
        guard let (best, p) = choose(candidates) else { return true }
        return flagsReview(best.field, probability: p)
    }

    /// The chosen candidate and its probability, or nil when there are no candidates or no
    /// parameters for the field.
    package func choose(_ candidates: [Candidate]) -> (candidate: Candidate, probability: Double)? {
        guard let first = candidates.first, let field = fields[first.field] else { return nil }
        let scored = candidates.map { ($0, field.score($0.features)) }.sorted { $0.1 > $1.1 }
        let best = scored[0]
        return (best.0, field.probability(best: best.1, runnerUp: scored.count > 1 ? scored[1].1 : nil))
    }
}
