import ArgumentParser

@main
struct Receipts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipts",
        abstract: "Receipt OCR and parsing: images in, expenses out.",
        subcommands: [ListCommand.self, ShowCommand.self, RetryCommand.self, ExpensesCommand.self, ExportCommand.self]
    )
}
