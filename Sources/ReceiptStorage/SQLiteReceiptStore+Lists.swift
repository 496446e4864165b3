import Foundation
import GRDB
import ReceiptModel

/// Lists, counts and totals as queries the indexes answer (schema `lists-as-queries`): a page costs
/// about its own rows, whatever the store holds and however deep the page.
///
/// Who may see is a disjunction of conditions, each an equality an index leads with (`owner = ?`,
/// `groupName = ?`, …; `StoreRows.branches`): each branch reads its first `limit` rows in the
/// listing's order from its own index, and the branches' rows are merged (`UNION ALL`, then the
/// same order and limit). A page after another starts at its cursor row's sort key (keyset paging),
/// so page 1,000 costs what page 1 does.
extension SQLiteReceiptStore {
    public func receipts(_ query: ReceiptQuery, in scope: Scope) async throws -> [Receipt] {
        let location = self.location
        return try await read { db in
            guard let branches = try StoreRows.branches(scope, alias: "receipt", db) else { return [] }
            var filters = Self.receiptFilters(query)
            if let after = query.after {
                let cursor = try Self.receiptCursor(after, branches: branches, filters: filters, db)
                guard let cursor else {
                    throw ReceiptError(.notFound, "after names no receipt of this listing (deleted, or not matching the filters)", file: location)
                }
                filters.append(("receipt.createdAt <= ? AND (receipt.createdAt < ? OR receipt.rowid < ?)",
                                [cursor.createdAt, cursor.createdAt, cursor.rowid]))
            }
            let limit = max(0, query.limit ?? Int.max)
            let (sql, arguments) = Self.merged(branches: branches, filters: filters,
                                               select: "receipt.*, receipt.rowid AS _seq, receipt.createdAt AS _key1",
                                               from: "receipt", order: "receipt.createdAt DESC, receipt.rowid DESC",
                                               outerOrder: "_key1 DESC, _seq DESC", limit: limit)
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(StoreRows.receipt)
        }
    }

    /// The conditions of `query` on the table `receipt`. `needsReview = 1` is written as a literal:
    /// SQLite uses a partial index only for a condition it can read in the statement.
    static func receiptFilters(_ query: ReceiptQuery, alias a: String = "receipt") -> [(String, StatementArguments)] {
        var filters: [(String, StatementArguments)] = []
        if let externalUser = query.externalUser { filters.append(("\(a).externalUser = ?", [externalUser])) }
        if let owner = query.owner { filters.append(("\(a).owner = ?", [owner])) }
        if let status = query.status { filters.append(("\(a).ocrStatus = ?", [status.rawValue])) }
        if let needsReview = query.needsReview { filters.append((needsReview ? "\(a).needsReview = 1" : "\(a).needsReview IS NOT 1", [])) }
        if let from = query.submittedFrom { filters.append(("\(a).uploadTimestamp >= ?", [from])) }
        if let before = query.submittedBefore { filters.append(("\(a).uploadTimestamp < ?", [before])) }
        return filters
    }

    /// `idCondition` on `id`, the visibility `branches` (any of them) and every filter, with their arguments.
    private static func byID(_ id: UUID, _ idCondition: String, branches: [StoreRows.Branch],
                             filters: [(String, StatementArguments)]) -> (conditions: [String], arguments: StatementArguments) {
        var arguments: StatementArguments = [StoreRows.text(id)]
        var conditions = [idCondition]
        if !branches.isEmpty {
            conditions.append("(" + branches.map { "(" + $0.sql + ")" }.joined(separator: " OR ") + ")")
            for branch in branches { arguments += branch.arguments }
        }
        for (sql, values) in filters {
            conditions.append(sql)
            arguments += values
        }
        return (conditions, arguments)
    }

    /// The sort key of the receipt `id` when it is in the listing (visible, matching `filters`).
    private static func receiptCursor(_ id: UUID, branches: [StoreRows.Branch], filters: [(String, StatementArguments)],
                                      _ db: Database) throws -> (createdAt: String, rowid: Int64)? {
        let (conditions, arguments) = byID(id, "receipt.id = ?", branches: branches, filters: filters)
        guard let row = try Row.fetchOne(db, sql: "SELECT createdAt, rowid FROM receipt WHERE " + conditions.joined(separator: " AND "),
                                         arguments: arguments) else { return nil }
        return (row[0], row[1])
    }

    /// One statement for a page: each branch's first `limit` rows in `order` (from its own index),
    /// merged in `outerOrder` (the same order, by the names `select` gives the keys). No branches:
    /// every row.
    static func merged(branches: [StoreRows.Branch], filters: [(String, StatementArguments)], select: String, from: String,
                       order: String, outerOrder: String, limit: Int) -> (String, StatementArguments) {
        func part(_ branch: StoreRows.Branch?) -> (String, StatementArguments) {
            var conditions: [String] = []
            var arguments = StatementArguments()
            if let branch {
                conditions.append(branch.sql)
                arguments += branch.arguments
            }
            for (sql, values) in filters {
                conditions.append(sql)
                arguments += values
            }
            let condition = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            return ("SELECT \(select) FROM \(from)\(condition) ORDER BY \(order) LIMIT \(limit)", arguments)
        }
        if branches.isEmpty { return part(nil) }
        if branches.count == 1 { return part(branches[0]) }
        var sql: [String] = []
        var arguments = StatementArguments()
        for branch in branches {
            let (text, values) = part(branch)
            sql.append("SELECT * FROM (\(text))")
            arguments += values
        }
        return (sql.joined(separator: " UNION ALL ") + " ORDER BY \(outerOrder) LIMIT \(limit)", arguments)
    }

    // MARK: Expenses

    public func expenses(_ query: ExpenseQuery, in scope: Scope) async throws -> [Expense] {
        try await expenseListings(query, in: scope).map(\.expense)
    }

    public func expenseListings(_ query: ExpenseQuery, in scope: Scope) async throws -> [ExpenseListing] {
        let location = self.location
        return try await read { db in
            guard let branches = try StoreRows.branches(scope, alias: "e", db) else { return [] }
            var filters = Self.expenseFilters(query)
            if let after = query.after {
                guard let cursor = try Self.expenseCursor(after, branches: branches, filters: filters, db) else {
                    throw ReceiptError(.notFound, "after names no expense of this listing (deleted, or not matching the filters)", file: location)
                }
                let key = StoreSchema.expenseDateKey(alias: "e")
                filters.append(("\(key) >= ? AND (\(key) > ? OR e.lastModified > ? OR (e.lastModified = ? AND e.rowid > ?))",
                                [cursor.key, cursor.key, cursor.lastModified, cursor.lastModified, cursor.rowid]))
            }
            let key = StoreSchema.expenseDateKey(alias: "e")
            let (sql, arguments) = Self.merged(
                branches: branches, filters: filters,
                select: "e.*, e.rowid AS _seq, \(key) AS _key1, e.lastModified AS _key2, r.filePath AS _receiptFile",
                from: "expense e JOIN receipt r ON r.id = e.receiptId", order: "\(key), e.lastModified, e.rowid",
                outerOrder: "_key1, _key2, _seq", limit: max(0, query.limit ?? Int.max))
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                ExpenseListing(expense: StoreRows.expense(row), receiptFile: row["_receiptFile"], owner: row["owner"],
                               corrections: (row["corrections"] as String?).flatMap { try? JSONValue.parse($0) } ?? .object([]))
            }
        }
    }

    /// The conditions of `query` on the table `expense e`. A date range reads the date index
    /// (whose key puts expenses without a date last).
    static func expenseFilters(_ query: ExpenseQuery, alias a: String = "e") -> [(String, StatementArguments)] {
        var filters: [(String, StatementArguments)] = []
        let key = StoreSchema.expenseDateKey(alias: a)
        if let externalUser = query.externalUser { filters.append(("\(a).externalUser = ?", [externalUser])) }
        if let from = query.from { filters.append(("\(key) >= ? AND \(a).date IS NOT NULL", [from.description])) }
        if let to = query.to { filters.append(("\(key) <= ?", [to.description])) }
        if let category = query.category { filters.append(("\(a).category = ? COLLATE NOCASE", [category])) }
        if let status = query.status { filters.append(("\(a).status = ?", [status.rawValue])) }
        if let needsReview = query.needsReview { filters.append(("\(a).needsReview = ?", [needsReview])) }
        return filters
    }

    private static func expenseCursor(_ id: UUID, branches: [StoreRows.Branch], filters: [(String, StatementArguments)],
                                      _ db: Database) throws -> (key: String, lastModified: String, rowid: Int64)? {
        let (conditions, arguments) = byID(id, "e.id = ?", branches: branches, filters: filters)
        guard let row = try Row.fetchOne(db, sql: "SELECT \(StoreSchema.expenseDateKey(alias: "e")), e.lastModified, e.rowid FROM expense e WHERE "
                                         + conditions.joined(separator: " AND "), arguments: arguments) else { return nil }
        return (row[0], row[1], row[2])
    }

    public func expenses(ofReceipts ids: [UUID], in scope: Scope) async throws -> [Expense] {
        guard !ids.isEmpty else { return [] }
        return try await read { db in
            // `+e.owner`: the scope's columns are not to be read by an index (an owner's index would
            // walk all their expenses); the page's receipt ids, by receiptId's, find the rows.
            guard let branches = try StoreRows.branches(scope, alias: "+e", db) else { return [] }
            var arguments = StatementArguments(ids.map(StoreRows.text))
            var sql = "SELECT e.* FROM expense e WHERE e.receiptId IN (\(databaseQuestionMarks(count: ids.count)))"
            if !branches.isEmpty {
                sql += " AND (" + branches.map { "(" + $0.sql + ")" }.joined(separator: " OR ") + ")"
                for branch in branches { arguments += branch.arguments }
            }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(StoreRows.expense)
        }
    }

    // MARK: Totals and counts

    /// Totals from `expense_total` (kept by triggers: a row per owner, group, currency, category,
    /// month, status, review flag and duplicate flag) when the query allows: a few thousand rows
    /// summed, whatever the number of expenses. A date range, or a backend's end user (not a
    /// dimension there), is summed from the expenses instead, through an index that covers it.
    public func expenseTotals(_ query: ExpenseQuery, in scope: Scope) async throws -> ExpenseTotals {
        try await read { db in
            guard let branches = try StoreRows.branches(scope, alias: "t", db) else { return ExpenseTotals(rows: [], possibleDuplicates: 0) }
            let fromTotals = query.from == nil && query.to == nil && query.externalUser == nil && !scope.isEndUser
            var totals = TotalsAccumulator()
            for branch in branches.isEmpty ? [nil] : branches.map(Optional.some) {
                var conditions: [String] = []
                var arguments = StatementArguments()
                if let branch {
                    conditions.append(branch.sql)
                    arguments += branch.arguments
                }
                let statement: String
                if fromTotals {
                    if let category = query.category { conditions.append("t.category = ? COLLATE NOCASE"); arguments += [category] }
                    if let status = query.status { conditions.append("t.status = ?"); arguments += [status.rawValue] }
                    if let needsReview = query.needsReview { conditions.append("t.needsReview = ?"); arguments += [needsReview] }
                    conditions.append("t.priced > 0")
                    statement = """
                        SELECT nullif(t.currency, '') AS currency, t.category, nullif(t.month, '') AS month, t.duplicate,
                            sum(t.priced) AS n, sum(t.totalMinor) AS total
                        FROM expense_total t WHERE \(conditions.joined(separator: " AND ")) GROUP BY 1, 2, 3, 4
                        """
                } else {
                    for (sql, values) in Self.expenseFilters(query, alias: "t") {
                        conditions.append(sql)
                        arguments += values
                    }
                    conditions.append("t.amount IS NOT NULL")
                    statement = """
                        SELECT t.currency, t.category, substr(t.date, 1, 7) AS month,
                            t.possibleDuplicateOf IS NOT NULL AND t.status = 'draft' AS duplicate, count(*) AS n, sum(t.amountMinor) AS total
                        FROM expense t WHERE \(conditions.joined(separator: " AND ")) GROUP BY 1, 2, 3, 4
                        """
                }
                for row in try Row.fetchAll(db, sql: statement, arguments: arguments) {
                    totals.add(currency: row["currency"], category: row["category"], month: row["month"], duplicate: row["duplicate"],
                               count: row["n"], minor: Decimal((row["total"] as Int64?) ?? 0))
                }
            }
            return totals.result
        }
    }

    public func inboxCounts(_ query: ReceiptQuery, in scope: Scope, cap: Int) async throws -> InboxCounts {
        try await read { db in
            guard let branches = try StoreRows.branches(scope, alias: "receipt", db) else {
                return InboxCounts(review: 0, failed: 0, reading: 0, done: 0, confirmed: 0, cap: cap)
            }
            var base = query
            base.status = nil
            base.needsReview = nil
            let filters = Self.receiptFilters(base)
            /// The receipts in one state, counted up to `cap` over all branches.
            func count(_ state: [(String, StatementArguments)]) throws -> Int {
                var total = 0
                for branch in branches.isEmpty ? [nil] : branches.map(Optional.some) {
                    var conditions: [String] = []
                    var arguments = StatementArguments()
                    if let branch {
                        conditions.append(branch.sql)
                        arguments += branch.arguments
                    }
                    for (sql, values) in filters + state {
                        conditions.append(sql)
                        arguments += values
                    }
                    total += try Int.fetchOne(db, sql: """
                        SELECT count(*) FROM (SELECT 1 FROM receipt WHERE \(conditions.joined(separator: " AND ")) LIMIT \(cap - total))
                        """, arguments: arguments) ?? 0
                    if total >= cap { return cap }
                }
                return total
            }
            /// Expenses in one state: from `expense_total` when the listing allows (exact, a few rows),
            /// else counted on the expenses up to `cap`.
            func expenses(_ state: String) throws -> Int {
                let totalBranches = try StoreRows.branches(scope, alias: "t", db) ?? []
                if query.externalUser == nil, !scope.isEndUser {
                    var total = 0
                    for branch in totalBranches.isEmpty ? [nil] : totalBranches.map(Optional.some) {
                        var conditions = [state.replacingOccurrences(of: "e.", with: "t.")]  // (the state names columns both tables have)
                        var arguments = StatementArguments()
                        if let branch { conditions.append(branch.sql); arguments += branch.arguments }
                        if let owner = query.owner { conditions.append("t.owner = ?"); arguments += [owner] }
                        total += try Int.fetchOne(db, sql: "SELECT ifnull(sum(t.count), 0) FROM expense_total t WHERE "
                                                  + conditions.joined(separator: " AND "), arguments: arguments) ?? 0
                    }
                    return Swift.min(total, cap)
                }
                var total = 0
                let expenseBranches = try StoreRows.branches(scope, alias: "e", db) ?? []
                for branch in expenseBranches.isEmpty ? [nil] : expenseBranches.map(Optional.some) {
                    var conditions = [state]
                    var arguments = StatementArguments()
                    if let branch { conditions.append(branch.sql); arguments += branch.arguments }
                    // The listing's owner and end user, on the expense (which keeps its receipt's).
                    for (sql, values) in Self.receiptFilters(base, alias: "e") {
                        conditions.append(sql)
                        arguments += values
                    }
                    total += try Int.fetchOne(db, sql: """
                        SELECT count(*) FROM (SELECT 1 FROM expense e WHERE \(conditions.joined(separator: " AND ")) LIMIT \(cap - total))
                        """, arguments: arguments) ?? 0
                    if total >= cap { return cap }
                }
                return total
            }
            return InboxCounts(
                review: try count([("receipt.needsReview = 1", [])]),
                failed: try count([("receipt.ocrStatus = 'failed'", [])]),
                reading: try count([("receipt.ocrStatus IN ('pending', 'processing')", [])]),
                done: try expenses("e.status = 'draft' AND e.needsReview = 0"),
                confirmed: try expenses("e.status = 'confirmed'"),
                cap: cap)
        }
    }

    public func correctionCounts(in scope: Scope) async throws -> (confirmed: Int, changed: [String: Int]) {
        try await read { db in
            guard let branches = try StoreRows.branches(scope, alias: "e", db) else { return (0, [:]) }
            var confirmed = 0
            var changed: [String: Int] = [:]
            for branch in branches.isEmpty ? [nil] : branches.map(Optional.some) {
                var condition = "e.status = 'confirmed'"
                var arguments = StatementArguments()
                if let branch {
                    condition += " AND " + branch.sql
                    arguments += branch.arguments
                }
                confirmed += try Int.fetchOne(db, sql: "SELECT count(*) FROM expense e WHERE \(condition)", arguments: arguments) ?? 0
                for row in try Row.fetchAll(db, sql: """
                    SELECT j.key AS field, count(*) AS n FROM expense e, json_each(e.corrections) j
                    WHERE \(condition) AND e.corrections IS NOT NULL GROUP BY j.key
                    """, arguments: arguments) {
                    changed[row["field"], default: 0] += row["n"] as Int
                }
            }
            return (confirmed, changed)
        }
    }

    /// Receipts pending or being read, of everyone: what `serve --max-pending` compares.
    public func waitingCount() async throws -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM receipt WHERE ocrStatus IN ('pending', 'processing')") ?? 0
        }
    }

    /// How many receipts each group shares.
    public func groupReceiptCounts() async throws -> [String: Int] {
        try await read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT groupName, count(*) AS n FROM receipt WHERE groupName IS NOT NULL GROUP BY groupName") {
                counts[row["groupName"]] = row["n"]
            }
            return counts
        }
    }
}

/// Rows of totals added up by currency, category and month (branches' rows, each a part of the
/// whole), the flagged duplicates counted apart.
package struct TotalsAccumulator {
    private var rows: [String: ExpenseTotals.Row] = [:]
    private var duplicates = 0

    package init() {}

    /// `minor`: the sum in ten-thousandths of the currency's unit.
    package mutating func add(currency: String?, category: String, month: String?, duplicate: Bool, count: Int, minor: Decimal) {
        if duplicate { duplicates += count; return }
        let key = "\(currency ?? "")\u{1}\(category)\u{1}\(month ?? "")"
        var row = rows[key] ?? ExpenseTotals.Row(currency: currency, category: category, month: month, count: 0, total: 0)
        row.count += count
        row.total += minor / 10_000
        rows[key] = row
    }

    package var result: ExpenseTotals {
        ExpenseTotals(rows: rows.values.sorted { ($0.currency ?? "", $0.category, $0.month ?? "") < ($1.currency ?? "", $1.category, $1.month ?? "") },
                      possibleDuplicates: duplicates)
    }
}
