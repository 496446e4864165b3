import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

/// Lists, counts and totals as queries the indexes answer (migration `lists-as-queries`), as in
/// SQLite (`SQLiteReceiptStore+Lists.swift`): who may see is a disjunction of branches, each an
/// equality an index leads with; each branch reads its first `limit` rows in the listing's order,
/// the branches' rows are merged; a page after another starts at its cursor row (keyset paging).
extension PostgresReceiptStore {
    /// A statement being written: its text and its bound values (`$1`, `$2`, … in order).
    struct Statement {
        var sql = ""
        var binds = PostgresBindings()

        /// The placeholder of `value`, bound.
        mutating func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }

        var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }
    }

    /// A condition written into a statement (binding its values there).
    typealias Condition = @Sendable (inout Statement) -> String

    /// Who in `scope` may see, as branches that do not overlap, on the table aliased `a` (a receipt
    /// and its expense both have `owner`, `group_name`, `external_user`): none for `.everyone`.
    func branches(_ scope: Scope, alias a: String) async throws -> [Condition] {
        switch scope {
        case .everyone:
            return []
        case let .owner(name):
            return [{ "\(a).owner = \($0.bind(name))" }]
        case let .externalUser(external, service):
            return [{ "\(a).owner = \($0.bind(service)) AND \(a).external_user = \($0.bind(external))" }]
        case let .user(name):
            let groups = try await rows("SELECT group_name FROM receipts.group_member WHERE user_name = \(name) ORDER BY group_name")
                .map { try $0.decode(String.self) }
            return [{ "\(a).owner = \($0.bind(name))" }]
                + groups.map { group in { "\(a).group_name = \($0.bind(group)) AND \(a).owner <> \($0.bind(name))" } }
        }
    }

    /// One statement for a page: each branch's first `limit` rows in `order`, merged in the same
    /// order (`outerOrder`: the keys by the names `select` gives them). No branches: every row.
    static func merged(branches: [Condition], filters: [Condition], select: String, from: String, order: String,
                       outerOrder: String, limit: Int) -> PostgresQuery {
        var statement = Statement()
        func part(_ branch: Condition?) -> String {
            var conditions: [String] = []
            if let branch { conditions.append(branch(&statement)) }
            for filter in filters { conditions.append(filter(&statement)) }
            let condition = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            return "SELECT \(select) FROM \(from)\(condition) ORDER BY \(order) LIMIT \(limit)"
        }
        if branches.count <= 1 {
            statement.sql = part(branches.first)
        } else {
            statement.sql = branches.map { "(" + part($0) + ")" }.joined(separator: " UNION ALL ") + " ORDER BY \(outerOrder) LIMIT \(limit)"
        }
        return statement.query
    }

    /// `select` from `from` where the row is in one of `branches` and matches `filters`.
    static func any(branches: [Condition], filters: [Condition], select: String, from: String, suffix: String = "") -> PostgresQuery {
        var statement = Statement()
        var conditions: [String] = []
        if !branches.isEmpty {
            conditions.append("(" + branches.map { "(" + $0(&statement) + ")" }.joined(separator: " OR ") + ")")
        }
        for filter in filters { conditions.append(filter(&statement)) }
        statement.sql = "SELECT \(select) FROM \(from)" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")) + suffix
        return statement.query
    }

    // MARK: Receipts

    public func receipts(_ query: ReceiptQuery, in scope: Scope) async throws -> [Receipt] {
        let branches = try await branches(scope, alias: "r")
        var filters = Self.receiptFilters(query)
        if let after = query.after {
            guard let row = try await rows(Self.any(branches: branches, filters: filters + [{ "r.id = \($0.bind(after))" }],
                                                    select: "r.created_at, r.seq", from: "receipts.receipt r")).first else {
                throw ReceiptError(.notFound, "after names no receipt of this listing (deleted, or not matching the filters)", file: location)
            }
            let (created, seq) = try row.decode((Date, Int64).self)
            filters.append { "(r.created_at, r.seq) < (\($0.bind(created)), \($0.bind(seq)))" }
        }
        return try await rows(Self.merged(branches: branches, filters: filters, select: "r.*", from: "receipts.receipt r",
                                          order: "r.created_at DESC, r.seq DESC", outerOrder: "created_at DESC, seq DESC",
                                          limit: max(0, query.limit ?? Int(Int32.max))))
            .map(PostgresRows.receipt)
    }

    static func receiptFilters(_ query: ReceiptQuery) -> [Condition] {
        var filters: [Condition] = []
        if let externalUser = query.externalUser { filters.append { "r.external_user = \($0.bind(externalUser))" } }
        if let owner = query.owner { filters.append { "r.owner = \($0.bind(owner))" } }
        if let status = query.status { filters.append { "r.ocr_status = \($0.bind(status.rawValue))" } }
        // Literal, so that the planner sees the partial indexes' condition.
        if let needsReview = query.needsReview { filters.append { _ in needsReview ? "r.needs_review" : "r.needs_review IS NOT TRUE" } }
        if let from = query.submittedFrom { filters.append { "r.upload_timestamp >= \($0.bind(from))" } }
        if let before = query.submittedBefore { filters.append { "r.upload_timestamp < \($0.bind(before))" } }
        return filters
    }

    // MARK: Expenses

    /// The sort key of an expense list on `alias`: its date, no date last (the indexes' expression).
    static func dateKey(_ alias: String) -> String { "coalesce(\(alias).date, 'infinity'::date)" }

    public func expenses(_ query: ExpenseQuery, in scope: Scope) async throws -> [Expense] {
        try await expenseListings(query, in: scope).map(\.expense)
    }

    public func expenseListings(_ query: ExpenseQuery, in scope: Scope) async throws -> [ExpenseListing] {
        let branches = try await branches(scope, alias: "e")
        var filters = Self.expenseFilters(query)
        let key = Self.dateKey("e")
        if let after = query.after {
            guard let row = try await rows(Self.any(branches: branches, filters: filters + [{ "e.id = \($0.bind(after))" }],
                                                    select: "\(key)::text, e.last_modified, e.seq", from: "receipts.expense e")).first else {
                throw ReceiptError(.notFound, "after names no expense of this listing (deleted, or not matching the filters)", file: location)
            }
            let (date, modified, seq) = try row.decode((String, Date, Int64).self)
            filters.append { "(\(key), e.last_modified, e.seq) > (\($0.bind(date))::date, \($0.bind(modified)), \($0.bind(seq)))" }
        }
        let select = "\(PostgresRows.expenseColumns), e.corrections, e.owner, e.seq, \(key) AS date_key, r.file_path AS receipt_file"
        return try await rows(Self.merged(branches: branches, filters: filters, select: select,
                                          from: "receipts.expense e JOIN receipts.receipt r ON r.id = e.receipt_id",
                                          order: "\(key), e.last_modified, e.seq", outerOrder: "date_key, last_modified, seq",
                                          limit: max(0, query.limit ?? Int(Int32.max))))
            .map { row in
                let r = row.makeRandomAccess()
                return ExpenseListing(expense: try PostgresRows.expense(row), receiptFile: try r["receipt_file"].decode(String.self),
                                      owner: try r["owner"].decode(String.self),
                                      corrections: try r["corrections"].decode(String?.self).flatMap { try? JSONValue.parse($0) } ?? .object([]))
            }
    }

    static func expenseFilters(_ query: ExpenseQuery) -> [Condition] {
        var filters: [Condition] = []
        let key = dateKey("e")
        if let externalUser = query.externalUser { filters.append { "e.external_user = \($0.bind(externalUser))" } }
        if let from = query.from { filters.append { "\(key) >= \($0.bind(from.description))::date AND e.date IS NOT NULL" } }
        if let to = query.to { filters.append { "\(key) <= \($0.bind(to.description))::date" } }
        if let category = query.category { filters.append { "lower(e.category) = \($0.bind(category.lowercased()))" } }
        if let status = query.status { filters.append { "e.status = \($0.bind(status.rawValue))" } }
        if let needsReview = query.needsReview { filters.append { "e.needs_review = \($0.bind(needsReview))" } }
        return filters
    }

    public func expenses(ofReceipts ids: [UUID], in scope: Scope) async throws -> [Expense] {
        guard !ids.isEmpty else { return [] }
        let branches = try await branches(scope, alias: "e")
        return try await rows(Self.any(branches: branches, filters: [{ "e.receipt_id = ANY(\($0.bind(ids)))" }],
                                       select: PostgresRows.expenseColumns, from: "receipts.expense e"))
            .map(PostgresRows.expense)
    }

    // MARK: Totals and counts

    /// Totals from `expense_total` (kept by a trigger) when the query allows, a date range or a
    /// backend's end user from the expenses (as SQLite does).
    public func expenseTotals(_ query: ExpenseQuery, in scope: Scope) async throws -> ExpenseTotals {
        let fromTotals = query.from == nil && query.to == nil && query.externalUser == nil && !scope.isEndUser
        let branches = try await branches(scope, alias: fromTotals ? "t" : "e")
        var totals = TotalsAccumulator()
        for branch in branches.isEmpty ? [nil] : branches.map(Optional.some) {
            let statement: PostgresQuery
            if fromTotals {
                var filters: [Condition] = [{ _ in "t.priced > 0" }]
                if let category = query.category { filters.append { "lower(t.category) = \($0.bind(category.lowercased()))" } }
                if let status = query.status { filters.append { "t.status = \($0.bind(status.rawValue))" } }
                if let needsReview = query.needsReview { filters.append { "t.needs_review = \($0.bind(needsReview))" } }
                statement = Self.any(branches: branch.map { [$0] } ?? [], filters: filters, select: """
                    nullif(t.currency, ''), t.category, nullif(t.month, ''), t.duplicate, sum(t.priced)::bigint, sum(t.total_minor)::text
                    """, from: "receipts.expense_total t", suffix: " GROUP BY 1, 2, 3, 4")
            } else {
                statement = Self.any(branches: branch.map { [$0] } ?? [], filters: Self.expenseFilters(query) + [{ _ in "e.amount IS NOT NULL" }],
                                     select: """
                    e.currency, e.category, to_char(e.date, 'YYYY-MM'), (e.possible_duplicate_of IS NOT NULL AND e.status = 'draft'),
                    count(*)::bigint, sum(e.amount_minor)::text
                    """, from: "receipts.expense e", suffix: " GROUP BY 1, 2, 3, 4")
            }
            for row in try await rows(statement) {
                let (currency, category, month, duplicate, count, total) = try row.decode((String?, String, String?, Bool, Int64, String?).self)
                totals.add(currency: currency, category: category, month: month, duplicate: duplicate, count: Int(count),
                           minor: total.flatMap { Decimal(string: $0, locale: PostgresRows.posix) } ?? 0)
            }
        }
        return totals.result
    }

    public func inboxCounts(_ query: ReceiptQuery, in scope: Scope, cap: Int) async throws -> InboxCounts {
        let receiptBranches = try await branches(scope, alias: "r")
        var base = query
        base.status = nil
        base.needsReview = nil
        let filters = Self.receiptFilters(base)
        func count(_ state: String) async throws -> Int {
            var total = 0
            for branch in receiptBranches.isEmpty ? [nil] : receiptBranches.map(Optional.some) {
                var statement = Statement()
                var conditions = [state]
                if let branch { conditions.append(branch(&statement)) }
                for filter in filters { conditions.append(filter(&statement)) }
                statement.sql = """
                    SELECT count(*)::bigint FROM (SELECT 1 FROM receipts.receipt r WHERE \(conditions.joined(separator: " AND "))
                    LIMIT \(cap - total)) counted
                    """
                total += Int(try await rows(statement.query).first?.decode(Int64.self) ?? 0)
                if total >= cap { return cap }
            }
            return total
        }
        /// Expenses in one state (`state` names columns `expense` and `expense_total` both have):
        /// from `expense_total` when the listing allows (exact), else counted up to `cap`.
        func expenses(_ state: String) async throws -> Int {
            if query.externalUser == nil, !scope.isEndUser {
                var total = 0
                for branch in try await self.branches(scope, alias: "t").map(Optional.some) + (scope == .everyone ? [nil] : []) {
                    var filters: [Condition] = [{ _ in state.replacingOccurrences(of: "x.", with: "t.") }]
                    if let owner = query.owner { filters.append { "t.owner = \($0.bind(owner))" } }
                    total += Int(try await rows(Self.any(branches: branch.map { [$0] } ?? [], filters: filters,
                                                         select: "coalesce(sum(t.count), 0)::bigint", from: "receipts.expense_total t"))
                        .first?.decode(Int64.self) ?? 0)
                }
                return Swift.min(total, cap)
            }
            var total = 0
            for branch in try await self.branches(scope, alias: "e").map(Optional.some) + (scope == .everyone ? [nil] : []) {
                var statement = Statement()
                var conditions = [state.replacingOccurrences(of: "x.", with: "e.")]
                if let branch { conditions.append(branch(&statement)) }
                if let owner = query.owner { conditions.append("e.owner = \(statement.bind(owner))") }
                if let externalUser = query.externalUser { conditions.append("e.external_user = \(statement.bind(externalUser))") }
                statement.sql = "SELECT count(*)::bigint FROM (SELECT 1 FROM receipts.expense e WHERE \(conditions.joined(separator: " AND ")) LIMIT \(cap - total)) counted"
                total += Int(try await rows(statement.query).first?.decode(Int64.self) ?? 0)
                if total >= cap { return cap }
            }
            return total
        }
        return InboxCounts(review: try await count("r.needs_review"),
                           failed: try await count("r.ocr_status = 'failed'"),
                           reading: try await count("r.ocr_status IN ('pending', 'processing')"),
                           done: try await expenses("x.status = 'draft' AND NOT x.needs_review"),
                           confirmed: try await expenses("x.status = 'confirmed'"),
                           cap: cap)
    }

    public func correctionCounts(in scope: Scope) async throws -> (confirmed: Int, changed: [String: Int]) {
        let branches = try await branches(scope, alias: "e")
        var confirmed = 0
        var changed: [String: Int] = [:]
        for branch in branches.isEmpty ? [nil] : branches.map(Optional.some) {
            let filters: [Condition] = [{ _ in "e.status = 'confirmed'" }]
            confirmed += Int(try await rows(Self.any(branches: branch.map { [$0] } ?? [], filters: filters, select: "count(*)::bigint",
                                                     from: "receipts.expense e")).first?.decode(Int64.self) ?? 0)
            for row in try await rows(Self.any(branches: branch.map { [$0] } ?? [], filters: filters + [{ _ in "e.corrections IS NOT NULL" }],
                                               select: "j.key, count(*)::bigint", from: "receipts.expense e, jsonb_each(e.corrections::jsonb) j",
                                               suffix: " GROUP BY j.key")) {
                let (field, n) = try row.decode((String, Int64).self)
                changed[field, default: 0] += Int(n)
            }
        }
        return (confirmed, changed)
    }

    public func waitingCount() async throws -> Int {
        Int(try await rows("SELECT count(*)::bigint FROM receipts.receipt WHERE ocr_status IN ('pending', 'processing')")
            .first?.decode(Int64.self) ?? 0)
    }

    public func groupReceiptCounts() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await rows("SELECT group_name, count(*)::bigint FROM receipts.receipt WHERE group_name IS NOT NULL GROUP BY group_name") {
            let (group, n) = try row.decode((String, Int64).self)
            counts[group] = Int(n)
        }
        return counts
    }
}
