/// Which text readers read a receipt: Tesseract, the neural reader (PP-OCR), or both, whose two
/// readings the analyzer weighs against each other.
public enum ReaderChoice: String, Sendable, CaseIterable, Hashable {
    case tesseract, neural, both
}
