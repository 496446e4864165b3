import Foundation
import ReceiptAnalyzers
import ReceiptModel

/// How often the identity fields were read right where the labels give them (issue 57): the
/// phone (its digits, the country code aside: the label's national number ends the read one or the
/// other way round, seven digits or more), the time (`HH:MM` of the label), the address (fuzzy:
/// letters and digits alike at 80 % or more, 1 − edit distance / the longer's length).
public struct IdentityScore: Sendable, Equatable {
    public var phone = FieldScore()
    public var time = FieldScore()
    public var address = FieldScore()
    public private(set) var misses: [EvaluationMiss] = []

    public init() {}

    /// Fuzzy address match threshold.
    public static let addressSimilarity = 0.8

    public mutating func add(file: String, truth: GroundTruth, analysis: ReceiptAnalysis?) {
        let identity = analysis?.identity
        if !truth.phones.isEmpty {
            phone.scored += 1
            let got = identity?.phone?.value
            if let got, truth.phones.contains(where: { Self.samePhone($0, got) }) { phone.correct += 1 } else {
                misses.append(EvaluationMiss(file: file, field: .vendor, expected: "phone " + truth.phones.joined(separator: " / "), got: got ?? "null"))
            }
        }
        if let label = truth.time, let expected = TimeFinder.clock(in: label) {
            time.scored += 1
            if identity?.time?.value == expected { time.correct += 1 } else {
                misses.append(EvaluationMiss(file: file, field: .date, expected: "time " + expected, got: identity?.time?.value ?? "null"))
            }
        }
        if let label = truth.address {
            address.scored += 1
            let got = identity?.address?.value
            if let got, Self.similarity(label, got) >= Self.addressSimilarity { address.correct += 1 } else {
                misses.append(EvaluationMiss(file: file, field: .vendor, expected: "address " + label, got: got ?? "null"))
            }
        }
    }

    /// The same number, whether or not either gives its country: the label's digits without a
    /// leading trunk 0 end the read number's, or the read one's (without its country) end the label's.
    public static func samePhone(_ label: String, _ read: String) -> Bool {
        let a = String(label.filter { $0.isASCII && $0.isNumber }.drop { $0 == "0" })
        let b = read.filter { $0.isASCII && $0.isNumber }
        guard a.count >= 7, b.count >= 7 else { return false }
        return b.hasSuffix(a) || a.hasSuffix(String(b.suffix(a.count >= 9 ? 9 : 7)))
    }

    /// 1 − edit distance / the longer's length, on letters and digits, upper case.
    public static func similarity(_ a: String, _ b: String) -> Double {
        let x = Array(NameMatching.normalized(a)), y = Array(NameMatching.normalized(b))
        guard max(x.count, y.count) > 0 else { return 1 }
        return 1 - Double(LabelText.editDistance(x, y)) / Double(max(x.count, y.count))
    }

    public var line: String {
        func cell(_ name: String, _ score: FieldScore) -> String? {
            score.accuracy.map { String(format: "%@ %.1f%% (%d/%d)", name, $0 * 100, score.correct, score.scored) }
        }
        let cells = [cell("phone", phone), cell("time", time), cell("address", address)].compactMap { $0 }
        return cells.isEmpty ? "" : "  identity: " + cells.joined(separator: ", ")
    }

    public var json: JSONValue {
        func field(_ s: FieldScore) -> JSONValue { .object([("scored", .int(s.scored)), ("correct", .int(s.correct))]) }
        return .object([("phone", field(phone)), ("time", field(time)), ("address", field(address))])
    }
}
