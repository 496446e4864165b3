import Foundation
import ReceiptModel

/// One name for the vendor, with how and where it was read.
struct VendorEvidence {
    enum Source: Equatable {
        /// The rules' vendor (`VendorFinder.find`: the best header row with the rows that belong to it).
        case pick
        /// Another header row that may be the name, `rank`-th best by the rules' score (0 the best).
        case header(rank: Int)
        /// A name the receipt gives elsewhere (`NamesElsewhere`).
        case elsewhere(NameElsewhere.Kind)
    }

    let vendor: VendorFinding
    let source: Source
    let lines: [ReceiptLine]
    let lastIndex: Int
    let medianHeight: Double
    /// What a close-up of the name's rows read (the rules' pick only).
    let check: ReadCheck
    /// Every name the receipt gives its shop outside the header.
    let elsewhere: [NameElsewhere]
    /// The other names proposed from the same reading, by their letters and digits.
    let others: [String]
    /// Who sent the document and who it is addressed to, when it is a letter or an e-mail.
    var letter = LetterNames()

    var letters: String { vendor.name.filter(\.isLetter) }
    var key: String { NameMatching.normalized(vendor.name) }

    /// Another name of the reading is part of this one ("ARBOR CAR WASH RD" holds "ARBOR CAR WASH"):
    /// this one may carry more than the name.
    var holdsAnother: Bool { others.contains { $0.count >= 4 && $0 != key && key.contains($0) } }
    /// This name is part of another of the reading's ("FOODTOWN" in "FOODTOWN CNR COLERIDGE").
    var heldByAnother: Bool { key.count >= 4 && others.contains { $0 != key && $0.contains(key) } }
    var isPick: Bool { source == .pick }

    /// Another source of `kind` names the same shop: the same letters and digits, or one holding
    /// the other (of four or more).
    func agrees(with kind: NameElsewhere.Kind) -> Bool {
        guard source != .elsewhere(kind) else { return false }
        let key = NameMatching.normalized(vendor.name)
        return elsewhere.contains { other in
            other.kind == kind && (other.key == key
                || min(other.key.count, key.count) >= 4 && (other.key.contains(key) || key.contains(other.key)))
        }
    }
}

extension CandidateProposer {
    static let companyWords: PhraseList = ["SDN BHD", "BHD", "LTD", "LIMITED", "PLC", "INC", "LLC", "GMBH", "CORP",
                                           "COMPANY", "CO", "ENTERPRISE", "TRADING", "SRL", "SARL", "BV", "AG", "KG"]

    static let vendorFeatures: [Feature<VendorEvidence>] = [
        Feature("rulesPick") { $0.isPick.feature },
        Feature("rulesConfidence") { $0.source.kind == nil ? $0.vendor.confidence : 0 },
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
        // 1 for the pick and the best header row, 1/2 for the next …; 0 for a name from elsewhere.
        Feature("headerRank") { e in
            switch e.source {
            case .pick: 1
            case .header(let rank): 1 / Double(1 + rank)
            case .elsewhere: 0
            }
        },
        Feature("fromWeb") { ($0.source == .elsewhere(.web)).feature },
        Feature("fromSignOff") { ($0.source == .elsewhere(.signOff)).feature },
        Feature("fromMerchant") { ($0.source == .elsewhere(.merchant)).feature },
        Feature("agreesWeb") { $0.agrees(with: .web).feature },
        Feature("agreesSignOff") { $0.agrees(with: .signOff).feature },
        Feature("agreesMerchant") { $0.agrees(with: .merchant).feature },
        Feature("holdsAnother") { $0.holdsAnother.feature },
        Feature("heldByAnother") { $0.heldByAnother.feature },
        Feature("postcode") { e in postcode.matches(e.vendor.name).feature },
        Feature("readAgain") { ($0.check == .same).feature },
        Feature("readOtherwise") { ($0.check == .other).feature },
    ] + letterVendorFeatures

    /// A US ZIP code, a UK postcode, a four- or five-digit European postcode before a word: a city
    /// line ("1000 Bruxelles", "Boston MA 02110"), not a name.
    static let postcode = Pattern(#"\b\d{5}(-\d{4})?\b|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b|^\s*\d{4,5}\s+[A-Za-z]"#)

    /// The header rows read as more than this many names are not proposed (the best by the rules' score are).
    static let headerNamesProposed = 6

    /// The names for the vendor, each once (by its letters and digits): the rules' vendor first
    /// (`check`: what a close-up of its rows read), then the other header rows that may be the
    /// name, best first, then the names the receipt gives elsewhere (its web address, its card
    /// slip's merchant line, its thanks at the foot).
    package static func vendor(_ reading: Reading, check: ReadCheck = .none) -> [Candidate] {
        let document = reading.document
        let lines = document.lines
        let elsewhere = NamesElsewhere.find(document)
        var names: [(VendorFinding, VendorEvidence.Source)] = []
        if let pick = reading.vendor { names.append((pick, .pick)) }
        for (finding, rank) in VendorFinder.headerNames(document, rows: reading.rows).prefix(headerNamesProposed) {
            names.append((finding, .header(rank: rank)))
        }
        for name in elsewhere {
            names.append((VendorFinding(name: name.name, confidence: 0, readConfidence: VendorFinder.weakestWord(name.line),
                                        meanConfidence: name.line.confidence, box: name.line.box, words: name.line.words),
                          .elsewhere(name.kind)))
        }
        let medianHeight = medianHeight(lines), lastIndex = max(1, lines.last?.index ?? 1)
        var seen = Set<String>()
        let unique = names.filter { finding, _ in
            let key = NameMatching.normalized(finding.name)
            return !key.isEmpty && seen.insert(key).inserted
        }
        let keys = unique.map { NameMatching.normalized($0.0.name) }
        let letter = LetterNames(document)
        return unique.map { finding, source in
            var evidence = VendorEvidence(vendor: finding, source: source, lines: lines, lastIndex: lastIndex, medianHeight: medianHeight,
                                          check: source == .pick ? check : .none, elsewhere: elsewhere, others: keys)
            evidence.letter = letter
            return Candidate(field: .vendor, value: finding.name, features: vendorFeatures.values(evidence))
        }
    }
}

extension VendorEvidence.Source {
    var kind: NameElsewhere.Kind? {
        if case .elsewhere(let kind) = self { return kind }
        return nil
    }
}
