import Foundation
import ReceiptModel

/// The parts of a document that is not a till receipt (issue 58): an insurer's payment
/// confirmation, a council's or the DVLA's letter or e-mail, a garage's invoice, a fuel card's
/// statement. A person reads the sender (the letterhead, "… is a trading name of …", an e-mail's
/// From) as the vendor, never the addressee, and the amount paid or due today as the total, not an
/// annual premium or a balance brought forward. These rules hold for such documents whoever sends
/// them: none names a sender.
package enum LetterParts {
    /// Personal titles opening an addressee's name (`Mr Arjun Kowalski`, `MRS J SMITH`).
    static let titles: Set<String> = ["MR", "MRS", "MS", "MISS", "MX", "DR", "SIR", "MADAM", "HERR", "FRAU", "M", "MME", "SR", "SRA"]

    /// Rows opening an addressee block or naming the customer: `Invoice to`, `Bill to`, `Customer`.
    static let addresseeLabels: PhraseList = ["INVOICE TO", "BILL TO", "BILLED TO", "SOLD TO", "CUSTOMER", "CUSTOMER NAME",
                                              "DELIVER TO", "POLICYHOLDER", "POLICY HOLDER", "ACCOUNT HOLDER", "KEEPER",
                                              "REGISTERED KEEPER", "NAME", "TO"]

    /// A UK postcode, alone at the end of a row (`LS1 4AP`), or a US ZIP.
    private static let postcodeEnd = Pattern(#"\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\s*$|\b\d{5}(-\d{4})?\s*$"#, caseInsensitive: false)

    /// `Mr Arjun Kowalski`, `MRS J. SMITH`, `Dr. A Patel`: a title and one to four name words.
    private static let personalName = Pattern(#"^(?:(?:Dear|To)\s+)?(?:Mr|Mrs|Ms|Miss|Mx|Dr|Sir|Herr|Frau|Mme)\.?\s+[A-Z][A-Za-z'’\-.]*(?:\s+[A-Z][A-Za-z'’\-.]*){0,3}\s*,?$"#,
                                              caseInsensitive: true)

    /// Whether a row is a person's name with a title (an addressee, a policyholder): its last word
    /// a surname of two letters or more (`MR D.I.Y.`, a shop, is no person).
    package static func isPersonalName(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: " ,"))
        guard let last = trimmed.split(separator: " ").last, last.filter(\.isLetter).count >= 2, !last.contains(".") else { return false }
        return personalName.matches(trimmed)
    }

    /// The indices of the rows of the addressee block: a person's name with a title, and the
    /// address rows under it down to the postcode (at most five); a row labelled `Invoice to`,
    /// `Customer` … and the rows it names.
    package static func addresseeRows(_ document: ReceiptDocument) -> Set<Int> {
        addressees(document).rows
    }

    /// The addressee's rows, and whether a person's name with a title opens one of the blocks (a
    /// letter's addressee, not an invoice's customer).
    static func addressees(_ document: ReceiptDocument) -> (rows: Set<Int>, personal: Bool) {
        var out = Set<Int>()
        var personal = false
        let lines = document.lines
        let signals = letterSignals(document)
        for (k, line) in lines.enumerated() {
            let text = line.text.trimmingCharacters(in: .whitespaces)
            let label = LabelText(text)
            let opensBlock = isPersonalName(text)
                || label.words.count <= 3 && label.hasAny(addresseeLabels) && text.hasSuffix(":")
            // "Dear Mr Kowalski,": the addressee again, over the letter's body.
            if text.uppercased().hasPrefix("DEAR") {
                if opensBlock { out.insert(line.index) }
                continue
            }
            guard opensBlock else { continue }
            var block: Set<Int> = [line.index]
            var below = lines.dropFirst(k + 1).prefix(5)
            // A label's row names the customer on the row under it, with or without a title.
            let labelled = !isPersonalName(text)
            if labelled, let name = below.first {
                block.insert(name.index)
                below = below.dropFirst()
            }
            // The address under the name: short rows down to its postcode (all of them when one
            // ends them; else those with a number or an address word).
            var rows: [ReceiptLine] = []
            var ended = false
            for next in below {
                let words = next.text.split(separator: " ").count
                guard words <= 7, !next.text.hasSuffix(":"), !next.text.contains("£"), !next.text.contains("$") else { break }
                rows.append(next)
                if postcodeEnd.matches(next.upper.trimmingCharacters(in: .whitespaces)) { ended = true; break }
            }
            for row in rows where ended || row.text.contains(where: \.isNumber) || VendorFinder.isAddress(row.text) {
                block.insert(row.index)
            }
            // A name with a title alone is no addressee on a till receipt: its postcode, a label, or
            // the document's salutation, closing or e-mail headers make it one.
            if ended || labelled || signals {
                out.formUnion(block)
                if !labelled { personal = true }
            }
        }
        out.formUnion(untitledBlock(lines))
        return (out, personal)
    }

    /// An addressee without a title (`Northern Cabs Ltd` / `5 Station Yard` / `Leeds LS11 5QR`):
    /// a name of no digits over one to three short address rows, the last ending in a postcode,
    /// below a row that ends in a postcode of its own (the sender's address above the addressee's,
    /// as a letter or a statement prints them; a till receipt prints one address).
    static func untitledBlock(_ lines: [ReceiptLine]) -> Set<Int> {
        guard let first = lines.firstIndex(where: { postcodeEnd.matches($0.upper.trimmingCharacters(in: .whitespaces)) }) else { return [] }
        for k in lines.indices where k > first + 0 && k >= 2 {
            let name = lines[k]
            guard !name.text.contains(where: \.isNumber), name.text.split(separator: " ").count <= 6,
                  name.text.filter(\.isLetter).count >= 4, !name.text.hasSuffix(":") else { continue }
            for n in 1...3 where k + n < lines.count {
                let rows = lines[(k + 1)...(k + n)]
                guard rows.allSatisfy({ $0.text.split(separator: " ").count <= 7 && !$0.text.contains("£") && !$0.text.contains("$") })
                else { break }
                if postcodeEnd.matches(lines[k + n].upper.trimmingCharacters(in: .whitespaces)) {
                    return Set(lines[k...(k + n)].map(\.index))
                }
            }
        }
        return []
    }

    /// E-mail headers (three of From, To, Subject, Sent, Date), a salutation (`Dear …`) or a
    /// closing (`Yours sincerely`, `Kind regards`).
    static func letterSignals(_ document: ReceiptDocument) -> Bool {
        var headers = 0
        for line in document.lines {
            let upper = line.upper.trimmingCharacters(in: .whitespaces)
            if ["FROM:", "TO:", "SUBJECT:", "SENT:", "DATE:", "REPLY-TO:"].contains(where: { upper.hasPrefix($0) }) { headers += 1 }
            if upper.hasPrefix("DEAR ") || upper.hasPrefix("YOURS SINCERELY") || upper.hasPrefix("YOURS FAITHFULLY")
                || upper.hasPrefix("KIND REGARDS") || upper.hasPrefix("BEST REGARDS") { return true }
        }
        return headers >= 3
    }

    /// Whether the document reads as a letter or an e-mail rather than a till receipt: its
    /// salutation, closing or e-mail headers (`letterSignals`), or an addressee's name with a title
    /// over an address (an invoice's `Bill to:` block alone does not make it one).
    package static func isLetter(_ document: ReceiptDocument) -> Bool {
        letterSignals(document) || addressees(document).personal
    }

    // MARK: - The sender

    /// The sender an e-mail names on its From row (`From: Hastings Direct <noreply@…>`): the name
    /// before the address, else the address's domain (`vehicle.tax@notifications.dvla.gov.uk` →
    /// DVLA); not a mail provider's (a receipt forwarded from a personal address: the last From
    /// that is not is the original sender's).
    package static func emailSender(_ document: ReceiptDocument) -> String? {
        var found: String?
        for line in document.lines {
            guard let m = fromRow.firstMatch(in: line.text), let rest = m[1] else { continue }
            let address = addressPattern.firstMatch(in: rest)?[0]
            let domain = address.flatMap { NamesElsewhere.domains(in: $0).first }
            if address != nil && domain == nil { continue }       // a personal mailbox
            var name = rest
            if let address, let range = rest.range(of: address) { name = String(rest[..<range.lowerBound]) }
            name = name.trimmingCharacters(in: CharacterSet(charactersIn: " <>\"'“”,:"))
            let label = LabelText(name)
            if name.filter(\.isLetter).count >= 3, !label.hasAny(["NOREPLY", "NO REPLY", "DO NOT REPLY", "DONOTREPLY"]) {
                found = name
            } else if let domain {
                found = domain.count <= 5 ? domain.uppercased() : domain.capitalized
            }
        }
        return found
    }

    private static let fromRow = Pattern(#"^\s*From\s*:\s*(.+)$"#)
    private static let addressPattern = Pattern(#"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}"#)

    /// "Hastings Direct is a trading name of Advantage Insurance Company Limited": the trading
    /// name, the words before the phrase on its row (the sentence's subject).
    package static func tradingName(_ document: ReceiptDocument) -> String? {
        for line in document.lines {
            let upper = line.upper
            guard let range = tradingPhrases.lazy.compactMap({ upper.range(of: $0) }).first else { continue }
            let offset = upper.distance(from: upper.startIndex, to: range.lowerBound)
            var subject = String(line.text.prefix(offset))
            // The sentence's own start: after the last stop before it.
            if let stop = subject.lastIndex(where: { ".;:".contains($0) }) { subject = String(subject[subject.index(after: stop)...]) }
            subject = subject.trimmingCharacters(in: CharacterSet(charactersIn: " ,-–"))
            let words = subject.split(separator: " ")
            guard (1...5).contains(words.count), subject.filter(\.isLetter).count >= 3,
                  words.first?.first?.isUppercase == true || words.first?.first?.isNumber == true else { continue }
            return subject
        }
        return nil
    }

    private static let tradingPhrases = [" IS A TRADING NAME OF ", " IS A TRADING STYLE OF ", " ARE TRADING NAMES OF ",
                                         " IS A TRADING NAME FOR ", " IS THE TRADING NAME OF "]

    // MARK: - The amount paid today

    /// Labels of the amount paid or due now, in a letter or on an invoice: what the document is a
    /// receipt for.
    package static let paidNowWords: PhraseList = [
        "AMOUNT PAID", "PAID TODAY", "PAYMENT TAKEN", "AMOUNT TAKEN", "PAYMENT TODAY", "TODAY S PAYMENT", "DUE TODAY",
        "PAYABLE TODAY", "AMOUNT CHARGED", "TOTAL CHARGED", "YOU PAID", "PAYMENT RECEIVED", "TOTAL PAID", "AMOUNT DEBITED",
        "DEPOSIT PAID", "DEPOSIT", "FIRST INSTALMENT", "FIRST INSTALLMENT", "INSTALMENT PAID", "INSTALLMENT PAID",
        "PAYMENT AMOUNT", "AMOUNT NOW DUE", "AMOUNT DUE NOW", "NOW DUE", "TO PAY NOW", "PAY NOW", "AMOUNT RECEIVED",
    ]

    /// Labels of amounts for a period or an account, not what is paid now: an annual premium, a
    /// balance brought forward, what a credit agreement costs in all.
    package static let periodWords: PhraseList = [
        "ANNUAL PREMIUM", "ANNUAL COST", "ANNUAL", "YEARLY", "PER YEAR", "PER ANNUM", "BALANCE BROUGHT FORWARD", "BROUGHT FORWARD",
        "BALANCE B F", "PREVIOUS BALANCE", "OPENING BALANCE", "REMAINING BALANCE", "BALANCE REMAINING", "OUTSTANDING BALANCE",
        "CREDIT LIMIT", "TOTAL COST OF CREDIT", "TOTAL AMOUNT PAYABLE", "TOTAL AMOUNT REPAYABLE", "REMAINING INSTALMENTS",
        "REMAINING INSTALLMENTS", "MONTHLY INSTALMENTS", "MONTHLY INSTALLMENTS", "FULL PREMIUM", "TOTAL PREMIUM",
        "PREMIUM FOR THE YEAR", "CARRIED FORWARD", "BALANCE C F",
    ]

    /// Labels of a part payment: named as itself among the line items.
    package static let partPaymentWords: PhraseList = [
        "DEPOSIT", "INSTALMENT", "INSTALLMENT", "FIRST PAYMENT", "MONTHLY PAYMENT", "PART PAYMENT", "DOWN PAYMENT",
    ]

    /// The amount paid or due now in a letter: the amount of the first row labelled so (one amount
    /// on it), when no row labels the same amount as for a period.
    package static func paidNow(_ rows: [AmountLine]) -> (value: Decimal, row: AmountLine)? {
        let period = Set(rows.filter { $0.label.hasAny(periodWords) }.flatMap { $0.amounts.map(\.value) })
        for row in rows where row.label.hasAny(paidNowWords) && !row.label.hasAny(periodWords) && row.role != .change {
            guard let amount = row.amounts.last?.value, amount > 0, row.amounts.count <= 2, !period.contains(amount) else { continue }
            return (amount, row)
        }
        return nil
    }
}
