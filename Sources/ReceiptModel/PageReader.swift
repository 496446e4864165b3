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
}
