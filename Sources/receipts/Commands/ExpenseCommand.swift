import ArgumentParser
import Foundation
import ReceiptKit

/// `receipts expense edit|confirm ID`: the review step on the command line, with the checks and
/// the record of corrections of `PATCH /v1/expenses/{id}` (`ExpenseCorrection`).
struct ExpenseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expense",
        abstract: "Correct or confirm one drafted expense.",
        discussion: """
            ID is the expense's id, or its receipt's id (or the first 4+ characters of it) as `receipts \
            list` and `receipts expenses` print them. What the analyzer had drafted for each corrected \
            field is kept (see `receipts show`, `receipts export`), as through the HTTP API.
            """,
        subcommands: [Edit.self, Confirm.self])

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Correct fields of an expense (and confirm it with --confirm).",
            discussion: """
                Money is a plain decimal (12.50, or -3 for a refund: --amount -3; no exponent, grouping \
                or currency sign), at most 4 decimals. A category is one of the taxonomy's (case-insensitive; see --taxonomy): a new \
                one brings its deduction rule unless --deductible/--no-deductible or \
                --deductible-percentage say otherwise. A currency is an ISO 4217 code. 'none' clears \
                --date, --amount, --tax-amount and --currency. The expense is printed as JSON. A \
                confirmed expense (a person's record) is changed only with --force.

                Exit status: 0, 1 when the expense or the store cannot be found or used or the expense \
                is confirmed (without --force), 2 for a value that is not valid (nothing is changed).

                Example: receipts expense edit 3f2a --amount 42.10 --category Fuel --confirm
                """)

        @Argument(help: "The expense's id, or its receipt's id (or its first 4+ characters).")
        var id: String

        @Option(help: ArgumentHelp("The receipt date, YYYY-MM-DD (or none).", valueName: "date"))
        var date: String?
        // (.unconditional: `--amount -5` is a refund, not an option named 5.)
        @Option(parsing: .unconditional, help: ArgumentHelp("The total, e.g. 12.50 or -5 (or none).", valueName: "amount"))
        var amount: String?
        @Option(name: .customLong("tax-amount"), parsing: .unconditional, help: ArgumentHelp("The tax, e.g. 2.08 (or none).", valueName: "amount"))
        var taxAmount: String?
        @Option(help: ArgumentHelp("ISO 4217 code, e.g. GBP (or none).", valueName: "code"))
        var currency: String?
        @Option(help: ArgumentHelp("A category of the taxonomy, e.g. Fuel.", valueName: "name"))
        var category: String?
        @Option(help: ArgumentHelp("The vendor (the expense's description).", valueName: "name"))
        var vendor: String?
        @Flag(inversion: .prefixedNo, help: "Whether the expense is tax deductible (--no-deductible: it is not).")
        var deductible: Bool?
        @Option(name: .customLong("deductible-percentage"), help: ArgumentHelp("The deductible share, 0 to 100.", valueName: "percent"))
        var deductiblePercentage: String?
        @Flag(help: "Also confirm the expense (reviewed).")
        var confirm = false
        @Flag(help: "Change even an expense that is confirmed.")
        var force = false
        @Option(help: ArgumentHelp("The taxonomy file the server or pipeline uses (default: the built-in one).", valueName: "file"))
        var taxonomy: String?

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var userOptions: ReadingUserOptions

        func run() async throws {
            var fields: [(String, JSONValue)] = []
            func text(_ name: String, _ value: String?, nullable: Bool = true) {
                guard let value else { return }
                fields.append((name, nullable && value.lowercased() == "none" ? .null : .string(value)))
            }
            text("date", date)
            text("amount", amount)
            text("taxAmount", taxAmount)
            text("currency", currency)
            text("category", category, nullable: false)
            text("description", vendor, nullable: false)
            if let deductible { fields.append(("isTaxDeductible", .bool(deductible))) }
            text("taxDeductiblePercentage", deductiblePercentage, nullable: false)
            if confirm { fields.append(("status", .string("confirmed"))) }
            guard !fields.isEmpty else { throw ValidationError("nothing to change: give a field to correct, or --confirm") }
            try await ExpenseCommand.save(.object(fields), id: id, taxonomyFile: taxonomy, storeOptions: storeOptions, userOptions: userOptions,
                                          changingConfirmed: force)
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Confirm an expense as drafted (or as corrected): it is reviewed.")

        @Argument(help: "The expense's id, or its receipt's id (or its first 4+ characters).")
        var id: String

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var userOptions: ReadingUserOptions

        func run() async throws {
            try await ExpenseCommand.save(.object([("status", .string("confirmed"))]), id: id, taxonomyFile: nil, storeOptions: storeOptions,
                                          userOptions: userOptions, changingConfirmed: true)
        }
    }

    /// Checks the fields (exit 2 naming the field), saves them, prints the expense and its
    /// corrections. A confirmed expense is a person's record: changed only with `changingConfirmed`
    /// (`--force`), as `receipts delete` keeps its receipt.
    static func save(_ fields: JSONValue, id: String, taxonomyFile: String?, storeOptions: StoreOptions,
                     userOptions: ReadingUserOptions, changingConfirmed: Bool) async throws {
        let taxonomy = try loadTaxonomy(taxonomyFile)
        let correction: ExpenseCorrection
        do {
            correction = try ExpenseCorrection(json: fields, taxonomy: taxonomy)
        } catch {
            printError(cliSpelling(error.message))
            throw ExitCode(2)
        }
        do {
            let store = try await storeOptions.openStore()
            let mine = try await userOptions.scoped(store)
            let expense = try await find(id, in: mine)
            if expense.status == .confirmed, !changingConfirmed {
                throw ReceiptError(.invalidState, "expense \(expense.id.uuidString.lowercased()) is confirmed (a person's record): pass --force to change it",
                                   file: mine.location)
            }
            let saved = try await mine.correct(expenseId: expense.id, with: correction, taxonomy: taxonomy)
            let record = JSONValue.object([("expense", saved.json), ("corrections", try await mine.corrections(ofExpense: saved.id))])
            print(record.prettySerialized())
        } catch let error as ReceiptError {
            printError(error)
            throw ExitCode(1)
        }
    }

    /// The expense named by its id, or by its receipt's id or id prefix.
    static func find(_ id: String, in store: ScopedStore) async throws -> Expense {
        if let uuid = UUID(uuidString: id) {
            if let expense = try await store.expense(id: uuid) { return expense }
            if let expense = try await store.expense(receiptId: uuid) { return expense }
        }
        let receipt: Receipt
        do {
            receipt = try await store.receipt(idPrefix: id)
        } catch let error as ReceiptError where error.code == .notFound {
            throw ReceiptError(.notFound, "'\(id)' is neither an expense's id nor a receipt's (give either, or the first 4+ characters of the receipt's; "
                               + "see `receipts expenses`)", file: store.location)
        }
        guard let expense = try await store.expense(receiptId: receipt.id) else {
            throw ReceiptError(.notFound, "receipt \(receipt.id.uuidString.lowercased()) has no expense (it is \(receipt.ocrStatus.rawValue))",
                               file: store.location)
        }
        return expense
    }

    /// The API's field names as this command's options, in a message.
    private static func cliSpelling(_ message: String) -> String {
        var text = message
        for (field, option) in [("taxDeductiblePercentage", "--deductible-percentage"), ("isTaxDeductible", "--deductible"),
                                ("taxAmount", "--tax-amount"), ("description", "--vendor"), ("amount", "--amount"),
                                ("currency", "--currency"), ("category", "--category"), ("date", "--date")] where text.hasPrefix(field + " ") {
            text = option + text.dropFirst(field.count)
            break
        }
        // The API clears a field with null; this command with the word none.
        return text.replacingOccurrences(of: "or null", with: "or none")
    }
}
