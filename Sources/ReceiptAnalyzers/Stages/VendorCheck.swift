import ReceiptModel

/// The vendor's rows read again on their own: a name read with low confidence at twice the scale,
/// keeping the clearer reading of the same name; a name read clearly at the first scale, as a
/// check. As for the date, two readings rarely make the same slip, so whether they agree is what
/// the learned model weighs for the vendor's probability. Two readings that differ get a third, at
/// another scale: a name two of the three agree on is kept and counts as checked; where no two
/// agree, the three are voted letter by letter (`letterVote`) and the name stays unsettled.
package struct VendorCheck {
    let reader: any PageReader

    /// The name to keep and what the check found; the reading's own and `.none` when its rows
    /// cannot be read again.
    func run(_ reading: Reading) async throws -> (vendor: VendorFinding?, check: ReadCheck) {
        guard let vendor = reading.vendor, let region = reading.vendorRegion() else { return (reading.vendor, .none) }
        /// The name the vendor's rows read at `scale`.
        func nameRead(at scale: Double) async throws -> VendorFinding? {
            try Task.checkCancellation()
            return try await reader.further(OCRPass(pageSegmentationMode: 6, scale: scale, region: region))
                .flatMap { VendorFinder.find(ReceiptDocument(ocr: $0)) }
        }
        let weak = vendor.readConfidence < 80
        let name = NameMatching.normalized(vendor.name)
        guard let other = try await nameRead(at: weak ? 2 : 1) else { return (vendor, .none) }
        var kept = vendor
        let otherName = NameMatching.normalized(other.name)
        var check: ReadCheck = otherName == name ? .same : .other
        if weak, other.readConfidence >= vendor.readConfidence + 5, other.meanConfidence >= vendor.meanConfidence,
           Reading.sameName(other.name, vendor.name),
           Self.noMoreSlips(other.name, than: vendor.name),
           otherName.count * 10 >= name.count * 9 {
            kept = other
        }
        guard otherName != name, let third = try await nameRead(at: HeuristicAnalyzer.thirdReadingScale) else { return (kept, check) }
        let thirdName = NameMatching.normalized(third.name)
        if let agreed = [kept.name, other.name, vendor.name].first(where: { NameMatching.normalized($0) == thirdName }),
           agreed == kept.name || Self.noMoreSlips(agreed, than: kept.name) {
            kept.name = agreed
            check = .same
        } else if let voted = Self.letterVote(kept.name, other.name, third.name), voted != kept.name,
                  Self.noMoreSlips(voted, than: kept.name) {
            // No two agree: a name voted letter by letter, still unsettled for the model (vendors
            // right: sroie-2 +4 receipts, sroie +1, the WildReceipt sets the same).
            kept.name = voted
        }
        return (kept, check)
    }

    /// Three readings of a name none of which two agree on, voted letter by letter: word by word,
    /// a word two readings agree on, else, where the three have the same length, each letter two
    /// of them agree on (`MR O.I.Y.`, `MR D.L.Y.`, `MR D.I.Y.` → `MR D.I.Y.`). Nil when the readings
    /// have different numbers of words, or a letter has no majority.
    package static func letterVote(_ a: String, _ b: String, _ c: String) -> String? {
        let words = [a, b, c].map { $0.split(separator: " ").map(String.init) }
        guard !words[0].isEmpty, words[1].count == words[0].count, words[2].count == words[0].count else { return nil }
        var out: [String] = []
        for i in words[0].indices {
            let (x, y, z) = (words[0][i], words[1][i], words[2][i])
            if x == y || x == z { out.append(x); continue }
            if y == z { out.append(y); continue }
            guard x.count == y.count, x.count == z.count else { return nil }
            var letters = ""
            for (p, (q, r)) in zip(x, zip(y, z)) {
                if p == q || p == r { letters.append(p) } else if q == r { letters.append(q) } else { return nil }
            }
            out.append(letters)
        }
        return out.joined(separator: " ")
    }

    /// `name` has no more digits than `than`, nor small letters amid capitals: "LA. CAMERA" is not
    /// mended by "1A CAMERA", nor "MR. D.I.Y." by "MR. DeI.Y.".
    static func noMoreSlips(_ name: String, than other: String) -> Bool {
        name.filter(\.isNumber).count <= other.filter(\.isNumber).count && caseSlips(name) <= caseSlips(other)
    }

    /// Small letters read between two capitals (`DeI.Y.`): a sign of a misread.
    static func caseSlips(_ name: String) -> Int {
        let letters = Array(name)
        guard letters.count >= 3 else { return 0 }
        return (1..<(letters.count - 1)).filter { i in
            letters[i].isLowercase && letters[i - 1].isUppercase && letters[i + 1].isUppercase
        }.count
    }
}
