import Foundation
import ReceiptModel
import GRDB

/// Row ↔ model mapping. Ids are lowercase UUID text, money exact decimal text, receipt dates
/// `YYYY-MM-DD`, booleans 0/1.
package enum StoreRows {
    package static let posix = Locale(identifier: "en_US_POSIX")

    package static func text(_ id: UUID) -> String { id.uuidString.lowercased() }
    package static func optionalText(_ id: UUID?) -> String? { id.map { text($0) } }
    package static func money(_ amount: Decimal?) -> String? { amount?.plainString }

    package static func uuid(_ row: Row, _ column: String) -> UUID? {
        (row[column] as String?).flatMap(UUID.init(uuidString:))
    }

    /// Money kept as text, read back by the one money parser (`Money.amount`).
    package static func decimal(_ row: Row, _ column: String) -> Decimal? {
        (row[column] as String?).flatMap { try? Money.amount($0, limits: .stored) }
    }

    package static func receipt(_ row: Row) -> Receipt {
        Receipt(
            id: uuid(row, "id") ?? UUID(),
            filePath: row["filePath"],
            contentHash: row["contentHash"],
            uploadTimestamp: row["uploadTimestamp"],
            ocrStatus: OCRStatus(rawValue: row["ocrStatus"]) ?? .pending,
            ocrResultJson: row["ocrResultJson"],
            ocrText: row["ocrText"],
            analyzer: row["analyzer"],
            attempts: row["attempts"],
            lastError: row["lastError"],
            createdAt: row["createdAt"],
            updatedAt: row["updatedAt"],
            isUploaded: row["isUploaded"],
            expenseId: uuid(row, "expenseId"),
            ownership: ownership(row),
            source: ReceiptSource(stored: row["source"]))
    }

    package static func ownership(_ row: Row) -> Ownership {
        Ownership(owner: row["owner"], group: row["groupName"], externalUser: row["externalUser"],
                  metadata: (row["metadata"] as String?).flatMap { try? JSONValue.parse($0) })
    }

    package static func expense(_ row: Row) -> Expense {
        Expense(
            id: uuid(row, "id") ?? UUID(),
            receiptId: uuid(row, "receiptId") ?? UUID(),
            date: (row["date"] as String?).flatMap(CalendarDate.init(iso:)),
            amount: decimal(row, "amount"),
            currency: row["currency"],
            taxAmount: decimal(row, "taxAmount"),
            category: row["category"],
            description: row["description"],
            isTaxDeductible: row["isTaxDeductible"],
            taxDeductiblePercentage: decimal(row, "taxDeductiblePercentage") ?? 0,
            creationMethod: row["creationMethod"],
            status: ExpenseStatus(rawValue: row["status"]) ?? .draft,
            needsReview: row["needsReview"],
            possibleDuplicateOf: uuid(row, "possibleDuplicateOf"),
            isUploaded: row["isUploaded"],
            lastModified: row["lastModified"],
            confirmedBy: row["confirmedBy"])
    }

    package static func insert(_ r: Receipt, imagePath: String?, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO receipt (id, filePath, contentHash, uploadTimestamp, ocrStatus, ocrResultJson, ocrText,
                    analyzer, attempts, lastError, createdAt, updatedAt, isUploaded, expenseId, imagePath,
                    owner, groupName, externalUser, metadata, source)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [text(r.id), r.filePath, r.contentHash, r.uploadTimestamp, r.ocrStatus.rawValue,
                        r.ocrResultJson, r.ocrText, r.analyzer, r.attempts, r.lastError, r.createdAt, r.updatedAt,
                        r.isUploaded, optionalText(r.expenseId), imagePath,
                        r.ownership.owner, r.ownership.group, r.ownership.externalUser, r.ownership.metadata?.serialized(),
                        r.source?.stored])
    }

    /// Writes the expense with its receipt's `owner`, `groupName` and `externalUser` (copies that
    /// lists and totals filter on; schema `lists-as-queries`).
    package static func insert(_ e: Expense, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO expense (id, receiptId, date, amount, currency, taxAmount, category, description,
                    isTaxDeductible, taxDeductiblePercentage, creationMethod, status, needsReview,
                    possibleDuplicateOf, isUploaded, lastModified, confirmedBy, owner, groupName, externalUser)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                    (SELECT owner FROM receipt WHERE id = ?), (SELECT groupName FROM receipt WHERE id = ?),
                    (SELECT externalUser FROM receipt WHERE id = ?))
                """,
            arguments: [text(e.id), text(e.receiptId), e.date?.description, money(e.amount), e.currency,
                        money(e.taxAmount), e.category, e.description, e.isTaxDeductible,
                        e.taxDeductiblePercentage.plainString, e.creationMethod, e.status.rawValue, e.needsReview,
                        optionalText(e.possibleDuplicateOf), e.isUploaded, e.lastModified, e.confirmedBy,
                        text(e.receiptId), text(e.receiptId), text(e.receiptId)])
    }

    /// One disjunct of who may see: a condition on the columns `owner`, `groupName` and
    /// `externalUser` (which a receipt and its expense both have) that an index leads with.
    package struct Branch {
        package var sql: String
        package var arguments: StatementArguments
    }

    /// Who in `scope` may see, as branches that do not overlap (a receipt is in at most one), on the
    /// table aliased `alias`: none for `.everyone` (no condition); a user's own receipts, then each
    /// group of theirs' receipts that are not their own. Nil when the scope sees nothing.
    package static func branches(_ scope: Scope, alias a: String, _ db: Database) throws -> [Branch]? {
        switch scope {
        case .everyone:
            return []
        case let .owner(name):
            return [Branch(sql: "\(a).owner = ?", arguments: [name])]
        case let .externalUser(external, service):
            return [Branch(sql: "\(a).owner = ? AND \(a).externalUser = ?", arguments: [service, external])]
        case let .user(name):
            let groups = try String.fetchAll(db, sql: "SELECT groupName FROM group_member WHERE userName = ? ORDER BY groupName", arguments: [name])
            return [Branch(sql: "\(a).owner = ?", arguments: [name])]
                + groups.map { Branch(sql: "\(a).groupName = ? AND \(a).owner <> ?", arguments: [$0, name]) }
        }
    }

    /// The SQL condition (on a table aliased `r`, or `receipt` when `alias` is empty) and its
    /// arguments that keep the receipts in `scope`.
    package static func condition(_ scope: Scope, alias: String = "receipt") -> (sql: String, arguments: StatementArguments) {
        let r = alias
        switch scope {
        case .everyone:
            return ("1", [])
        case let .owner(name):
            return ("\(r).owner = ?", [name])
        case let .user(name):
            return ("(\(r).owner = ? OR \(r).groupName IN (SELECT groupName FROM group_member WHERE userName = ?))", [name, name])
        case let .externalUser(external, service):
            return ("(\(r).owner = ? AND \(r).externalUser = ?)", [service, external])
        }
    }
}
