import Foundation

/// How the neural reader runs. A `Sendable` value with defaults for everything but the folder.
public struct NeuralConfiguration: Sendable, Equatable {
    /// The folder `make neural` fills: `lib/` (the OpenVINO runtime) and one folder a model set.
    public var directory: String
    /// PP-OCRv4's detector with PP-OCRv6 small's recognizer by default: of the three ways to use
    /// v6 small measured (docs/neural-reader.md), the best held out on vendors, dates and taxes,
    /// and the cheapest in memory.
    public var modelSet: NeuralModelSet
    /// The model set that reads the page's header band again (the rows above its first priced row,
    /// where the shop's name is printed in logos and display type), its rows taking the place of
    /// `modelSet`'s there; nil reads the page with `modelSet` alone.
    public var headerModelSet: NeuralModelSet?

    /// The most top rows `headerModelSet` reads again (fewer when a price is printed sooner).
    public var headerRows = 4

    /// The set that reads the header band again: `headerModelSet`, unless the page is read with it.
    public var headerReading: NeuralModelSet? { headerModelSet == modelSet ? nil : headerModelSet }
    /// The detector's input: the page is scaled so that its short side is at least `minimumSide`
    /// and its long side at most `maximumSide`, then to multiples of 32 (RapidOCR's 736 and 2000).
    public var detectorMinimumSide: Int
    public var detectorMaximumSide: Int
    /// …and at most this many pixels in all, whatever its sides: the detector's time and working
    /// memory grow with its input's pixels, and a tall receipt keeps its print size better scaled
    /// evenly than by its long side alone.
    public var detectorMaximumPixels: Int
    /// Text boxes recognized in one inference (sorted by width, padded to the widest of the batch).
    public var batchSize: Int
    /// Narrowest recognizer input in pixels: a batch of short words is padded to it.
    public var recognizerMinimumWidth: Int
    /// Most crop width in one recognizer batch (its rows times its padded width): long rows are read
    /// fewer at a time. The recognizer's working memory grows with it: 42 MB at 8 × 320, 68 MB at
    /// 8 × 640, 167 MB at 8 × 1920 (PP-OCRv4). No limit by default: 2560 cut a 2-worker run's peak
    /// RSS by a tenth but changed the padding, and so the readings, and the held-out unflagged
    /// shares fell (docs/neural-reader.md); `--rec-batch-width` sets it.
    public var recognizerBatchWidth: Int
    /// Read crops narrower than `recognizerMinimumWidth` side by side in shared input rows
    /// (`TextRecognizer.rows`) instead of padding each to that width.
    public var recognizerPacking: Bool
    /// Pixels between two crops sharing an input row.
    public var recognizerPackingGap: Int
    /// Feed the models the page in gray (replicated to three channels) even when it is in colour.
    public var grayInput: Bool

    public init(directory: String, modelSet: NeuralModelSet = .ppocrV4DetectorV6SmallRecognizer, headerModelSet: NeuralModelSet? = nil, detectorMinimumSide: Int = 736,
                detectorMaximumSide: Int = 2000, detectorMaximumPixels: Int = 800_000, batchSize: Int = 8, recognizerMinimumWidth: Int = 320, recognizerBatchWidth: Int = .max,
                recognizerPacking: Bool = false, recognizerPackingGap: Int = 32, grayInput: Bool = false) {
        self.directory = directory
        self.modelSet = modelSet
        self.headerModelSet = headerModelSet
        self.detectorMinimumSide = detectorMinimumSide
        self.detectorMaximumSide = detectorMaximumSide
        self.detectorMaximumPixels = detectorMaximumPixels
        self.batchSize = batchSize
        self.recognizerMinimumWidth = recognizerMinimumWidth
        self.recognizerBatchWidth = recognizerBatchWidth
        self.recognizerPacking = recognizerPacking
        self.recognizerPackingGap = recognizerPackingGap
        self.grayInput = grayInput
    }

    /// Where `make neural` installs beside an executable built by SwiftPM:
    /// `.build/release/receipts` → `.build/neural`. SwiftPM's `release` is a link to
    /// `<triple>/release`, so from the executable's real folder the one two levels up is taken
    /// when the one a level up does not exist.
    public static func directory(besideExecutable executable: String) -> String {
        let bin = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let near = bin.deletingLastPathComponent().appendingPathComponent("neural").standardizedFileURL.path
        let far = bin.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("neural").standardizedFileURL.path
        return !FileManager.default.fileExists(atPath: near) && FileManager.default.fileExists(atPath: far) ? far : near
    }

    /// The folder to use: `explicit` (a flag), else the environment's `RECEIPTS_NEURAL_DIR`, else the
    /// one beside `executable`. The caller (the executable) passes its environment.
    public static func resolveDirectory(explicit: String?, environment: [String: String], executable: String) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let fromEnvironment = environment["RECEIPTS_NEURAL_DIR"], !fromEnvironment.isEmpty { return fromEnvironment }
        return directory(besideExecutable: executable)
    }
}
