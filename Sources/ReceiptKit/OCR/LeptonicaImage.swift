import CTesseract
import Foundation

/// Leptonica's image pointer. `PIX *` is a typed pointer on Leptonica 1.82 and opaque on ≥ 1.83;
/// this is the one place that names it.
typealias PixPointer = UnsafeMutablePointer<PIX>

/// Owns exactly one Leptonica `PIX`, destroyed in `deinit`. Not thread-safe; may move between threads.
final class LeptonicaImage {
    let pix: PixPointer

    /// Takes ownership of `pix`.
    init(taking pix: PixPointer) {
        self.pix = pix
    }

    deinit {
        var p: PixPointer? = pix
        pixDestroy(&p)
    }

    var width: Int { Int(pixGetWidth(pix)) }
    var height: Int { Int(pixGetHeight(pix)) }
    var depth: Int { Int(pixGetDepth(pix)) }
    var pixelCount: Int { width * height }

    /// Applies a Leptonica transform that returns a new PIX; nil when Leptonica returns NULL.
    func transformed(_ body: (PixPointer) -> PixPointer?) -> LeptonicaImage? {
        guard let out = body(pix) else { return nil }
        return LeptonicaImage(taking: out)
    }
}

@available(*, unavailable) extension LeptonicaImage: Sendable {}

enum Leptonica {
    /// Leptonica prints errors and warnings to stderr; the pipeline reports what matters itself.
    static let silenced: Void = {
        _ = setMsgSeverity(Int32(L_SEVERITY_NONE))
    }()
}
