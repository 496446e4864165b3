import ReceiptModel

extension PageReader {
    /// A further pass, or nil when the reader has none left or it failed: a failed pass leaves the
    /// readings already made. Only cancellation stops the analysis.
    func further(_ pass: OCRPass) async throws -> OCRResult? {
        do {
            return try await read(pass)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return nil
        }
    }
}
