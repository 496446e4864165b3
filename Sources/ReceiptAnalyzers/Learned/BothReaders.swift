import Foundation
import ReceiptModel

/// Features of a candidate that two independent readings (Tesseract's and the neural reader's)
/// propose: each reading's own features side by side, whether each proposes the value at all, and
/// whether they agree on it — the strongest evidence there is that a value was read right, since
/// the two readers rarely make the same slip.
extension CandidateProposer {
    /// The features the model weighs for a field, given the readers that read the receipt: one
    /// reader's own list, or for both readers each one's list (prefixed `tesseract.` and
    /// `neural.`), each followed by whether that reading proposes the value, then what the two
    /// readings say together.
    package static func features(for field: LearnedField, readers: ReaderChoice) -> [String] {
        let own = features(for: field)
        // The memory of shops' block comes last, whatever the readers (MemoryCandidates.swift).
        guard readers == .both else { return own + memoryFeatures(field) }
        return own.map { "tesseract." + $0 } + ["inTesseract"] + own.map { "neural." + $0 } + ["inNeural"]
            + agreementFeatures(field) + memoryFeatures(field)
    }

    /// What the two readings say of a value together: both propose it; both readings' rules pick it
    /// (the same name, for the vendor); and, for the vendor, two names close enough to be the same
    /// print read with a slip (`Reading.sameName`).
    static func agreementFeatures(_ field: LearnedField) -> [String] {
        switch field {
        case .vendor: ["inBoth", "bothPick", "similarName"]
        case .item: itemAgreementFeatures
        default: ["inBoth", "bothPick"]
        }
    }

    /// The candidates of two readings as one list, a value once: a value only one reading proposes
    /// gets zeros for the other's features. Values are the same when they are equal; vendors when
    /// their letters and digits are (`NameMatching.normalized`), Tesseract's spelling kept.
    package static func combined(_ field: LearnedField, tesseract: [Candidate], neural: [Candidate]) -> [Candidate] {
        let width = features(for: field).count
        let zeros = [Double](repeating: 0, count: width)
        func key(_ c: Candidate) -> String { field == .vendor ? NameMatching.normalized(c.value) : c.value }
        var order: [String] = [], value: [String: String] = [:]
        var t: [String: [Double]] = [:], n: [String: [Double]] = [:]
        for c in tesseract where t[key(c)] == nil {
            if value[key(c)] == nil { order.append(key(c)); value[key(c)] = c.value }
            t[key(c)] = c.features
        }
        for c in neural where n[key(c)] == nil {
            if value[key(c)] == nil { order.append(key(c)); value[key(c)] = c.value }
            n[key(c)] = c.features
        }
        // The rules' pick: the first feature of every field's list.
        func picked(_ f: [Double]?) -> Bool { f?.first == 1 }
        return order.map { k in
            let (tf, nf) = (t[k], n[k])
            var agreement = [(tf != nil && nf != nil).feature, (picked(tf) && picked(nf)).feature]
            if field == .vendor {
                let names = (tesseract.map(\.value) + neural.map(\.value))
                let name = value[k] ?? ""
                agreement.append(names.contains { NameMatching.normalized($0) != k && Reading.sameName($0, name) }.feature)
            }
            return Candidate(field: field, value: value[k] ?? k,
                             features: (tf ?? zeros) + [(tf != nil).feature] + (nf ?? zeros) + [(nf != nil).feature] + agreement)
        }
    }
}
