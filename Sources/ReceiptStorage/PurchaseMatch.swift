import Foundation
import ReceiptModel

/// Whether two receipts of one owner are the same purchase (issue 57): the same date and total at
/// the same shop — the shop the memory recognised on both, a key both print (tax number, phone, web
/// domain, address, header), the same name give or take a reader's slip, or the same print (most
/// of their words in common: a photo and the e-mailed PDF of one receipt) — and, where both print
/// them, the same time and receipt number. Another picture of a receipt already stored is then
/// marked `possibleDuplicateOf` it and flagged; it is never deleted or merged.
public enum PurchaseMatch {
    /// One side of the comparison: the receipt's expense as drafted or stored, its analysis and text.
    public struct Side: Sendable {
        public var vendor: String
        public var date: CalendarDate?
        public var amount: Decimal?
        public var analysis: ReceiptAnalysis?
        public var text: String?

        public init(vendor: String, date: CalendarDate?, amount: Decimal?, analysis: ReceiptAnalysis?, text: String?) {
            self.vendor = vendor
            self.date = date
            self.amount = amount
            self.analysis = analysis
            self.text = text
        }
    }

    public static func same(_ a: Side, _ b: Side) -> Bool {
        guard let date = a.date, date == b.date, let amount = a.amount, amount == b.amount else { return false }
        guard sameShop(a, b) else { return false }
        let (ia, ib) = (a.analysis?.identity, b.analysis?.identity)
        if let ta = ia?.time?.value, let tb = ib?.time?.value, !closeTimes(ta, tb) { return false }
        if let na = ia?.receiptNumber?.value, let nb = ib?.receiptNumber?.value, !sameNumber(na, nb) { return false }
        return true
    }

    static func sameShop(_ a: Side, _ b: Side) -> Bool {
        if let ma = a.analysis?.memory?.vendorId, ma == b.analysis?.memory?.vendorId { return true }
        let ka = Set(a.analysis?.shopKeys.keys.filter { $0.kind != .postcode && $0.kind != .storeNumber } ?? [])
        if let kb = b.analysis?.shopKeys.keys, kb.contains(where: ka.contains) { return true }
        if similarNames(a.vendor, b.vendor) { return true }
        if let ta = a.text, let tb = b.text, wordOverlap(ta, tb) >= 0.6 { return true }
        return false
    }

    /// The same name give or take a reader's slip: letters and digits differing in at most a quarter.
    static func similarNames(_ a: String, _ b: String) -> Bool {
        let x = NameMatching.normalized(a), y = NameMatching.normalized(b)
        guard x.count >= 3, y.count >= 3 else { return false }
        if x == y { return true }
        return editDistance(Array(x), Array(y)) * 4 <= max(x.count, y.count)
    }

    /// Times a minute apart or less (a reader's slip in the last digit is not another purchase's
    /// time; two purchases a minute apart at one till of the same total are rare).
    static func closeTimes(_ a: String, _ b: String) -> Bool {
        func minutes(_ t: String) -> Int? {
            let parts = t.split(separator: ":").compactMap { Int($0) }
            return parts.count == 2 ? parts[0] * 60 + parts[1] : nil
        }
        guard let x = minutes(a), let y = minutes(b) else { return a == b }
        return abs(x - y) <= 1
    }

    /// The same receipt number, give or take one character misread.
    static func sameNumber(_ a: String, _ b: String) -> Bool {
        let x = Array(NameMatching.normalized(a)), y = Array(NameMatching.normalized(b))
        return editDistance(x, y) <= (min(x.count, y.count) >= 6 ? 1 : 0)
    }

    /// The share of the words (three letters or digits or more) the two texts have in common, of the
    /// shorter text's.
    public static func wordOverlap(_ a: String, _ b: String) -> Double {
        func words(_ t: String) -> Set<String> {
            Set(t.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init).filter { $0.count >= 3 })
        }
        let (x, y) = (words(a), words(b))
        guard min(x.count, y.count) >= 8 else { return 0 }
        return Double(x.intersection(y).count) / Double(min(x.count, y.count))
    }

    static func editDistance<T: Equatable>(_ a: [T], _ b: [T]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
