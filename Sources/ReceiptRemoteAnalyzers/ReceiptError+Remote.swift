import ReceiptModel

/// The codes of remote analyzers.
extension ReceiptError.Code {
    /// A remote analyzer's server failed or refused.
    public static let remoteFailed = Self("remoteFailed")
    /// A remote analyzer answered with something that is not an analysis.
    public static let invalidResponse = Self("invalidResponse")
}
