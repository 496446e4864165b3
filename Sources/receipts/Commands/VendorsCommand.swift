import ArgumentParser
import Foundation
import ReceiptKit
import ReceiptServerStore

/// `receipts vendors list|rename|merge|forget|import`: the shops a store remembers (issue 57).
struct VendorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vendors",
        abstract: "List, rename, merge or forget the shops your confirmed receipts taught, or import known merchants.",
        discussion: """
            Each confirmed receipt teaches the memory of shops of its owner (a user's receipts the \
            user's, a group's receipts the group's): the shop under the name the person gave it, the \
            keys that recognise it (tax number, phone, web domain, address, store number, the name as \
            printed) and what the person confirmed (category, deduction, tax rate). A later receipt \
            from a remembered shop is drafted under that name. A shop is named by its id (or the \
            first characters of it, see `list`) or by its name.

            Examples:
              receipts vendors list --user alice
              receipts vendors rename 5f0c "Gardenia" --user alice --apply-to-past
              receipts vendors merge "GARDENIA BAKERIES" "Gardenia" --user alice
              receipts vendors forget "Gardenia" --user alice
              receipts vendors import fuel-cards.csv --group fleet

            The import's CSV has a header row naming its columns: name (required), taxId, phone, web, \
            category (any order, any case). It is all or nothing: a bad row is refused with one line \
            naming the row and the cause, and nothing is imported.
            """,
        subcommands: [List.self, Rename.self, Merge.self, Forget.self, Import.self])

    static let columns = ["id", "name", "book", "category", "receipts", "keys"]

    /// The shop a user named (an id, the start of one, or its name) among those `mine` may see.
    static func find(_ text: String, in mine: ScopedStore) async throws -> RememberedVendor {
        if let id = UUID(uuidString: text), let vendor = try await mine.vendor(id: id) { return vendor }
        var all: [RememberedVendor] = []
        var after: UUID?
        repeat {
            let page = try await mine.vendors(after: after, limit: 500)
            all += page
            after = page.count == 500 ? page.last?.id : nil
        } while after != nil
        let lower = text.lowercased()
        let byName = all.filter { ShopLesson.nameKey($0.name) == ShopLesson.nameKey(text) }
        if byName.count == 1 { return byName[0] }
        let byPrefix = lower.count >= 4 ? all.filter { $0.id.uuidString.lowercased().hasPrefix(lower) } : []
        if byPrefix.count == 1 { return byPrefix[0] }
        if byName.count + byPrefix.count > 1 {
            throw ReceiptError(.ambiguousId, "'\(text)' names more than one remembered shop; give its id (see `receipts vendors list`)")
        }
        throw ReceiptError(.notFound, "no remembered shop '\(text)' (see `receipts vendors list`)")
    }

    /// A record of a shop for the formatter: its keys as `kind:value` joined.
    static func record(_ vendor: RememberedVendor) -> JSONValue {
        var pairs = vendor.json.objectValue ?? []
        if let i = pairs.firstIndex(where: { $0.0 == "book" }) { pairs[i].1 = .string(vendor.book.description) }
        if let i = pairs.firstIndex(where: { $0.0 == "keys" }) {
            pairs[i].1 = .string(vendor.keys.map { "\($0.kind.rawValue):\($0.value)" }.joined(separator: " "))
        }
        return .object(pairs)
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the remembered shops, by name.")
        @OptionGroup var userOptions: ReadingUserOptions
        @Option(help: "Output format: table, json, ndjson or csv (default: table on a terminal, else ndjson).")
        var format: OutputFormatOption?
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await storeOptions.openStore()
            let mine = try await exitingOnReceiptError { try await userOptions.scoped(store) }
            var records: [JSONValue] = []
            var after: UUID?
            repeat {
                let page = try await exitingOnReceiptError { try await mine.vendors(after: after, limit: 500) }
                records += page.map(VendorsCommand.record)
                after = page.count == 500 ? page.last?.id : nil
            } while after != nil
            let formatter = RecordFormatter(format: format?.value ?? .automatic, columns: VendorsCommand.columns)
            FileHandle.standardOutput.write(Data(formatter.render(records).utf8))
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a remembered shop another name (its receipts to come are drafted under it).")
        @Argument(help: "The shop: its id (or the first characters of it) or its name.")
        var vendor: String
        @Argument(help: "Its new name.")
        var name: String
        @Option(help: ArgumentHelp("Its category from now on (one of the taxonomy's).", valueName: "CATEGORY"))
        var category: String?
        @Flag(help: "Also correct the expenses of the receipts that taught it to the new name (and category).")
        var applyToPast = false
        @OptionGroup var userOptions: ReadingUserOptions
        @OptionGroup var pipeline: TaxonomyOption
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            guard name.contains(where: { !$0.isWhitespace }), name.unicodeScalars.count <= ExpenseCorrection.maximumDescriptionLength else {
                throw ValidationError("the new name must not be blank (at most \(ExpenseCorrection.maximumDescriptionLength) characters).")
            }
        }

        func run() async throws {
            let taxonomy = try pipeline.load()
            var change = VendorChange(name: name)
            if let category {
                guard let known = taxonomy.category(named: category) else {
                    throw ValidationError("--category must be one of \(taxonomy.names.joined(separator: ", ")) (got '\(category)').")
                }
                change.category = known.name
            }
            let store = try await storeOptions.openStore()
            let mine = try await exitingOnReceiptError { try await userOptions.scoped(store) }
            let (vendor, corrected) = try await exitingOnReceiptError {
                let found = try await VendorsCommand.find(self.vendor, in: mine)
                let vendor = try await mine.changeVendor(id: found.id, change)
                let corrected = applyToPast ? try await VendorHistory.apply(vendor, change, through: mine, taxonomy: taxonomy) : 0
                return (vendor, corrected)
            }
            var line = "\(vendor.id.uuidString.lowercased().prefix(8)) is now '\(vendor.name)'"
            if applyToPast { line += "; \(corrected) past expense\(corrected == 1 ? "" : "s") corrected" }
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge a remembered shop into another of the same owner (two spellings of one shop).")
        @Argument(help: "The shop to merge (it is forgotten): id, start of id, or name.")
        var vendor: String
        @Argument(help: "The shop it becomes: id, start of id, or name.")
        var into: String
        @OptionGroup var userOptions: ReadingUserOptions
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await storeOptions.openStore()
            let mine = try await exitingOnReceiptError { try await userOptions.scoped(store) }
            let merged = try await exitingOnReceiptError {
                let from = try await VendorsCommand.find(vendor, in: mine), to = try await VendorsCommand.find(into, in: mine)
                return try await mine.mergeVendor(id: from.id, into: to.id)
            }
            FileHandle.standardError.write(Data("merged into '\(merged.name)' (\(merged.receipts) receipt\(merged.receipts == 1 ? "" : "s"))\n".utf8))
        }
    }

    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget a remembered shop and what its receipts taught (the receipts and expenses stay).")
        @Argument(help: "The shop: id, start of id, or name.")
        var vendor: String
        @OptionGroup var userOptions: ReadingUserOptions
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await storeOptions.openStore()
            let mine = try await exitingOnReceiptError { try await userOptions.scoped(store) }
            let name = try await exitingOnReceiptError {
                let found = try await VendorsCommand.find(vendor, in: mine)
                try await mine.forgetVendor(id: found.id)
                return found.name
            }
            FileHandle.standardError.write(Data("forgot '\(name)'\n".utf8))
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import known merchants from a CSV (name, taxId, phone, web, category), all or nothing.")
        @Argument(help: "The CSV file: a header row, then a merchant a row.")
        var file: String
        @Option(help: ArgumentHelp("Into this group's memory (its receipts'); default: the user's own.", valueName: "GROUP"))
        var group: String?
        @OptionGroup var userOptions: ReadingUserOptions
        @OptionGroup var pipeline: TaxonomyOption
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let taxonomy = try pipeline.load()
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                printError("\(file): cannot read it (\(error.localizedDescription))")
                throw ExitCode(1)
            }
            let merchants: [KnownMerchant]
            do {
                merchants = try MerchantCSV.parse(text, taxonomy: taxonomy)
            } catch let error as MerchantCSV.Problem {
                printError("\(file): \(error.message); nothing was imported")
                throw ExitCode(1)
            }
            let store = try await storeOptions.openStore()
            let mine = try await exitingOnReceiptError { try await userOptions.scoped(store) }
            let book: MemoryBook? = group.map(MemoryBook.group) ?? userOptions.user.map(MemoryBook.user)
            let imported = try await exitingOnReceiptError { try await mine.importMerchants(merchants, into: book) }
            FileHandle.standardError.write(Data("imported \(merchants.count) merchant\(merchants.count == 1 ? "" : "s") (\(imported.count) shop\(imported.count == 1 ? "" : "s") remembered)\n".utf8))
        }
    }
}
