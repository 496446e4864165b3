import ReceiptModel
import Logging

/// `--analyzer auto`: asks the primary analyzer (a remote one) and, when it fails for any reason,
/// the fallback (the heuristic one), so a receipt is never lost to a network or quota problem.
///
/// A result from the fallback carries `details.fallbackFrom` (the primary's name) and
/// `details.fallbackReason` (the primary's error on one line, without the receipt name, which the
/// record already has). Cancellation is passed on, not treated as a failure.
public struct FallbackAnalyzer: ReceiptAnalyzer {
    public let primary: any ReceiptAnalyzer
    public let fallback: any ReceiptAnalyzer
    /// What the program adds to the primary's error in `fallbackReason` (see `ErrorAdvice`).
    public let advice: ErrorAdvice
    private let logger: Logger

    public init(primary: any ReceiptAnalyzer, fallback: any ReceiptAnalyzer, advice: ErrorAdvice = .none, logger: Logger) {
        self.primary = primary
        self.fallback = fallback
        self.advice = advice
        self.logger = logger
    }

    /// `auto`.
    public var name: String { "auto" }

    public func analyze(_ input: AnalysisInput, options: AnalysisOptions) async throws -> ReceiptAnalysis {
        let reason: String
        do {
            return try await primary.analyze(input, options: options)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as ReceiptError {
            reason = advice.apply(to: error).message
        } catch {
            reason = String(describing: error)
        }
        let line = reason.oneLine
        logger.info("remote analysis failed, using the fallback analyzer", metadata: [
            "receipt.source": "\(input.source)", "analyzer.primary": "\(primary.name)",
            "analyzer.fallback": "\(fallback.name)", "analyzer.fallbackReason": "\(line)",
        ])
        var analysis = try await fallback.analyze(input, options: options)
        analysis.details.append(("fallbackFrom", .string(primary.name)))
        analysis.details.append(("fallbackReason", .string(line)))
        return analysis
    }
}
