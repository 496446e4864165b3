import CTesseract
import Foundation
import ReceiptModel

/// Leptonica's image pointer. `PIX *` is a typed pointer on Leptonica 1.82 and opaque on ≥ 1.83;
/// this is the one place that names it.
package typealias PixPointer = UnsafeMutablePointer<PIX>

/// Owns exactly one Leptonica `PIX`, destroyed in `deinit`. Not thread-safe; may move between threads.
package final class LeptonicaImage {
    package let pix: PixPointer

    /// Takes ownership of `pix`.
    package init(taking pix: PixPointer) {
        self.pix = pix
    }

    deinit {
        var p: PixPointer? = pix
        pixDestroy(&p)
    }

    package var width: Int { Int(pixGetWidth(pix)) }
    package var height: Int { Int(pixGetHeight(pix)) }
    package var depth: Int { Int(pixGetDepth(pix)) }
    package var pixelCount: Int { width * height }

    /// Applies a Leptonica transform that returns a new PIX; nil when Leptonica returns NULL.
    package func transformed(_ body: (PixPointer) -> PixPointer?) -> LeptonicaImage? {
        guard let out = body(pix) else { return nil }
        return LeptonicaImage(taking: out)
    }

    /// The rectangle cut out (clipped to the image); nil when it lies outside.
    package func clipped(x: Int, y: Int, width: Int, height: Int) -> LeptonicaImage? {
        var box = boxCreateValid(Int32(x), Int32(y), Int32(width), Int32(height))
        defer { boxDestroy(&box) }
        guard let box else { return nil }
        return transformed { pixClipRectangle($0, box, nil) }
    }

    /// The image in 8-bit gray (itself when it is already).
    package func grayscale() -> LeptonicaImage? {
        depth == 8 ? self : transformed { depth == 32 ? pixConvertRGBToLuminance($0) : pixConvertTo8($0, 0) }
    }

    /// The gray level below which `rank` of the pixels lie (every `factor`-th pixel sampled); nil
    /// when Leptonica cannot tell.
    package func grayLevel(rank: Float, factor: Int32 = 1) -> l_uint32? {
        var value: l_uint32 = 0
        return pixGetRankValue(pix, factor, rank, &value) == 0 ? value : nil
    }
}

@available(*, unavailable) extension LeptonicaImage: Sendable {}

package enum Leptonica {
    /// Leptonica prints errors and warnings to stderr; the pipeline reports what matters itself.
    package static let silenced: Void = {
        _ = setMsgSeverity(Int32(L_SEVERITY_NONE))
    }()
}
