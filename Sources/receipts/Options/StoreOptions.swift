import ArgumentParser
import Foundation
import ReceiptKit

/// `--store PATH`, shared by every command that uses the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The receipts database (SQLite; created on first use, images kept in images/ beside it).",
        discussion: """
            Precedence: --store PATH, else $RECEIPTS_STORE, else $XDG_DATA_HOME/receipts/receipts.sqlite, \
            else ~/.local/share/receipts/receipts.sqlite.
            """,
        valueName: "path"))
    var store: String?

    /// The store file, by the precedence above.
    func resolvedPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let store, !store.isEmpty { return store }
        if let fromEnvironment = environment["RECEIPTS_STORE"], !fromEnvironment.isEmpty { return fromEnvironment }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/receipts/receipts.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/receipts/receipts.sqlite"
    }

    func openStore() throws -> SQLiteReceiptStore {
        try SQLiteReceiptStore(path: resolvedPath())
    }
}

extension StoreOptions {
    /// Parses `YYYY-MM-DD` for `--from` / `--to`.
    static func date(_ text: String?, option: String) throws -> CalendarDate? {
        guard let text else { return nil }
        guard let date = CalendarDate(iso: text) else {
            throw ValidationError("\(option) expects a date as YYYY-MM-DD, got '\(text)'")
        }
        return date
    }
}
