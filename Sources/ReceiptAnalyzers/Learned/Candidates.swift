import Foundation
import ReceiptModel

/// A field the learned model chooses or scores.
package enum LearnedField: String, Sendable, CaseIterable {
    case total, date, vendor, tax
}

/// One value a rule proposes for a field, with what the model knows about it. `features` are in
/// the order of the field's `FeatureNames` (the trained parameters name them, so a mismatch is
/// caught when the model is loaded).
package struct Candidate: Sendable, Equatable {
    package var field: LearnedField
    /// `12.30` for an amount, `2024-03-12` for a date, the name for a vendor.
    package var value: String
    package var features: [Double]
}

/// The rules' proposals for a receipt: every amount for the total, every date for the date, the
/// rules' vendor for the vendor (scored, not chosen among others: other header rows are rarely
/// the name where the rules' pick is not), each with features.
///
/// Features describe evidence a person would weigh and that holds across shops and countries: the
/// row's label class, where the row is, how the value relates to the other amounts (subtotal +
/// tax, cash − change, items' sum, repeats), how clearly it was read, and whether the rules picked
/// it. Nothing names a shop, a file or a data set.
package enum CandidateProposer {
    package static let totalFeatures = [
        "rulesPick", "rulesConfidence", "rulesCrossChecked", "rulesLabelStrength", "labelStrength",
        "onTotalRow", "onSubtotalRow", "onTaxRow", "onCashRow", "onCardRow", "onChangeRow", "onTipRow",
        "onDiscountRow", "onOtherRow", "occurrences", "isLargest", "rankFromLargest", "fromBottom", "fromTop",
        "subtotalPlusTax", "cashLessChange", "itemsSum", "currencyMark", "repaired", "relativeHeight",
        "readConfidence", "otherPassAgrees", "magnitude", "onlyOnPaymentRows", "largerThanPayment", "amounts",
        "roundedAfterTotal", "roundedBelow",
    ]

    package static let dateFeatures = [
        "rulesPick", "rulesConfidence", "dateWordConfidence", "dateLabel", "otherDateLabel", "timeOnRow",
        "fromTop", "fromBottom", "occurrences", "isLatest", "isEarliest", "candidates", "inFuture",
        "monthName", "fourDigitYear", "dayMonthAmbiguous", "rowConfidence", "rowReadAgain", "rowReadOtherwise", "orderGuessed",
    ]

    package static let vendorFeatures = [
        "rulesConfidence", "readConfidence", "meanConfidence", "fromTop", "relativeHeight", "letters",
        "words", "digitShare", "lowercaseShare", "companyWord", "headerRows", "readAgain", "readOtherwise",
    ]

    package static let taxFeatures = [
        "rulesPick", "rulesConfidence", "rulesComputed", "onTaxRow", "rateOnRow", "percentOnRow", "rateFits",
        "totalLessSubtotal", "shareOfTotal", "belowTotal", "onTotalRow", "onSubtotalRow", "onPaymentRow",
        "onOtherRow", "occurrences", "isLargest", "fromBottom", "fromTop", "readConfidence", "amounts",
    ]

    package static func features(for field: LearnedField) -> [String] {
        switch field {
        case .total: totalFeatures
        case .date: dateFeatures
        case .vendor: vendorFeatures
        case .tax: taxFeatures
        }
    }

    // MARK: Total

    package static func totals(_ reading: Reading) -> [Candidate] {
        let rows = reading.rows
        let lines = reading.document.lines
        let lastIndex = max(1, (lines.last?.index ?? 1))
        let medianHeight = Self.medianHeight(lines)
        let pick = reading.total
        var values: [Decimal] = []
        for row in rows { for token in row.amounts where !values.contains(token.value) { values.append(token.value) } }
        if let pick, !values.contains(pick.value) { values.append(pick.value) }
        for other in reading.otherTotals where !values.contains(other.value) { values.append(other.value) }
        let positive = values.filter { $0 > 0 }
        guard !positive.isEmpty else { return [] }
        let descending = positive.sorted(by: >)
        let largest = descending.first ?? 0
        let subtotals = amounts(rows) { $0.role == .subtotal }
        let taxes = amounts(rows) { $0.role == .tax }
        let cash = amounts(rows) { $0.role == .cash }
        let change = amounts(rows) { $0.role == .change }
        let items = reading.lineItems.compactMap(\.amount)
        let itemsSum = items.isEmpty ? nil : items.reduce(0, +)
        let payments = amounts(rows, \.role.isPayment)
        let rounded = roundedPairs(rows, lines: lines)

        return positive.map { value in
            let place = Placement(value, rows: rows, lastIndex: lastIndex)
            let holding = place.rows, tokens = place.tokens
            let on = { (test: (AmountRole) -> Bool) in place.on { test($0.role) } }
            let strength = holding.map(\.role.totalStrength).max() ?? 0
            let heights = holding.compactMap { $0.line.box.map { Double($0.height) } }
            let height = heights.max().map { medianHeight > 0 ? $0 / medianHeight : 1 } ?? 1
            let isPick = pick?.value == value
            let rank = Double(descending.firstIndex(of: value) ?? descending.count) / Double(max(1, descending.count - 1))
            let sums = subtotals.contains { s in taxes.contains { t in t > 0 && s + t == value } }
            let cashLess = cash.contains { c in change.contains { ch in ch > 0 && c - ch == value } }
            let onlyPayment = !holding.isEmpty && holding.allSatisfy(\.role.isPayment)
            let features: [Double] = [
                isPick ? 1 : 0, isPick ? pick?.confidence ?? 0 : 0, isPick && pick?.crossChecked == true ? 1 : 0,
                isPick ? Double(pick?.labelStrength ?? 0) / 12 : 0, Double(strength) / 12,
                on { $0.totalStrength > 0 }, on { $0 == .subtotal }, on { $0 == .tax }, on { $0 == .cash }, on { $0 == .card },
                on { $0 == .change }, on { $0 == .tip }, on { $0 == .discount }, on { $0 == .other },
                place.occurrences, value == largest ? 1 : 0, rank, place.fromBottom, place.fromTop,
                sums ? 1 : 0, cashLess ? 1 : 0, itemsSum == value ? 1 : 0,
                tokens.contains { $0.currencyMark != nil } ? 1 : 0, !tokens.isEmpty && tokens.allSatisfy(\.repaired) ? 1 : 0,
                min(3, height), place.readConfidence,
                reading.otherTotals.contains { $0.value == value } ? 1 : 0,
                log10(1 + NSDecimalNumber(decimal: value).doubleValue) / 4,
                onlyPayment ? 1 : 0, payments.contains { $0 > 0 && value > $0 } ? 1 : 0,
                // How many amounts compete: a labelled amount on a short ticket has few rivals.
                log1p(Double(positive.count)),
                rounded.contains { $0.rounded == value } ? 1 : 0, rounded.contains { $0.total == value } ? 1 : 0,
            ]
            return Candidate(field: .total, value: value.moneyString, features: features)
        }
    }

    /// The rows printing `value`, and what they say of where and how clearly it was read.
    private struct Placement {
        let rows: [AmountLine]
        /// The amount's own tokens on those rows.
        let tokens: [AmountToken]
        /// log(1 + times printed).
        var occurrences: Double { log1p(Double(tokens.count)) }
        /// 0 for the last row, 1 for the first; 1 and 1 when no row prints it.
        let fromBottom: Double, fromTop: Double
        /// The clearest row's OCR confidence, 0–1.
        let readConfidence: Double

        init(_ value: Decimal, rows all: [AmountLine], lastIndex: Int) {
            rows = all.filter { row in row.amounts.contains { $0.value == value } }
            tokens = rows.flatMap { row in row.amounts.filter { $0.value == value } }
            let indices = rows.map(\.line.index)
            fromBottom = indices.max().map { Double(lastIndex - $0) / Double(lastIndex) } ?? 1
            fromTop = indices.min().map { Double($0) / Double(lastIndex) } ?? 1
            readConfidence = (rows.map(\.line.confidence).max() ?? 0) / 100
        }

        /// 1 when a row printing it passes `test`.
        func on(_ test: (AmountLine) -> Bool) -> Double { rows.contains(where: test) ? 1 : 0 }
    }

    /// The amounts of the rows that pass `test`.
    private static func amounts(_ rows: [AmountLine], _ test: (AmountLine) -> Bool) -> [Decimal] {
        rows.filter(test).flatMap { $0.amounts.map(\.value) }
    }

    /// Cash rounding to 5 cents (Malaysia, Switzerland, the Nordics…): a total, a rounding row, then
    /// the amount payable rounded — `Total (Incl GST) 23.26 / Rounding Adj -0.01 / TOTAL 23.25`, also
    /// where the rounding's own amount was misread. Pairs of a total-row amount not in whole 5 cents
    /// and an amount in whole 5 cents less than 5 cents from it, on a row below it, with a row
    /// naming the rounding after the total's row and no lower than the rounded amount's.
    static func roundedPairs(_ rows: [AmountLine], lines: [ReceiptLine]) -> [(total: Decimal, rounded: Decimal)] {
        let roundingRows = lines.filter { LabelText($0.text).hasAny(AmountRole.roundingWords) }.map(\.index)
        guard !roundingRows.isEmpty else { return [] }
        var pairs: [(total: Decimal, rounded: Decimal)] = []
        for totalRow in rows where totalRow.role.totalStrength > 0 {
            for total in totalRow.amounts.map(\.value) where total > 0 && !TotalFinder.isMultiple(total, of: 0.05) {
                for row in rows where row.line.index > totalRow.line.index {
                    for value in row.amounts.map(\.value)
                    where value > 0 && abs(value - total) < 0.05 && TotalFinder.isMultiple(value, of: 0.05)
                        && roundingRows.contains(where: { $0 > totalRow.line.index && $0 <= row.line.index }) {
                        pairs.append((total, value))
                    }
                }
            }
        }
        return pairs
    }

    // MARK: Tax

    /// Every amount for the tax, with the rules' finding (`taxFinding`) and the rules' total: how its
    /// row is labelled, whether a printed rate explains it (`rate × base`, or the tax inside a
    /// gross amount: `gross × rate / (100 + rate)`, the base a subtotal, the total or an amount on a
    /// rate's row), total less subtotal, its share of the total.
    package static func taxes(_ reading: Reading, finding: TaxFinding?, total: Decimal?) -> [Candidate] {
        let rows = reading.rows
        let lines = reading.document.lines
        let lastIndex = max(1, lines.last?.index ?? 1)
        var values: [Decimal] = []
        // Zero only where a tax row prints it (`TAX 0.00`): a receipt can say it charged none.
        for row in rows {
            for token in row.amounts where (token.value > 0 || row.role == .tax && token.value == 0) && !values.contains(token.value) {
                values.append(token.value)
            }
        }
        if let finding, finding.value >= 0, !values.contains(finding.value) { values.append(finding.value) }
        guard let largest = values.max() else { return [] }
        let rates = rows.compactMap(\.rate).filter { $0 > 0 && $0 < 30 }
        let subtotals = amounts(rows) { $0.role == .subtotal }
        let bases = Set(subtotals + [total].compactMap { $0 } + amounts(rows) { $0.rate != nil })
        return values.map { value in
            let place = Placement(value, rows: rows, lastIndex: lastIndex)
            let on = place.on
            let isPick = finding?.value == value
            let fits = rates.contains { rate in
                bases.contains { base in
                    base != value && (abs(base * rate / 100 - value) <= 0.011 || abs(base * rate / (100 + rate) - value) <= 0.011)
                }
            }
            let lessSubtotal = total.map { t in subtotals.contains { $0 > 0 && t - $0 == value } } ?? false
            let share = total.map { t in t > 0 ? min(1.5, NSDecimalNumber(decimal: value / t).doubleValue) : 0 } ?? 0
            let features: [Double] = [
                isPick ? 1 : 0, isPick ? finding?.confidence ?? 0 : 0, isPick && finding?.computed == true ? 1 : 0,
                on { $0.role == .tax }, on { $0.rate != nil }, on { $0.line.text.contains("%") }, fits ? 1 : 0,
                lessSubtotal ? 1 : 0, share, total.map { value < $0 ? 1 : 0 } ?? 0,
                on { $0.role.totalStrength > 0 }, on { $0.role == .subtotal }, on { $0.role.isPayment }, on { $0.role == .other },
                place.occurrences, value == largest ? 1 : 0, place.fromBottom, place.fromTop, place.readConfidence,
                log1p(Double(values.count)),
            ]
            return Candidate(field: .tax, value: value.moneyString, features: features)
        }
    }

    /// The tax features by which a receipt marks an amount as a tax: on a row labelled as one,
    /// explained by a printed rate, or the total less the subtotal. (`scripts/train.py` reads this
    /// list and `taxFloor` from here.)
    package static let showsTaxFeatures = ["onTaxRow", "rateFits", "totalLessSubtotal"]

    /// Where the rules found no tax, the model's amount is taken only from this probability, or
    /// when the receipt marks it as a tax (`showsTax`): a receipt may print none.
    package static let taxFloor = 0.5

    /// A tax candidate the receipt itself marks as a tax (`showsTaxFeatures`).
    package static func showsTax(_ candidate: Candidate) -> Bool {
        guard candidate.field == .tax else { return false }
        return showsTaxFeatures.contains { name in
            taxFeatures.firstIndex(of: name).map { candidate.features[$0] == 1 } ?? false
        }
    }

    // MARK: Date

    /// Words that say a row's date is the purchase's.
    static let dateLabels: PhraseList = ["DATE", "DATED", "TARIKH", "DATUM", "FECHA", "DATA", "TIME", "INVOICE DATE",
                                         "TRANS DATE", "SALE DATE", "ISSUED"]
    /// Words that say a row's date is some other date.
    static let otherDateLabels: PhraseList = ["DUE", "EXP", "EXPIRY", "EXPIRES", "VALID", "UNTIL", "BIS", "BEFORE",
                                              "BY", "RETURN", "RETURNS", "BEST", "USE", "PRINTED", "START", "END"]
    private static let timePattern = Pattern(#"\b\d{1,2}:\d{2}\b"#)

    package static func dates(_ reading: Reading, options: AnalysisOptions) -> [Candidate] {
        let lines = reading.document.lines
        let lastIndex = max(1, lines.last?.index ?? 1)
        let hint = reading.dateOrderHint
        let today = options.today ?? CalendarDate.today()
        var found: [(date: CalendarDate, line: ReceiptLine, confidence: Double)] = []
        // A date has at least three digits (`5 MAY 24`); other rows are not worth a look.
        for line in lines where line.text.lazy.filter(\.isASCIIDigit).count >= 3 {
            let single = ReceiptDocument(lines: [line], imageWidth: reading.document.imageWidth,
                                         imageHeight: reading.document.imageHeight)
            if let finding = DateFinder.find(single, orderHint: hint, defaultOrder: options.dateOrder, today: today) {
                found.append((finding.date, line, finding.confidence))
            }
        }
        let pick = reading.date
        let distinct = Array(Set(found.map(\.date) + [pick?.date].compactMap { $0 }))
        guard !distinct.isEmpty else { return [] }
        let latest = distinct.max(), earliest = distinct.min()
        return distinct.map { date in
            let rows = found.filter { $0.date == date }
            let isPick = pick?.date == date
            let labelled = rows.contains { LabelText($0.line.text).hasAny(dateLabels) } ? 1.0 : 0
            let otherLabel = rows.contains { LabelText($0.line.text).hasAny(otherDateLabels) } ? 1.0 : 0
            let time = rows.contains { timePattern.matches($0.line.text) } ? 1.0 : 0
            let word = rows.compactMap { DateFinder.dateWordConfidence($0.line) }.max() ?? (isPick ? 50 : 0)
            let top = rows.map(\.line.index).min().map { Double($0) / Double(lastIndex) } ?? 0.5
            let bottom = rows.map(\.line.index).max().map { Double(lastIndex - $0) / Double(lastIndex) } ?? 0.5
            // Whether it is in the future, not how old it is: the labelled receipts are from other
            // years than a user's, so their age would teach the data set's dates.
            let days = Double(today.days(since: date))
            let fourDigits = rows.contains { $0.line.text.contains(String(date.year)) } ? 1.0 : 0
            let ambiguous = date.day <= 12 && date.month <= 12 && date.day != date.month ? 1.0 : 0
            let rowConfidence = (rows.map(\.line.confidence).max() ?? 0) / 100
            let monthName = rows.contains { $0.line.text.contains(where: \.isLetter) && $0.line.text.split(separator: " ").contains { DateFinder.month(String($0)) != nil } } ? 1.0 : 0
            let features: [Double] = [
                isPick ? 1 : 0, isPick ? pick?.confidence ?? 0 : 0, word / 100, labelled, otherLabel, time,
                top, bottom, log1p(Double(rows.count)), date == latest ? 1 : 0, date == earliest ? 1 : 0,
                log1p(Double(distinct.count)), days < 0 ? 1 : 0, monthName, fourDigits, ambiguous, rowConfidence,
                isPick && reading.dateCheck == .same ? 1 : 0, isPick && reading.dateCheck == .other ? 1 : 0,
                // Day and month could be either way round and nothing on the receipt (currency,
                // country) said which: the order is the default's guess.
                ambiguous == 1 && hint == nil ? 1 : 0,
            ]
            return Candidate(field: .date, value: date.description, features: features)
        }
    }

    // MARK: Vendor

    static let companyWords: PhraseList = ["SDN BHD", "BHD", "LTD", "LIMITED", "PLC", "INC", "LLC", "GMBH", "CORP",
                                           "COMPANY", "CO", "ENTERPRISE", "TRADING", "SRL", "SARL", "BV", "AG", "KG"]

    package static func vendor(_ reading: Reading) -> [Candidate] {
        guard let vendor = reading.vendor else { return [] }
        let lines = reading.document.lines
        let lastIndex = max(1, lines.last?.index ?? 1)
        let medianHeight = Self.medianHeight(lines)
        let top = vendor.box.map { box in
            Double(lines.filter { ($0.box?.midY ?? Int.max) < box.y }.count) / Double(lastIndex)
        } ?? 0
        let height = vendor.box.map { medianHeight > 0 ? min(3, Double($0.height) / medianHeight) : 1 } ?? 1
        let letters = vendor.name.filter(\.isLetter)
        let digits = vendor.name.filter(\.isNumber).count
        let lower = letters.filter(\.isLowercase).count
        let rowsOfName = max(1, Set(vendor.words.map(\.box.midY)).count)
        let features: [Double] = [
            vendor.confidence, vendor.readConfidence / 100, vendor.meanConfidence / 100, top, height,
            min(1, Double(letters.count) / 30), min(1, Double(vendor.name.split(separator: " ").count) / 6),
            Double(digits) / Double(max(1, vendor.name.count)), Double(lower) / Double(max(1, letters.count)),
            LabelText(vendor.name).hasAny(companyWords) ? 1 : 0, min(1, Double(rowsOfName) / 3),
            reading.vendorCheck == .same ? 1 : 0, reading.vendorCheck == .other ? 1 : 0,
        ]
        return [Candidate(field: .vendor, value: vendor.name, features: features)]
    }

    private static func medianHeight(_ lines: [ReceiptLine]) -> Double {
        let heights = lines.compactMap { $0.box.map { Double($0.height) } }.sorted()
        return heights.isEmpty ? 0 : heights[heights.count / 2]
    }
}
