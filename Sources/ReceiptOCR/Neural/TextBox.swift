import Foundation

/// A point in image pixels (x to the right, y down).
package struct Point: Sendable, Equatable {
    package var x: Double
    package var y: Double
    package init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}

/// A rotated rectangle around a piece of text: `width` runs along the text (the rectangle's axis
/// nearest to horizontal, at `angle` radians, within ±45°), `height` across it.
package struct TextBox: Sendable, Equatable {
    package var center: Point
    package var width: Double
    package var height: Double
    package var angle: Double
    /// Mean text probability inside the box, 0–1.
    package var score: Float

    package init(center: Point, width: Double, height: Double, angle: Double, score: Float) {
        self.center = center
        self.width = width
        self.height = height
        self.angle = angle
        self.score = score
    }

    /// Unit vector along the text.
    package var along: Point { Point(cosine, sine) }
    /// Unit vector across the text, downwards.
    package var across: Point { Point(-sine, cosine) }
    private var cosine: Double { cos(angle) }
    private var sine: Double { sin(angle) }

    /// The point at fraction `u` (0 left … 1 right) along the text and `v` (0 top … 1 bottom) across.
    package func point(u: Double, v: Double) -> Point {
        let a = (u - 0.5) * width, b = (v - 0.5) * height
        return Point(center.x + a * along.x + b * across.x, center.y + a * along.y + b * across.y)
    }

    /// Top-left, top-right, bottom-right, bottom-left.
    package var corners: [Point] { [point(u: 0, v: 0), point(u: 1, v: 0), point(u: 1, v: 1), point(u: 0, v: 1)] }

    /// The upright rectangle around the part from `u0` to `u1` along the text, in whole pixels.
    package func bounds(u0: Double = 0, u1: Double = 1) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let points = [point(u: u0, v: 0), point(u: u1, v: 0), point(u: u1, v: 1), point(u: u0, v: 1)]
        return (points.map(\.x).min()!, points.map(\.y).min()!, points.map(\.x).max()!, points.map(\.y).max()!)
    }

    /// The same box in an image scaled by `sx` horizontally and `sy` vertically.
    package func scaled(_ sx: Double, _ sy: Double) -> TextBox {
        let w = Point(width * along.x * sx, width * along.y * sy)
        let h = Point(height * across.x * sx, height * across.y * sy)
        return TextBox(center: Point(center.x * sx, center.y * sy), width: (w.x * w.x + w.y * w.y).squareRoot(),
                       height: (h.x * h.x + h.y * h.y).squareRoot(), angle: atan2(w.y, w.x), score: score)
    }
}

