/// What a program adds to errors before a person reads them.
///
/// Libraries raise `ReceiptError`s in their own terms; where the remedy is a setting of the program
/// in front (a flag, a command), the error names it with a `hint`. That program builds an
/// `ErrorAdvice` from its hints to its own words (the `receipts` CLI: its flags) and applies it
/// where an error becomes text: a printed line, a stored record (`ReceiptPipeline.Configuration`),
/// a problem document (`ReceiptServer.Configuration`), a fallback's reason. Without advice
/// (`.none`, the default everywhere) errors read as the library wrote them.
public struct ErrorAdvice: Sendable {
    private let texts: [ReceiptError.Hint: String]

    /// `texts[hint]` is appended to the message of an error with that hint.
    public init(_ texts: [ReceiptError.Hint: String] = [:]) {
        self.texts = texts
    }

    /// No advice: errors as the libraries wrote them.
    public static let none = ErrorAdvice()

    /// The advice for `hint` ("" when there is none), for messages that are not errors.
    public subscript(hint: ReceiptError.Hint) -> String {
        texts[hint] ?? ""
    }

    /// `error` with the advice for its hint appended to its message (before its cause). The hint
    /// is used up, so advising twice adds nothing more; an error this advice has nothing for is
    /// returned as it is.
    public func apply(to error: ReceiptError) -> ReceiptError {
        guard let hint = error.hint, let text = texts[hint] else { return error }
        var advised = error
        advised.message += text
        advised.hint = nil
        return advised
    }

    /// Any error: a `ReceiptError` advised, anything else as it is.
    public func apply(to error: any Error) -> any Error {
        guard let error = error as? ReceiptError else { return error }
        return apply(to: error)
    }
}
