import Foundation
import ReceiptModel

/// The trained parameters, for one choice of readers, that choose among the rules' candidates and
/// turn scores into calibrated probabilities. Made by `make train` (`scripts/train.py`,
/// scikit-learn) from the labelled receipts and shipped as the package resource
/// `learned-model.json` (a model per `ReaderChoice`, see `LearnedModels`); read here with Swift only.
///
/// Per field: a logistic regression over standardized candidate features gives each candidate a
/// score; the highest wins; a second logistic regression (Platt scaling over the winner's score and
/// its margin over the runner-up, capped at `maxMargin`, fitted on held-out folds) turns that into
/// the probability the winner is right. A field whose probability is below its `reviewBelow`
/// threshold (chosen on held-out folds) marks the receipt for review.
package struct LearnedModel: Sendable {
    package struct Field: Sendable {
        package var features: [String]
        package var mean: [Double]
        package var scale: [Double]
        package var weights: [Double]
        package var intercept: Double
        /// Platt scaling: p = σ(a·score + b·margin + c).
        package var calibration: [Double]

        /// The score of a candidate's features; features it lacks at the end (a candidate proposed
        /// without the memory of shops' block) count as 0, as with nothing remembered.
        package func score(_ features: [Double]) -> Double {
            var s = intercept
            for i in weights.indices {
                s += weights[i] * ((i < features.count ? features[i] : 0) - mean[i]) / scale[i]
            }
            return s
        }
    }

    package var version: String
    /// The readers whose candidates it scores.
    package var readers: ReaderChoice
    package var fields: [LearnedField: Field]
    /// Probability below which a field marks the receipt for review.
    package var reviewBelow: [LearnedField: Double]
    /// The margin over the runner-up the calibration sees at most (and a lone candidate's margin).
    package var maxMargin: Double
    /// Where the rules found no tax, the model's amount is taken only from this probability, or
    /// when the receipt marks it as a tax (`showsTax`): a receipt may print none.
    package var taxFloor: Double
    /// The tax features by which a receipt marks an amount as a tax (on a tax row, explained by a
    /// printed rate, the total less the subtotal).
    package var showsTaxFeatures: [String]
    /// A row's likeliest item amount is kept from this probability (chosen on held-out folds for
    /// the items' F1).
    package var itemKeepFrom: Double = 0.5

    /// The model of `readers` in `learned-model.json`'s format (`LearnedModels`): `json` is that
    /// reader choice's entry, `maxMargin` and `taxFloor` the file's settings.
    package init(json: JSONValue, readers: ReaderChoice, maxMargin: Double, taxFloor: Double) throws {
        guard let version = json["version"]?.stringValue, let fieldsJSON = json["fields"] else {
            throw ReceiptError(.configuration, "learned model (\(readers.rawValue)): no version or fields")
        }
        self.version = version
        self.readers = readers
        self.maxMargin = maxMargin
        self.taxFloor = taxFloor
        showsTaxFeatures = json["showsTax"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var fields: [LearnedField: Field] = [:]
        var review: [LearnedField: Double] = [:]
        for field in LearnedField.allCases {
            guard let f = fieldsJSON[field.rawValue] else { continue }
            var entries = f["features"]?.arrayValue ?? []
            let expected = CandidateProposer.features(for: field, readers: readers)
            // Parameters fitted before the memory of shops' block: its features weigh nothing until
            // `make train` fits them (the model chooses as it did).
            let memory = CandidateProposer.memoryFeatures(field)
            if entries.compactMap({ $0["name"]?.stringValue }) == Array(expected.dropLast(memory.count)), !memory.isEmpty {
                entries += memory.map { .object([("name", .string($0)), ("mean", .number("0")), ("scale", .number("1")), ("weight", .number("0"))]) }
            }
            let names = entries.compactMap { $0["name"]?.stringValue }
            guard names == expected else {
                throw ReceiptError(.configuration, "learned model \(version): the \(field.rawValue) features differ from this build's; run make train")
            }
            func numbers(_ key: String) -> [Double] { entries.compactMap { $0[key]?.doubleValue } }
            let parsed = Field(features: names, mean: numbers("mean"), scale: numbers("scale"), weights: numbers("weight"),
                               intercept: f["intercept"]?.doubleValue ?? 0,
                               calibration: f["calibration"]?.arrayValue?.compactMap(\.doubleValue) ?? [])
            guard parsed.mean.count == names.count, parsed.scale.count == names.count, parsed.weights.count == names.count,
                  parsed.calibration.count == 3, parsed.scale.allSatisfy({ $0 > 0 }) else {
                throw ReceiptError(.configuration, "learned model \(version): malformed parameters for \(field.rawValue)")
            }
            fields[field] = parsed
            if let t = f["reviewBelow"]?.doubleValue { review[field] = t }
            if field == .item, let t = f["keepFrom"]?.doubleValue { itemKeepFrom = t }
        }
        guard showsTaxFeatures.allSatisfy(CandidateProposer.features(for: .tax, readers: readers).contains) else {
            throw ReceiptError(.configuration, "learned model \(version): showsTax names features the tax has not")
        }
        self.fields = fields
        self.reviewBelow = review
    }

    /// The probability that the best of candidates scored `best` and `runnerUp` is right.
    package func probability(_ field: Field, best: Double, runnerUp: Double?) -> Double {
        let margin = runnerUp.map { best - $0 } ?? maxMargin
        let z = field.calibration[0] * best + field.calibration[1] * min(margin, maxMargin) + field.calibration[2]
        return 1 / (1 + exp(-z))
    }

    /// Whether a field's value this likely right marks its receipt for review.
    package func flagsReview(_ field: LearnedField, probability p: Double) -> Bool {
        p < (reviewBelow[field] ?? 0)
    }

    /// The tax has a review threshold: a receipt that prints a tax is flagged when its tax is less
    /// likely right than it (`Choice.learned`).
    package var reviewsTax: Bool { reviewBelow[.tax] != nil }

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
        return (best.0, probability(field, best: best.1, runnerUp: scored.count > 1 ? scored[1].1 : nil))
    }

    /// The line items: of each row's candidates the likeliest, kept when its probability reaches
    /// `itemKeepFrom`, in reading order, each with its probability. Nil when the model has no
    /// parameters for items.
    package func chooseItems(_ candidates: [ItemCandidate]) -> [(item: ItemCandidate, probability: Double)]? {
        guard let field = fields[.item] else { return nil }
        var best: [Int: (item: ItemCandidate, score: Double)] = [:]
        for c in candidates {
            let s = field.score(c.candidate.features)
            let row = c.candidate.row ?? -1
            if let b = best[row], b.score >= s { continue }
            best[row] = (c, s)
        }
        var kept: [(item: ItemCandidate, probability: Double)] = []
        for b in best.values {
            let p = itemProbability(field, score: b.score)
            if p >= itemKeepFrom { kept.append((b.item, p)) }
        }
        kept.sort { a, b in
            a.item.top != b.item.top ? a.item.top < b.item.top : (a.item.candidate.row ?? 0) < (b.item.candidate.row ?? 0)
        }
        return kept
    }

    /// An item candidate's probability: Platt scaling of its score alone (a row's candidates do not
    /// compete as a receipt's totals do).
    package func itemProbability(_ field: Field, score: Double) -> Double {
        1 / (1 + exp(-(field.calibration[0] * score + field.calibration[2])))
    }

    /// A tax candidate the receipt itself marks as a tax (`showsTaxFeatures`).
    package func showsTax(_ candidate: Candidate) -> Bool {
        guard candidate.field == .tax else { return false }
        let names = CandidateProposer.features(for: .tax, readers: readers)
        return showsTaxFeatures.contains { name in
            names.firstIndex(of: name).map { candidate.features[$0] == 1 } ?? false
        }
    }
}

/// The shipped models, one for each choice of readers: what Tesseract alone reads, what the neural
/// reader alone reads, and both readings weighed together (whose features say whether the two
/// agree). The file (`learned-model.json`):
/// `{"maxMargin": 10, "taxFloor": 0.5, "readers": {"both": {"version", "showsTax", "fields"}, …}}`.
package struct LearnedModels: Sendable {
    package var models: [ReaderChoice: LearnedModel]

    package subscript(readers: ReaderChoice) -> LearnedModel? { models[readers] }

    package init(json text: String) throws {
        let json = try JSONValue.parse(text)
        guard let maxMargin = json["maxMargin"]?.doubleValue, let taxFloor = json["taxFloor"]?.doubleValue,
              let readers = json["readers"] else {
            throw ReceiptError(.configuration, "learned model: no maxMargin, taxFloor or readers")
        }
        var models: [ReaderChoice: LearnedModel] = [:]
        for choice in ReaderChoice.allCases {
            guard let entry = readers[choice.rawValue] else { continue }
            models[choice] = try LearnedModel(json: entry, readers: choice, maxMargin: maxMargin, taxFloor: taxFloor)
        }
        self.models = models
    }

    /// The models shipped with the package (`learned-model.json`); nil when they do not load, and
    /// the rules then decide alone.
    package static let shipped: LearnedModels? = Bundle.module.url(forResource: "learned-model", withExtension: "json")
        .flatMap { try? String(contentsOf: $0, encoding: .utf8) }
        .flatMap { try? LearnedModels(json: $0) }
}

extension LearnedModel {
    /// The shipped model for Tesseract's reading alone.
    package static var shipped: LearnedModel? { LearnedModels.shipped?[.tesseract] }
}
