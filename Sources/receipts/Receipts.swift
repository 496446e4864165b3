import ArgumentParser

struct Receipts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipts",
        abstract: "Receipt OCR and parsing: images in, expenses out.",
        discussion: """
            Reads receipt images (photos, scans, PDFs, e-mails) with two readers, Tesseract and a neural \
            reader (--reader), finds vendor, date, total, tax, currency and category, and drafts an \
            expense for each. Logs go to stderr; results go to stdout.
            """,
        version: Receipts.version,
        subcommands: [ProcessCommand.self, OCRCommand.self, EvalCommand.self, ListCommand.self, ShowCommand.self, RetryCommand.self, SplitCommand.self,
                      DeleteCommand.self, ExpensesCommand.self, ExpenseCommand.self, ExportCommand.self, WatchCommand.self,
                      ServeCommand.self, WorkerCommand.self, UserCommand.self, GroupCommand.self, TokenCommand.self, WebhooksCommand.self,
                      StoreCommand.self, MailCommand.self, VendorsCommand.self]
    )

    /// `receipts --version`. The HTTP API's version is the `/v1` in its paths.
    static let version = "1.1.0"
}
