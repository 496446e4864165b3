import ReceiptKit

/// Remedies a program names in its own terms (`receipts serve`: its flags), appended by the
/// `ErrorAdvice` of `ReceiptServer.Configuration`.
extension ReceiptError.Hint {
    /// An upload above `Configuration.maxUploadBytes`.
    public static let maxUploadSize = Self("maxUploadSize")
    /// `Configuration.maxPending` receipts are waiting.
    public static let maxPending = Self("maxPending")
    /// No API token is active, and the host is not loopback.
    public static let apiTokens = Self("apiTokens")
    /// The port is taken by another process.
    public static let portInUse = Self("portInUse")
    /// The port needs privileges.
    public static let portPrivileged = Self("portPrivileged")
    /// The host is not an address of this machine.
    public static let hostAddress = Self("hostAddress")
}
