import Foundation

/// A receipt longer than a photo, taken in several overlapping pictures (top to bottom), read as
/// one: where each picture's words go in one tall reading, and which of the rows two consecutive
/// pictures both show (the overlap) is kept, once.
///
/// Each picture is read on its own (by each reader); `plan` finds the overlap of every two
/// consecutive pictures from the rows they both show — the same text at positions that one
/// placement (a shift and a scale: the phone moved down the receipt, maybe nearer or farther)
/// explains — and `join` then lays each reading's rows out one picture below the other in the
/// first picture's pixels, keeping a row of the overlap from the upper picture above the middle of
/// the overlap and from the lower one below it. So the header comes from the first picture, the
/// totals from the last, and no line item is read twice. Two pictures with no rows in common are
/// laid out one below the other, whole.
///
/// Both readers' readings of a receipt are joined with the same placements (those found on the
/// reading that agrees best), so the two joined readings stay in the same pixels and can still be
/// compared word by word.
public struct PictureJoin: Sendable, Equatable {
    /// Where one picture goes in the joined reading: a point `(x, y)` of the picture's reading is
    /// `(scale · x + dx, scale · y + dy)`; its rows whose middle falls in `keepFrom..<keepTo`
    /// (joined pixels) are kept.
    public struct Placement: Sendable, Equatable {
        public var scale: Double
        public var dx: Double
        public var dy: Double
        public var keepFrom: Double
        public var keepTo: Double
        /// The size of the picture's reading (the pixels its boxes are in).
        public var width: Int
        public var height: Int

        public init(scale: Double = 1, dx: Double = 0, dy: Double = 0, keepFrom: Double = -.infinity, keepTo: Double = .infinity,
                    width: Int, height: Int) {
            self.scale = scale
            self.dx = dx
            self.dy = dy
            self.keepFrom = keepFrom
            self.keepTo = keepTo
            self.width = width
            self.height = height
        }

        /// A box of the picture's reading in the joined reading's pixels.
        public func joined(_ box: BoundingBox) -> BoundingBox {
            let x = scale * Double(box.x) + dx, y = scale * Double(box.y) + dy
            return BoundingBox(x: Int(x.rounded()), y: Int(y.rounded()),
                               width: max(1, Int((scale * Double(box.width)).rounded())), height: max(1, Int((scale * Double(box.height)).rounded())))
        }

        /// A box of the joined reading in this picture's pixels (clipped to the picture).
        public func inPicture(_ box: BoundingBox) -> BoundingBox {
            let x0 = (Double(box.x) - dx) / scale, y0 = (Double(box.y) - dy) / scale
            let x1 = (Double(box.maxX) - dx) / scale, y1 = (Double(box.maxY) - dy) / scale
            let cx0 = min(Double(width), max(0, x0)), cy0 = min(Double(height), max(0, y0))
            let cx1 = min(Double(width), max(0, x1)), cy1 = min(Double(height), max(0, y1))
            return BoundingBox(x: Int(cx0.rounded(.down)), y: Int(cy0.rounded(.down)),
                               width: Int((cx1 - cx0).rounded(.up)), height: Int((cy1 - cy0).rounded(.up)))
        }

        /// Whether a row whose middle is at `y` (joined pixels) is this picture's to keep.
        func keeps(midY y: Double) -> Bool { y >= keepFrom && y < keepTo }
    }

    public var placements: [Placement]
    /// For each two consecutive pictures, the rows found in both (0: no overlap was found, and the
    /// lower picture was put below the upper one whole).
    public var overlapRows: [Int]
    /// The joined reading's size.
    public var width: Int
    public var height: Int

    public init(placements: [Placement], overlapRows: [Int], width: Int, height: Int) {
        self.placements = placements
        self.overlapRows = overlapRows
        self.width = width
        self.height = height
    }

    /// The pictures (numbered from 1) in runs whose consecutive pictures overlap, from each
    /// picture's `overlapRows` after the first: `[4, 0, 2]` → `[[1, 2], [3, 4]]`. Pictures of one
    /// long receipt are one run; a picture that shares no row with the one before starts another
    /// (another receipt, or a part of it the join could not place).
    public static func runs(overlapRows: [Int]) -> [[Int]] {
        var runs: [[Int]] = [[1]]
        for (i, rows) in overlapRows.enumerated() {
            if rows > 0 { runs[runs.count - 1].append(i + 2) } else { runs.append([i + 2]) }
        }
        return runs
    }

    // MARK: Planning

    /// The placements of `readings` (the pictures in order, each with its readings by one or more
    /// readers, in the same order for every picture; all of one picture's readings in the same
    /// pixels).
    public static func plan(_ readings: [[OCRResult]]) -> PictureJoin {
        guard let first = readings.first?.first, readings.allSatisfy({ !$0.isEmpty }) else {
            return PictureJoin(placements: [], overlapRows: [], width: 0, height: 0)
        }
        var placements = [Placement(width: first.imageWidth, height: first.imageHeight)]
        var overlapRows: [Int] = []
        for i in readings.indices.dropFirst() {
            let upper = readings[i - 1], lower = readings[i]
            // The overlap as the reading that finds it best sees it.
            var best: Overlap?
            for r in 0..<min(upper.count, lower.count) {
                if let found = overlap(upper: upper[r], lower: lower[r]), found.score > (best?.score ?? 0) { best = found }
            }
            let above = placements[i - 1], picture = lower[0]
            let relative: Overlap
            if let best {
                relative = best
            } else {
                // No row in common: below the upper picture, as wide as it.
                let scale = picture.imageWidth > 0 && above.width > 0 ? Double(above.width) / Double(picture.imageWidth) : 1
                relative = Overlap(scale: scale, dx: 0, dy: Double(above.height), cut: Double(above.height), rows: 0, score: 0)
            }
            let cut = above.scale * relative.cut + above.dy
            placements[i - 1].keepTo = cut
            placements.append(Placement(scale: above.scale * relative.scale, dx: above.scale * relative.dx + above.dx,
                                        dy: above.scale * relative.dy + above.dy, keepFrom: cut,
                                        width: picture.imageWidth, height: picture.imageHeight))
            overlapRows.append(relative.rows)
        }
        // Nothing left of the first picture's left edge or above its top.
        let minX = placements.map(\.dx).min() ?? 0, minY = placements.map(\.dy).min() ?? 0
        for i in placements.indices {
            placements[i].dx -= min(0, minX)
            placements[i].dy -= min(0, minY)
            placements[i].keepFrom -= min(0, minY)
            placements[i].keepTo -= min(0, minY)
        }
        let width = placements.map { $0.dx + $0.scale * Double($0.width) }.max() ?? 0
        let height = placements.map { $0.dy + $0.scale * Double($0.height) }.max() ?? 0
        return PictureJoin(placements: placements, overlapRows: overlapRows, width: Int(width.rounded(.up)), height: Int(height.rounded(.up)))
    }

    // MARK: Joining

    /// One reader's readings of the pictures (in order, in each picture's pixels) as one reading.
    /// Nil when a picture has no reading (that reader could not read it).
    public func join(_ readings: [OCRResult?]) -> OCRResult? {
        guard readings.count == placements.count, !readings.isEmpty else { return nil }
        var lines: [OCRLine] = []
        for (reading, placement) in zip(readings, placements) {
            guard let reading else { return nil }
            // A reading made at another size than the one planned with (the same picture read again
            // at another scale): its boxes are brought to the planned pixels first.
            let f = reading.imageWidth > 0 && placement.width > 0 ? Double(placement.width) / Double(reading.imageWidth) : 1
            var adjusted = placement
            adjusted.scale *= f
            for line in reading.lines where !line.words.isEmpty {
                let midY = adjusted.scale * (Double(line.box.y) + Double(line.box.height) / 2) + adjusted.dy
                guard placement.keeps(midY: midY) else { continue }
                lines.append(OCRLine(words: line.words.map { OCRWord(text: $0.text, confidence: $0.confidence, box: adjusted.joined($0.box)) }))
            }
        }
        return OCRResult(text: lines.map(\.text).joined(separator: "\n"), lines: lines,
                         meanConfidence: OCRResult.meanConfidence(of: lines),
                         imageWidth: width, imageHeight: height, sourceWidth: width, sourceHeight: height)
    }

    /// The picture (from 0) a box of the joined reading was taken from, and the box in that
    /// picture's pixels: the picture whose kept band holds the box's middle.
    public func locate(_ box: BoundingBox) -> (picture: Int, box: BoundingBox)? {
        let midY = Double(box.y) + Double(box.height) / 2
        guard let index = placements.firstIndex(where: { $0.keeps(midY: midY) }) else { return nil }
        return (index, placements[index].inPicture(box))
    }

    /// The picture holding most of a band of the joined reading (a region a further pass reads),
    /// and the band in that picture's pixels.
    public func picture(holding region: BoundingBox) -> (picture: Int, region: BoundingBox)? {
        var best: (Int, Double)?
        for (i, p) in placements.enumerated() {
            let top = max(Double(region.y), max(p.keepFrom, p.dy)), bottom = min(Double(region.maxY), min(p.keepTo, p.dy + p.scale * Double(p.height)))
            if bottom > top, bottom - top > (best?.1 ?? 0) { best = (i, bottom - top) }
        }
        guard let (index, _) = best else { return nil }
        let inPicture = placements[index].inPicture(region)
        guard inPicture.width > 0, inPicture.height > 0 else { return nil }
        return (index, inPicture)
    }

    // MARK: Finding the overlap

    /// How a lower picture sits against the upper one: a point of the lower one's reading is
    /// `(scale · x + dx, scale · y + dy)` in the upper one's; `cut` (upper's pixels) is between rows
    /// in the middle of the overlap.
    struct Overlap: Equatable {
        var scale: Double
        var dx: Double
        var dy: Double
        var cut: Double
        var rows: Int
        var score: Double
    }

    /// A row of a reading as the overlap search sees it: its letters and digits, its box's middle.
    struct Row {
        var key: String
        var box: BoundingBox
        var midX: Double { Double(box.x) + Double(box.width) / 2 }
        var midY: Double { Double(box.y) + Double(box.height) / 2 }
        var weight: Double { Double(min(key.count, 20)) }
    }

    static func rows(_ reading: OCRResult) -> [Row] {
        reading.lines.compactMap { line in
            let key = NameMatching.normalized(line.text)
            return key.count >= 2 && line.box.height > 0 ? Row(key: key, box: line.box) : nil
        }
    }

    /// The placement of `lower` against `upper` that most rows agree on, or nil when no row of one
    /// is found in the other where a placement puts it.
    static func overlap(upper: OCRResult, lower: OCRResult) -> Overlap? {
        let a = rows(upper), b = rows(lower)
        guard !a.isEmpty, !b.isEmpty else { return nil }
        let rowHeight = max(4, median(a.map { Double($0.box.height) }))
        let lowerHeight = max(4, median(b.map { Double($0.box.height) }))
        // Rows read alike in both: same letters and digits, or nearly (a slip of the reader).
        struct Match { var a: Int; var b: Int; var weight: Double }
        var matches: [Match] = []
        for (i, ra) in a.enumerated() where ra.key.count >= 3 {
            for (j, rb) in b.enumerated() where rb.key.count >= 3 {
                let s = similarity(ra.key, rb.key)
                if s >= 0.8, digitsAgree(ra.key, rb.key) {
                    matches.append(Match(a: i, b: j, weight: min(ra.weight, rb.weight) * s))
                } else if let w = sameWordsNumberCut(ra.key, rb.key) {
                    matches.append(Match(a: i, b: j, weight: min(w, min(ra.weight, rb.weight)) * 0.8))
                }
            }
        }
        guard !matches.isEmpty else { return nil }
        matches.sort { $0.weight > $1.weight }
        if matches.count > 400 { matches.removeLast(matches.count - 400) }

        // Placements to try: each match at the scale of its rows' heights (and at 1), and each two
        // matches far enough apart at the scale their distance gives.
        var hypotheses: [(scale: Double, dy: Double)] = []
        func add(_ scale: Double, _ m: Match) {
            guard scale >= 0.5, scale <= 2 else { return }
            hypotheses.append((scale, a[m.a].midY - scale * b[m.b].midY))
        }
        let sizeScale = rowHeight / lowerHeight
        for m in matches.prefix(120) {
            add(1, m)
            if abs(sizeScale - 1) > 0.05 { add(sizeScale, m) }
        }
        let strong = Array(matches.prefix(40))
        for p in strong.indices {
            for q in strong.indices where q > p {
                let (mp, mq) = (strong[p], strong[q])
                let db = b[mp.b].midY - b[mq.b].midY
                guard abs(db) >= 1.5 * lowerHeight, mp.a != mq.a, mp.b != mq.b else { continue }
                add((a[mp.a].midY - a[mq.a].midY) / db, mp)
            }
        }

        let upperBottom = Double(upper.imageHeight)
        let aTop = a.map { Double($0.box.y) }.min() ?? 0, aBottom = a.map { Double($0.box.maxY) }.max() ?? upperBottom
        var best: Overlap?
        var bestKept: [Match] = []
        for (scale, dy) in hypotheses {
            // The lower picture starts below the upper one's top and ends below its bottom.
            guard dy > -rowHeight, scale * Double(lower.imageHeight) + dy >= upperBottom - rowHeight else { continue }
            let tolerance = 0.5 * rowHeight
            let alongY = matches.filter { abs(a[$0.a].midY - (scale * b[$0.b].midY + dy)) <= tolerance }
            guard !alongY.isEmpty else { continue }
            let dx = median(alongY.map { a[$0.a].midX - scale * b[$0.b].midX })
            let xTolerance = 1.5 * rowHeight + 0.03 * Double(upper.imageWidth)
            // One row of each picture to one of the other, the best-read first.
            var usedA = Set<Int>(), usedB = Set<Int>(), kept: [Match] = []
            for m in alongY where !usedA.contains(m.a) && !usedB.contains(m.b)
                && abs(a[m.a].midX - (scale * b[m.b].midX + dx)) <= xTolerance {
                usedA.insert(m.a)
                usedB.insert(m.b)
                kept.append(m)
            }
            guard !kept.isEmpty else { continue }
            // Rows of the lower picture placed inside the upper one's print that match nothing there
            // speak against the placement (a repeated price is not an overlap).
            var against = 0.0
            for (j, rb) in b.enumerated() where !usedB.contains(j) && rb.key.count >= 3 {
                let y = scale * rb.midY + dy
                if y > aTop + tolerance, y < aBottom - rowHeight { against += rb.weight }
            }
            // Each row counts less the farther from where the placement puts it: of two placements
            // that find the same rows (a short overlap leaves a scale loose), the one that puts them
            // where they are wins.
            let support = kept.reduce(0) { total, m in
                let residual = hypot(a[m.a].midY - (scale * b[m.b].midY + dy), a[m.a].midX - (scale * b[m.b].midX + dx))
                return total + m.weight * (1 - 0.5 * min(1, residual / (tolerance + xTolerance)))
            }
            let score = support - 0.6 * against
            let letters = kept.reduce(0) { $0 + min(a[$1.a].key.count, b[$1.b].key.count) }
            guard score > 0, (kept.count >= 2 && letters >= 8) || (kept.count == 1 && letters >= 10 && against == 0) else { continue }
            if score > (best?.score ?? 0) {
                best = Overlap(scale: scale, dx: dx, dy: dy, cut: 0, rows: kept.count, score: score)
                bestKept = kept
            }
        }
        guard var found = best else { return nil }
        // The placement fitted to the rows it found (least squares on their middles), when they
        // are far enough apart to say the scale: a hypothesis is one or two rows' word for it.
        let ys = bestKept.map { (b[$0.b].midY, a[$0.a].midY) }
        let meanB = ys.reduce(0) { $0 + $1.0 } / Double(ys.count), meanA = ys.reduce(0) { $0 + $1.1 } / Double(ys.count)
        let spread = ys.reduce(0) { $0 + ($1.0 - meanB) * ($1.0 - meanB) }
        if ys.count >= 2, (ys.map(\.0).max()! - ys.map(\.0).min()!) >= 1.5 * lowerHeight {
            let fitted = ys.reduce(0) { $0 + ($1.0 - meanB) * ($1.1 - meanA) } / spread
            if fitted >= 0.5, fitted <= 2 {
                found.scale = fitted
                found.dy = meanA - fitted * meanB
                found.dx = median(bestKept.map { a[$0.a].midX - fitted * b[$0.b].midX })
            }
        }
        // The cut: between two rows of the upper picture, nearest the middle of the overlap.
        let lowerTop = found.scale * (b.map { Double($0.box.y) }.min() ?? 0) + found.dy
        let lowerBottom = found.scale * (b.map { Double($0.box.maxY) }.max() ?? 0) + found.dy
        let middle = (max(aTop, lowerTop) + min(aBottom, lowerBottom)) / 2
        let centres = a.map(\.midY).sorted()
        var cut = middle
        var nearest = Double.infinity
        for k in centres.indices.dropFirst() {
            let between = (centres[k - 1] + centres[k]) / 2
            if centres[k] - centres[k - 1] >= 0.5 * rowHeight, abs(between - middle) < nearest {
                (cut, nearest) = (between, abs(between - middle))
            }
        }
        found.cut = cut
        return found
    }

    /// Whether two rows' numbers agree: the same digits, or for long numbers (6 digits or more)
    /// nearly (a reader's slip). Rows that differ in their numbers — item 1 and item 11, a price of
    /// 1.07 and one of 11.77 — are other rows, however alike their words.
    static func digitsAgree(_ s: String, _ t: String) -> Bool {
        let x = String(s.unicodeScalars.filter { ("0"..."9").contains($0) })
        let y = String(t.unicodeScalars.filter { ("0"..."9").contains($0) })
        if x == y { return true }
        return x.count >= 6 && y.count >= 6 && similarity(x, y) >= 0.7
    }

    /// For a row one picture read whole and the other in part (its amount cut by the picture's
    /// edge or not read): the weight of its words when they are the same (8 letters or more, read
    /// alike) and one reading's digits are a part of the other's, in order; nil otherwise.
    static func sameWordsNumberCut(_ s: String, _ t: String) -> Double? {
        func split(_ key: String) -> (letters: String, digits: [Unicode.Scalar]) {
            let scalars = key.unicodeScalars
            return (String(String.UnicodeScalarView(scalars.filter { !("0"..."9").contains($0) })),
                    scalars.filter { ("0"..."9").contains($0) })
        }
        let (x, y) = (split(s), split(t))
        guard x.letters.unicodeScalars.count >= 8, similarity(x.letters, y.letters) >= 0.9 else { return nil }
        let (short, long) = x.digits.count <= y.digits.count ? (x.digits, y.digits) : (y.digits, x.digits)
        var rest = long[...]
        for digit in short {
            guard let found = rest.firstIndex(of: digit) else { return nil }
            rest = rest[rest.index(after: found)...]
        }
        return Double(min(x.letters.unicodeScalars.count, 20))
    }

    /// 1 − the edit distance over the longer length.
    static func similarity(_ s: String, _ t: String) -> Double {
        if s == t { return 1 }
        let x = Array(s.unicodeScalars), y = Array(t.unicodeScalars)
        guard !x.isEmpty, !y.isEmpty else { return 0 }
        // Lengths too far apart cannot reach the threshold the caller uses.
        if Double(min(x.count, y.count)) / Double(max(x.count, y.count)) < 0.7 { return 0 }
        var previous = Array(0...y.count), current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return 1 - Double(previous[y.count]) / Double(max(x.count, y.count))
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
