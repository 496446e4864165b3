import Synchronization

/// Admits `POST /v1/analyze` requests: at most `slots` analyses at once, and images of at most
/// `pixelBudget` pixels in all being decoded and read at once (an image's decoded pixels are what
/// takes the memory: four 99-megapixel PNGs at once took 550 MB). A request that does not fit is
/// refused at once with 429 and Retry-After, never queued behind the others holding its body.
final class AnalysisGate: Sendable {
    let slots: Int
    let pixelBudget: Int
    private let state = Mutex<(running: Int, pixels: Int)>((0, 0))

    init(slots: Int, pixelBudget: Int) {
        self.slots = max(1, slots)
        self.pixelBudget = max(1, pixelBudget)
    }

    /// Takes a slot and `pixels` of the budget; false when either is used up (one image alone may
    /// use the whole budget).
    func enter(pixels: Int) -> Bool {
        state.withLock { s in
            guard s.running < slots, s.running == 0 || s.pixels + pixels <= pixelBudget else { return false }
            s.running += 1
            s.pixels += pixels
            return true
        }
    }

    func leave(pixels: Int) {
        state.withLock { s in
            s.running -= 1
            s.pixels -= pixels
        }
    }
}
