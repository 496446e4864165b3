import ReceiptModel

/// The codes of analyzers.
extension ReceiptError.Code {
    /// An analyzer is set up wrongly (its learned model's parameters; a remote analyzer's key, URL
    /// or prompt file).
    public static let configuration = Self("configuration")
}
