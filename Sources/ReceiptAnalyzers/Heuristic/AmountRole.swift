import Foundation
import ReceiptModel

/// What an amount on a receipt row stands for, judged from the row's label.
package enum AmountRole: Sendable, Hashable {
    /// The amount payable; `strength` 1–12 (GRAND TOTAL 12, TOTAL 7, AMOUNT 3).
    case total(strength: Int)
    case subtotal
    case tax
    case quantity
    case discount
    case tip
    case change
    case cash
    case card
    case rounding
    /// No label that matters.
    case other

    package var isPayment: Bool { self == .cash || self == .card }

    package var totalStrength: Int {
        if case let .total(s) = self { return s }
        return 0
    }

    package static let taxWords: PhraseList = ["TAX", "VAT", "GST", "SST", "HST", "PST", "QST", "MWST", "UST", "TVA", "IVA", "BTW",
                           "MOMS", "IMPUESTO", "IMPUESTOS", "STEUER", "SALESTAX", "IGV", "PPN", "TAXES", "IMP"]
    package static let inclusiveWords: PhraseList = ["INCL", "INCLUSIVE", "INCLUDING", "INCLUDES", "INCLUDED", "INC", "INKL", "ENTHALTEN",
                                 "INCLUS", "INCLUSO", "INCLUDE", "TTC"]
    package static let strongTotals: PhraseList = [
        "GRAND TOTAL", "TOTAL DUE", "AMOUNT DUE", "AMT DUE", "BALANCE DUE", "BAL DUE", "TOTAL PAYABLE",
        "AMOUNT PAYABLE", "NETT TOTAL", "NET TOTAL", "TOTAL ROUNDED", "ROUNDED TOTAL", "TOTAL AMOUNT",
        "TOTAL AMT", "TOTAL TTC", "TO PAY", "AMOUNT TO PAY", "PLEASE PAY", "SUMME", "GESAMT", "GESAMTBETRAG",
        "JUMLAH", "JUMLAH BESAR", "TOTAL SALES", "TOTAL INCL", "TOTAL INCLUSIVE", "TOTAL INCLUDING", "TOTAAL",
        "TE BETALEN", "TOTALE", "IMPORTE", "MONTANT", "A PAYER", "BETRAG", "ZU ZAHLEN", "TOTAL A PAGAR",
        "TOTAL EUROS", "TOTAL EUR", "TOTAL RM", "TOTAL USD", "TOTAL GBP", "NETT AMOUNT", "NETT", "TOTAL NETT",
        "PAYABLE", "GRANDTOTAL", "TOTAL TO PAY", "RECHNUNGSBETRAG", "ENDBETRAG", "BRUTTOBETRAG", "GESAMTSUMME", "TOTAL AFTER", "AFTER ROUNDING", "AFTER ADJ", "INVOICE TOTAL", "BILL TOTAL", "TOTAL BILL", "AMOUNT TENDERED DUE",
    ]
    package static let changeWords: PhraseList = ["CHANGE", "CHG", "KEMBALI", "BAKI", "CHANGE DUE", "RUCKGELD", "RENDU", "CAMBIO",
                              "WISSELGELD", "VUELTO", "CHANGE AMOUNT"]
    package static let roundingWords: PhraseList = ["ROUNDING", "ROUND", "RND", "ROUNDING ADJ", "ADJUSTMENT", "ADJ", "PENGENAPAN",
                                "ROUNDING ADJUSTMENT", "ROUNDED ADJ"]
    package static let subtotalWords: PhraseList = ["SUBTOTAL", "SUB TOTAL", "SUB TTL", "SUBTTL", "SUB TOT", "SUBTOT", "TOTAL EXCL",
                                "EXCLUDING", "EXCL", "EXCLUSIVE", "BEFORE TAX", "PRE TAX", "NETTO", "TOTAL EXCLUDING",
                                "ZWISCHENSUMME", "SOUS TOTAL", "NET SALES", "NETT SALES", "TOTAL HT", "BASE",
                                "TOTAL BEFORE", "AMOUNT BEFORE", "SUBTL", "NETTOBETRAG", "NETTOSUMME"]
    package static let quantityWords: PhraseList = ["QTY", "QUANTITY", "ITEMS", "ITEM", "ITEM S", "PCS", "UNITS", "NO OF", "COUNT",
                                "ARTICLES", "ARTIKEL", "TOTAL QTY", "ITEMS SOLD", "ITEM COUNT", "ITEMCOUNT"]
    package static let discountWords: PhraseList = ["DISCOUNT", "DISC", "SAVING", "SAVINGS", "SAVED", "YOU SAVE", "VOUCHER", "COUPON",
                                "PROMO", "REBATE", "RABATT", "REMISE", "DESCUENTO", "MEMBER PRICE"]
    package static let tipWords: PhraseList = ["TIP", "TIPS", "GRATUITY", "SERVICE CHARGE", "SVC CHG", "SERVICE CHG"]
    package static let cashWords: PhraseList = ["CASH", "TENDER", "TENDERED", "PAID", "PAYMENT", "AMOUNT PAID", "AMOUNT TENDERED",
                            "TUNAI", "BAR", "PAY", "PAID AMOUNT", "PREPAY", "PRE PAY", "ESPECES", "EFECTIVO", "CONTADO", "RECEIVED", "CUSTOMER S PAYMENT"]
    package static let cardWords: PhraseList = ["VISA", "MASTERCARD", "MASTER", "MC", "AMEX", "AMERICAN EXPRESS", "DEBIT", "CREDIT",
                            "CARD", "EFTPOS", "DISCOVER", "CC", "PAYPAL", "NETS", "MAESTRO", "CHARGE", "EC",
                            "KARTE", "CARTE", "TARJETA", "CB", "VPAY", "CONTACTLESS", "APPLE PAY", "GOOGLE PAY",
                            "JCB", "UNIONPAY", "DINERS", "AMEX CARD", "CREDIT CARD", "DEBIT CARD", "GIFT CARD"]
    package static let totalWords: PhraseList = ["TOTAL", "TTL", "TOT", "TOTL"]
    package static let weakTotalWords: PhraseList = ["AMOUNT", "AMT", "DUE", "BALANCE", "SUM", "NET"]

    /// The role of a row's amounts, from its label.
    package static func classify(_ label: LabelText) -> AmountRole {
        // "SVC CHG" is a service charge, not change ("CHG" abbreviates both).
        if label.hasAny(changeWords) && !label.hasAny(["SVC CHG", "SERVICE CHG"]) { return .change }
        let hasTotalWord = label.hasAny(totalWords) || label.has("GRANDTOTAL")
        if label.hasAny(roundingWords) && !label.hasAny(["TOTAL ROUNDED", "ROUNDED TOTAL", "GRAND TOTAL"]) {
            if !(hasTotalWord && label.has("AFTER")) { return .rounding }
        }
        if label.hasAny(subtotalWords) && !label.has("GRAND TOTAL") { return .subtotal }
        if label.hasAny(quantityWords) && !label.hasAny(["TOTAL AMOUNT", "AMOUNT DUE", "GRAND TOTAL"]) { return .quantity }
        if label.hasAny(discountWords) { return .discount }
        if label.hasAny(tipWords) && !label.hasAny(["TOTAL INCL", "GRAND TOTAL"]) { return .tip }
        // "INCLUSIVE" misread ("INCHICIVE", "INCLUSTVE") still opens with INC.
        let inclusive = label.hasAny(inclusiveWords) || label.words.contains { $0.count >= 7 && $0.hasPrefix("INC") }
        if inclusive && label.hasAny(["SALES", "AMOUNT", "AMT", "PAYABLE"]) && !hasTotalWord { return .total(strength: 7) }
        if label.hasAny(taxWords) || label.compact.hasSuffix("TAX") {
            if !(hasTotalWord && inclusive) {
                if label.hasAny(["TOTAL TAX", "TAX TOTAL", "TOTAL GST", "GST TOTAL", "TOTAL VAT", "VAT TOTAL",
                                 "TOTAL SST", "SST TOTAL"]) || !hasTotalWord || label.has("GST SUMMARY") {
                    return .tax
                }
                if !inclusive && !label.hasAny(strongTotals) { return .tax }
            }
        }
        if label.hasAny(strongTotals) { return .total(strength: 12) }
        if hasTotalWord { return .total(strength: 7) }
        if label.hasAny(cardWords) { return .card }
        if label.hasAny(cashWords) { return .cash }
        if label.hasAny(weakTotalWords) { return .total(strength: 3) }
        return .other
    }
}

/// A receipt row with its amounts and the role they play.
package struct AmountLine: Sendable {
    package var line: ReceiptLine
    package var amounts: [AmountToken]
    package var label: LabelText
    package var role: AmountRole
    /// True when the amounts were taken from the next row (label and amount printed on two rows).
    package var borrowed = false
    /// A percentage printed on the row (a tax rate), if any.
    package var rate: Decimal?

    /// Rows printing a number that is not money: "VAT Reg 402 7736 15", "GST No 0021 3920".
    package static let registrationWords: PhraseList = ["REG", "NO", "ID", "TEL", "NUMBER", "NR", "INVOICE", "REGISTRATION", "ACCOUNT", "ACC",
                                                   "IDNR", "STNR", "UID", "TIN", "GSTIN", "ABN", "REGNO", "VATNO", "STEUERNR"]
    private static let ratePattern = Pattern(#"(\d{1,2}(?:[.,]\d{1,3})?)\s?%"#)
    private static let bareNumber = Pattern(#"^\d{3,6}$"#)
    private static let wholeNumber = Pattern(#"^[1-9]\d{1,8}$"#)

    /// "starts 1 May 2025", "gültig bis Dez. 2026": a year after a month name is no amount.
    private static func hasMonthAndYear(_ text: String) -> Bool {
        let words = text.split(whereSeparator: \.isWhitespace).map { $0.trimmingCharacters(in: .punctuationCharacters) }
        return zip(words, words.dropFirst()).contains { month, year in
            year.count == 4 && year.allSatisfy(\.isASCIIDigit) && (1900...2099).contains(Int(year) ?? 0)
                && DateFinder.month(month) != nil
        }
    }
    private static let colonDecimal = Pattern(#"^[$£€]?(\d{1,4}):(\d{2})$"#)
    private static let oneDecimal = Pattern(#"^[^\d]{0,3}(\d{1,5}[.,]\d)[^\d%]{0,2}$"#)

    /// The row's amounts, each row's label deciding their role. A label row without an amount
    /// takes the amounts of the next row when that row has no label of its own.
    /// - Parameter wholeUnits: the receipt's currency has no minor units (`AmountParser`): its
    ///   amounts are whole numbers, and a bare number on a total's row is whole, not cents.
    package static func build(_ document: ReceiptDocument, wholeUnits: Bool = false) -> [AmountLine] {
        var result: [AmountLine] = []
        for line in document.lines.flatMap({ splitTotalAndTax($0, wholeUnits: wholeUnits) }) {
            let amounts = AmountParser.amounts(in: line.text, wholeUnits: wholeUnits)
            var label = LabelText(labelPart(of: line.text, without: amounts))
            let role = AmountRole.classify(label)
            var found = amounts
            if found.isEmpty, !wholeUnits, role.totalStrength >= 7 || role == .subtotal || role.isPayment || role == .tax,
               !label.hasAny(registrationWords), role != .card, !line.text.contains("*"),
               !hasMonthAndYear(line.text) {
                // "TOTAL 1000": the decimal point was lost; read the last bare number as cents.
                let tokens = line.text.split(whereSeparator: \.isWhitespace).map(String.init)
                if tokens.count >= 2, let last = tokens.last, last.count == 2, last.allSatisfy(\.isASCIIDigit),
                   let whole = tokens.dropLast().last.map(dropCurrencyPrefix), (1...4).contains(whole.count), whole.allSatisfy(\.isASCIIDigit),
                   let value = Money.parse(whole + "." + last) {
                    // "TOTAL 46 55": the decimal point was read as a space.
                    found = [AmountToken(value: value, tokenIndex: tokens.count - 2, tokenCount: 2, repaired: true)]
                    label = LabelText(labelPart(of: line.text, without: found))
                } else if let i = tokens.lastIndex(where: { bareNumber.matches($0) }), let cents = Decimal(string: tokens[i]) {
                    found = [AmountToken(value: cents / 100, tokenIndex: i, repaired: true)]
                    label = LabelText(labelPart(of: line.text, without: found))
                } else if let i = tokens.lastIndex(where: { colonDecimal.matches($0) }),
                          let m = colonDecimal.firstMatch(in: tokens[i]), let whole = m[1].flatMap({ Int($0) }),
                          let cents = m[2].flatMap({ Int($0) }), whole > 23 || cents > 59,
                          let value = Money.parse("\(whole).\(m[2]!)") {
                    // "Total; 37:71": a decimal point read as a colon (no time has 71 minutes).
                    found = [AmountToken(value: value, tokenIndex: i, repaired: true)]
                    label = LabelText(labelPart(of: line.text, without: found))
                } else if let i = tokens.lastIndex(where: { oneDecimal.matches($0) }),
                          let m = oneDecimal.firstMatch(in: tokens[i]), let value = m[1].flatMap(Money.parse) {
                    // "18.8\"": the last decimal was lost or misread.
                    found = [AmountToken(value: value, tokenIndex: i, repaired: true)]
                    label = LabelText(labelPart(of: line.text, without: found))
                }
            }
            if found.isEmpty, wholeUnits, role.totalStrength >= 7 || role == .subtotal || role.isPayment || role == .tax,
               !label.hasAny(registrationWords), !hasMonthAndYear(line.text) {
                // "TOTAL 20000": with no minor units, a bare number on a total's row is the amount.
                let tokens = line.text.split(whereSeparator: \.isWhitespace).map(String.init)
                if let i = tokens.lastIndex(where: { wholeNumber.matches($0) }), let value = Decimal(string: tokens[i]) {
                    found = [AmountToken(value: value, tokenIndex: i)]
                    label = LabelText(labelPart(of: line.text, without: found))
                }
            }
            let rate = line.text.contains("%" as Character) ? ratePattern.firstMatch(in: line.text).flatMap { $0[1] }.flatMap(Money.parse) : nil
            result.append(AmountLine(line: line, amounts: found, label: label, role: role, rate: rate))
        }
        // A tax summary ("GST Summary  Amount  Tax" / "SR 6%  43.90  2.64" / "Total  43.90  2.64"):
        // its TOTAL row sums the tax table, it is not the amount payable.
        var summaryRows = 0
        for i in result.indices {
            if result[i].label.has("SUMMARY") && (result[i].label.hasAny(AmountRole.taxWords) || result[i].label.has("AMOUNT")) {
                summaryRows = 5
                continue
            }
            guard summaryRows > 0 else { continue }
            summaryRows -= 1
            if result[i].role.totalStrength >= 12 || result[i].role == .change || result[i].role.isPayment { summaryRows = 0; continue }
            if result[i].role.totalStrength > 0, result[i].amounts.count >= 2,
               result[i].label.words.filter({ $0.count >= 2 }).count <= 2 {
                result[i].role = .tax
            }
        }
        for i in result.indices.dropLast() where result[i].amounts.isEmpty && result[i].role != .other
            && !result[i].label.has("SUMMARY") {
            let next = result[i + 1]
            let letters = next.label.words.filter { $0.count >= 3 && $0.contains(where: \.isLetter) }
            if !next.amounts.isEmpty && (letters.isEmpty || next.role == .other && next.amounts.count == 1 && letters.count <= 1) {
                result[i].amounts = next.amounts
                result[i].borrowed = true
            }
        }
        return result
    }

    /// Currency marks printed after an amount (`62,59 EUR`).
    private static let trailingCurrency: Set<String> = ["EUR", "GBP", "USD", "CHF", "€", "£", "$", "RM"]

    /// "Total £28.29 incl. VAT £4.72", "TOTAL TTC 62,59 EUR dont TVA 10,43 EUR": a total's row that
    /// names the tax after the total's amount prints two rows on one, the total and then the tax
    /// included in it. Split there (both halves keep the row's index), so that each amount takes its
    /// own label's role. `TOTAL INCL. GST 6% 9.00`, the tax named before the one amount, stays a row.
    static func splitTotalAndTax(_ line: ReceiptLine, wholeUnits: Bool) -> [ReceiptLine] {
        let amounts = AmountParser.amounts(in: line.text, wholeUnits: wholeUnits)
        guard amounts.count >= 2, amounts[0].tokenIndex > 0 else { return [line] }
        let tokens = line.text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard AmountRole.classify(LabelText(tokens[..<amounts[0].tokenIndex].joined(separator: " "))).totalStrength >= 7
        else { return [line] }
        var cut = amounts[0].tokenIndex + amounts[0].tokenCount
        while cut < amounts[1].tokenIndex, trailingCurrency.contains(tokens[cut].uppercased()) { cut += 1 }
        guard cut < amounts[1].tokenIndex,
              LabelText(tokens[cut..<amounts[1].tokenIndex].joined(separator: " ")).hasAny(AmountRole.taxWords) else { return [line] }
        func part(_ range: Range<Int>) -> ReceiptLine {
            let words = line.words.count == tokens.count ? Array(line.words[range]) : []
            let box = words.dropFirst().reduce(words.first?.box) { $0?.union($1.box) } ?? line.box
            return ReceiptLine(index: line.index, text: tokens[range].joined(separator: " "), words: words,
                               confidence: line.confidence, box: box)
        }
        return [part(0..<cut), part(cut..<tokens.count)]
    }

    /// `RM8` → `8`, `$12` → `12` (for amounts whose decimal point was read as a space).
    package static func dropCurrencyPrefix(_ token: String) -> String {
        for mark in ["RM", "$", "£", "€", "S$", "US$"] where token.uppercased().hasPrefix(mark) && token.count > mark.count {
            return String(token.dropFirst(mark.count))
        }
        return token
    }

    /// The text of the row without its amount tokens.
    package static func labelPart(of text: String, without amounts: [AmountToken]) -> String {
        guard !amounts.isEmpty else { return text }
        let tokens = text.split(whereSeparator: \.isWhitespace)
        var skip = Set<Int>()
        for a in amounts { for k in a.tokenIndex..<(a.tokenIndex + a.tokenCount) { skip.insert(k) } }
        return tokens.enumerated().filter { !skip.contains($0.offset) }.map { String($0.element) }.joined(separator: " ")
    }
}
