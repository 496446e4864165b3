import Foundation
import ReceiptModel

/// What a letter's or an e-mail's rows say its amounts are (issue 58): the amounts paid or due
/// now, and those for a period or an account (an annual premium, a balance brought forward).
struct LetterAmounts {
    /// The document reads as a letter or an e-mail (`LetterParts.isLetter`).
    let isLetter: Bool
    let paidNow: Set<Decimal>
    let period: Set<Decimal>

    init(_ reading: Reading) {
        isLetter = LetterParts.isLetter(reading.document)
        paidNow = Set(reading.rows.filter { $0.label.hasAny(LetterParts.paidNowWords) && !$0.label.hasAny(LetterParts.periodWords) }
            .flatMap { $0.amounts.map(\.value) })
        period = Set(reading.rows.filter { $0.label.hasAny(LetterParts.periodWords) }.flatMap { $0.amounts.map(\.value) })
    }
}

/// Who a letter or an e-mail is from and who it is to (issue 58).
struct LetterNames {
    /// The sender's name by its letters and digits (the From of an e-mail, a trading name stated).
    var sender: String?
    /// The rows of the addressee's block.
    var addressee: Set<Int> = []

    init() {}

    init(_ document: ReceiptDocument) {
        sender = (LetterParts.emailSender(document) ?? LetterParts.tradingName(document)).map(NameMatching.normalized)
        addressee = LetterParts.addresseeRows(document)
    }
}

/// The features of letters and e-mails: a block of their own, after each field's other features.
extension CandidateProposer {
    static let letterTotalFeatures: [Feature<TotalEvidence>] = [
        // In a letter, the amount paid or due now is its total.
        Feature("letter.paidNow") { ($0.receipt.letter.isLetter && $0.receipt.letter.paidNow.contains($0.value)).feature },
        // An annual premium, a balance brought forward: an amount for a period, not what is paid.
        Feature("letter.period") { $0.receipt.letter.period.contains($0.value).feature },
    ]

    static let letterVendorFeatures: [Feature<VendorEvidence>] = [
        Feature("letter.sender") { e in (e.letter.sender.map { $0 == e.key } ?? false).feature },
        // A person's name with a title, or a row of the addressee's block.
        Feature("letter.addressee") { e in
            (LetterParts.isPersonalName(e.vendor.name)
                || e.lines.contains { e.letter.addressee.contains($0.index) && NameMatching.normalized($0.text).contains(e.key) && !e.key.isEmpty })
                .feature
        },
    ]
}
