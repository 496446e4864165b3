/// Further OCR readings of one receipt's image, for an analyzer that wants them.
///
/// The OCR layer implements it (`OCRSession`: the image decoded once, each pass prepared from that);
/// analyzers depend only on this protocol, so a parser-only backend links no OCR. A receipt has a
/// budget of passes; when it is spent `read` answers nil, an ordinary answer and not an error.
public protocol PageReader: Sendable {
    /// Reads the image again as `pass` says (a region, a scale, a binarized page). Nil when the
    /// receipt's budget of passes is spent or the pass could not be read; throws only
    /// `CancellationError`.
    func read(_ pass: OCRPass) async throws -> OCRResult?
    /// Passes this receipt may still take.
    var passesLeft: Int { get }
    /// Passes read so far, the first included.
    var passesRead: Int { get }
    /// The words among `words` that the OCR language's dictionary holds (`BAKERIES` for a
    /// misread `BAKERLES`). Empty when no dictionary is at hand.
    func dictionaryWords(among words: [String]) async throws -> Set<String>
    /// The neural reader's reading of the page (`pass` nil) or of `pass.region` at `pass.scale`, in
    /// the same pixels as the first reading, so both readings can be related word by word. Nil
    /// when no neural reader is at hand or it could not read; throws only `CancellationError`.
    /// It takes nothing from the budget of passes.
    func neuralRead(_ pass: OCRPass?) async throws -> OCRResult?
}

extension PageReader {
    /// No neural reader: a reader that has none need not say so.
    public func neuralRead(_ pass: OCRPass?) async throws -> OCRResult? { nil }
}
