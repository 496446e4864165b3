import Foundation

/// A detector's text-probability map: `width × height` values 0–1, row by row.
package struct ProbabilityMap: Sendable {
    package var width: Int
    package var height: Int
    package var values: [Float]

    package init(width: Int, height: Int, values: [Float]) {
        precondition(values.count == width * height, "a probability map needs width × height values")
        self.width = width
        self.height = height
        self.values = values
    }

    package subscript(x: Int, y: Int) -> Float { values[y * width + x] }
}

/// Differentiable Binarization's post-processing: from a probability map to text boxes.
///
/// The map is thresholded (and, if asked, dilated by one pixel); each 8-connected region of text
/// pixels gets its minimum-area rectangle; a region whose mean probability inside that rectangle
/// is below `boxThreshold` is dropped; the rectangle is grown ("unclipped") by
/// `area × unclipRatio / perimeter` on every side, since the detector was trained to mark a
/// shrunken core of each text line; boxes whose short side is still under `minimumSide + 2` are
/// dropped. Boxes come back in the map's pixels, at most `maximumBoxes` of them.
package struct DBPostProcess: Sendable {
    package var threshold: Float
    package var boxThreshold: Float
    package var unclipRatio: Double
    package var dilate: Bool
    package var minimumSide: Double = 3
    package var maximumBoxes: Int = 1000

    package init(threshold: Float, boxThreshold: Float, unclipRatio: Double, dilate: Bool) {
        self.threshold = threshold
        self.boxThreshold = boxThreshold
        self.unclipRatio = unclipRatio
        self.dilate = dilate
    }

    package init(_ set: NeuralModelSet) {
        self.init(threshold: set.detectorThreshold, boxThreshold: set.boxThreshold, unclipRatio: set.unclipRatio, dilate: set.dilate)
    }

    package func boxes(in map: ProbabilityMap) -> [TextBox] {
        var mask = map.values.map { $0 > threshold }
        if dilate { mask = Self.dilated(mask, width: map.width, height: map.height) }
        var boxes: [TextBox] = []
        for region in Self.regions(of: mask, width: map.width, height: map.height).prefix(maximumBoxes) {
            guard var box = Self.minimumAreaBox(region.corners) else { continue }
            guard min(box.width, box.height) >= minimumSide else { continue }
            box.score = Self.meanProbability(in: box, map: map)
            guard box.score >= boxThreshold else { continue }
            let grow = box.width * box.height * unclipRatio / (2 * (box.width + box.height))
            box.width += 2 * grow
            box.height += 2 * grow
            guard min(box.width, box.height) >= minimumSide + 2 else { continue }
            boxes.append(box)
        }
        return boxes
    }

    /// A 2×2 dilation (each text pixel also marks its right, lower and lower-right neighbours), as
    /// PaddleOCR's `use_dilation`.
    static func dilated(_ mask: [Bool], width: Int, height: Int) -> [Bool] {
        var out = mask
        for y in 0..<height {
            for x in 0..<width where mask[y * width + x] {
                if x + 1 < width { out[y * width + x + 1] = true }
                if y + 1 < height {
                    out[(y + 1) * width + x] = true
                    if x + 1 < width { out[(y + 1) * width + x + 1] = true }
                }
            }
        }
        return out
    }

    /// One 8-connected region of a mask: the corners of its pixels at the ends of each of its rows
    /// (enough for its convex hull, hence its minimum-area rectangle).
    struct Region {
        var corners: [Point]
    }

    /// The mask's 8-connected regions, in the order of their first pixel (top to bottom).
    static func regions(of mask: [Bool], width: Int, height: Int) -> [Region] {
        var label = [Int32](repeating: -1, count: mask.count)
        var regions: [Region] = []
        var stack: [Int] = []
        for start in mask.indices where mask[start] && label[start] < 0 {
            let id = Int32(regions.count)
            var rowExtents: [Int: (Int, Int)] = [:]
            label[start] = id
            stack.append(start)
            while let index = stack.popLast() {
                let x = index % width, y = index / width
                let extent = rowExtents[y] ?? (x, x)
                rowExtents[y] = (min(extent.0, x), max(extent.1, x))
                for dy in -1...1 {
                    let ny = y + dy
                    guard ny >= 0, ny < height else { continue }
                    for dx in -1...1 {
                        let nx = x + dx
                        guard nx >= 0, nx < width else { continue }
                        let n = ny * width + nx
                        if mask[n] && label[n] < 0 {
                            label[n] = id
                            stack.append(n)
                        }
                    }
                }
            }
            var corners: [Point] = []
            corners.reserveCapacity(rowExtents.count * 4)
            for (y, (x0, x1)) in rowExtents {
                corners += [Point(Double(x0), Double(y)), Point(Double(x1 + 1), Double(y)),
                            Point(Double(x0), Double(y + 1)), Point(Double(x1 + 1), Double(y + 1))]
            }
            regions.append(Region(corners: corners))
        }
        return regions
    }

    /// The smallest rectangle around `points` (rotating calipers over their convex hull), its
    /// width along the axis nearest to horizontal. Nil for fewer than three distinct points.
    static func minimumAreaBox(_ points: [Point]) -> TextBox? {
        let hull = convexHull(points)
        guard hull.count >= 3 else { return nil }
        var best: (area: Double, angle: Double, minU: Double, maxU: Double, minV: Double, maxV: Double)?
        for i in hull.indices {
            let a = hull[i], b = hull[(i + 1) % hull.count]
            let length = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            guard length > 0 else { continue }
            let ux = (b.x - a.x) / length, uy = (b.y - a.y) / length
            var minU = Double.infinity, maxU = -Double.infinity, minV = Double.infinity, maxV = -Double.infinity
            for p in hull {
                let u = p.x * ux + p.y * uy, v = -p.x * uy + p.y * ux
                minU = min(minU, u); maxU = max(maxU, u); minV = min(minV, v); maxV = max(maxV, v)
            }
            let area = (maxU - minU) * (maxV - minV)
            if best == nil || area < best!.area - 1e-9 {
                best = (area, atan2(uy, ux), minU, maxU, minV, maxV)
            }
        }
        guard let best else { return nil }
        let (cu, cv) = ((best.minU + best.maxU) / 2, (best.minV + best.maxV) / 2)
        let (c, s) = (cos(best.angle), sin(best.angle))
        let center = Point(cu * c - cv * s, cu * s + cv * c)
        var width = best.maxU - best.minU, height = best.maxV - best.minV
        // The axis nearest to horizontal is the text's: angle folded into (-45°, 45°].
        var angle = best.angle
        while angle > .pi / 2 { angle -= .pi }
        while angle <= -.pi / 2 { angle += .pi }
        if angle > .pi / 4 {
            angle -= .pi / 2
            swap(&width, &height)
        } else if angle <= -.pi / 4 {
            angle += .pi / 2
            swap(&width, &height)
        }
        return TextBox(center: center, width: width, height: height, angle: angle, score: 0)
    }

    /// The convex hull, counter-clockwise (monotone chain).
    static func convexHull(_ points: [Point]) -> [Point] {
        let sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        guard sorted.count >= 3 else { return sorted }
        func cross(_ o: Point, _ a: Point, _ b: Point) -> Double { (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x) }
        var lower: [Point] = [], upper: [Point] = []
        for p in sorted {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        for p in sorted.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// The mean of the map over the pixels whose centres lie inside `box`.
    static func meanProbability(in box: TextBox, map: ProbabilityMap) -> Float {
        let b = box.bounds()
        let x0 = max(0, Int(b.minX.rounded(.down))), x1 = min(map.width - 1, Int(b.maxX.rounded(.up)))
        let y0 = max(0, Int(b.minY.rounded(.down))), y1 = min(map.height - 1, Int(b.maxY.rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return 0 }
        let (along, across) = (box.along, box.across)
        var sum: Float = 0, count = 0
        for y in y0...y1 {
            for x in x0...x1 {
                let dx = Double(x) + 0.5 - box.center.x, dy = Double(y) + 0.5 - box.center.y
                let u = dx * along.x + dy * along.y, v = dx * across.x + dy * across.y
                guard abs(u) <= box.width / 2, abs(v) <= box.height / 2 else { continue }
                sum += map[x, y]
                count += 1
            }
        }
        return count == 0 ? 0 : sum / Float(count)
    }
}
