import Foundation
import ReceiptModel

/// The rules' vendor as the one vendor candidate, with how it was read.
struct VendorEvidence {
    let vendor: VendorFinding
    let lines: [ReceiptLine]
    let lastIndex: Int
    let medianHeight: Double
    /// What a close-up of the name's rows read.
    let check: ReadCheck

    var letters: String { vendor.name.filter(\.isLetter) }
}

extension CandidateProposer {
    static let companyWords: PhraseList = ["SDN BHD", "BHD", "LTD", "LIMITED", "PLC", "INC", "LLC", "GMBH", "CORP",
                                           "COMPANY", "CO", "ENTERPRISE", "TRADING", "SRL", "SARL", "BV", "AG", "KG"]

    static let vendorFeatures: [Feature<VendorEvidence>] = [
        Feature("rulesConfidence") { $0.vendor.confidence },
        Feature("readConfidence") { $0.vendor.readConfidence / 100 },
        Feature("meanConfidence") { $0.vendor.meanConfidence / 100 },
        Feature("fromTop") { e in
            e.vendor.box.map { box in Double(e.lines.filter { ($0.box?.midY ?? Int.max) < box.y }.count) / Double(e.lastIndex) } ?? 0
        },
        Feature("relativeHeight") { e in
            e.vendor.box.map { e.medianHeight > 0 ? min(3, Double($0.height) / e.medianHeight) : 1 } ?? 1
        },
        Feature("letters") { min(1, Double($0.letters.count) / 30) },
        Feature("words") { min(1, Double($0.vendor.name.split(separator: " ").count) / 6) },
        Feature("digitShare") { Double($0.vendor.name.filter(\.isNumber).count) / Double(max(1, $0.vendor.name.count)) },
        Feature("lowercaseShare") { e in Double(e.letters.filter(\.isLowercase).count) / Double(max(1, e.letters.count)) },
        Feature("companyWord") { LabelText($0.vendor.name).hasAny(companyWords).feature },
        Feature("headerRows") { min(1, Double(max(1, Set($0.vendor.words.map(\.box.midY)).count)) / 3) },
        Feature("readAgain") { ($0.check == .same).feature },
        Feature("readOtherwise") { ($0.check == .other).feature },
    ]

    /// The rules' vendor as a candidate; `check` is what a close-up of the name's rows read.
    package static func vendor(_ reading: Reading, check: ReadCheck = .none) -> [Candidate] {
        guard let vendor = reading.vendor else { return [] }
        let lines = reading.document.lines
        let evidence = VendorEvidence(vendor: vendor, lines: lines, lastIndex: max(1, lines.last?.index ?? 1),
                                      medianHeight: medianHeight(lines), check: check)
        return [Candidate(field: .vendor, value: vendor.name, features: vendorFeatures.values(evidence))]
    }
}
