import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

/// Row ↔ model mapping. Money goes in and out as exact decimal text (`$1::numeric`, `amount::text`),
/// receipt dates as `YYYY-MM-DD` text (`$1::date`, `to_char`), so nothing passes through a binary
/// floating point or a time zone.
enum PostgresRows {
    static let posix = Locale(identifier: "en_US_POSIX")

    /// The expense columns of `receipts.expense e` (every query names it `e`: most join its
    /// receipt, for the scope), money and dates as text.
    static let expenseColumns = """
        e.id, e.receipt_id, to_char(e.date, 'YYYY-MM-DD') AS date, e.amount::text AS amount, e.currency,
        e.tax_amount::text AS tax_amount, e.category, e.description, e.is_tax_deductible,
        e.tax_deductible_percentage::text AS tax_deductible_percentage, e.creation_method, e.status, e.needs_review,
        e.possible_duplicate_of, e.is_uploaded, e.last_modified, e.confirmed_by
        """

    /// The conflict target of the unique index that makes the first receipt of some bytes, per
    /// owner and end user, their primary copy (schema v5).
    static let primaryCopyConflict = "(owner, coalesce(external_user, ''), content_hash) WHERE primary_copy"

    static func receipt(_ row: PostgresRow) throws -> Receipt {
        let r = row.makeRandomAccess()
        return Receipt(
            id: try r["id"].decode(UUID.self),
            filePath: try r["file_path"].decode(String.self),
            contentHash: try r["content_hash"].decode(String?.self),
            uploadTimestamp: try r["upload_timestamp"].decode(Date.self),
            ocrStatus: OCRStatus(rawValue: try r["ocr_status"].decode(String.self)) ?? .pending,
            ocrResultJson: try r["ocr_result_json"].decode(String?.self),
            ocrText: try r["ocr_text"].decode(String?.self),
            analyzer: try r["analyzer"].decode(String?.self),
            attempts: try r["attempts"].decode(Int.self),
            lastError: try r["last_error"].decode(String?.self),
            createdAt: try r["created_at"].decode(Date.self),
            updatedAt: try r["updated_at"].decode(Date.self),
            isUploaded: try r["is_uploaded"].decode(Bool.self),
            expenseId: try r["expense_id"].decode(UUID?.self),
            ownership: Ownership(owner: try r["owner"].decode(String.self), group: try r["group_name"].decode(String?.self),
                                 externalUser: try r["external_user"].decode(String?.self),
                                 metadata: try r["metadata"].decode(String?.self).flatMap { try? JSONValue.parse($0) }),
            source: ReceiptSource(stored: r.contains("source") ? try r["source"].decode(String?.self) : nil))
    }

    static func expense(_ row: PostgresRow) throws -> Expense {
        let r = row.makeRandomAccess()
        return Expense(
            id: try r["id"].decode(UUID.self),
            receiptId: try r["receipt_id"].decode(UUID.self),
            date: try r["date"].decode(String?.self).flatMap(CalendarDate.init(iso:)),
            amount: try decimal(r["amount"].decode(String?.self)),
            currency: try r["currency"].decode(String?.self),
            taxAmount: try decimal(r["tax_amount"].decode(String?.self)),
            category: try r["category"].decode(String.self),
            description: try r["description"].decode(String.self),
            isTaxDeductible: try r["is_tax_deductible"].decode(Bool.self),
            taxDeductiblePercentage: try decimal(r["tax_deductible_percentage"].decode(String?.self)) ?? 0,
            creationMethod: try r["creation_method"].decode(String.self),
            status: ExpenseStatus(rawValue: try r["status"].decode(String.self)) ?? .draft,
            needsReview: try r["needs_review"].decode(Bool.self),
            possibleDuplicateOf: try r["possible_duplicate_of"].decode(UUID?.self),
            isUploaded: try r["is_uploaded"].decode(Bool.self),
            lastModified: try r["last_modified"].decode(Date.self),
            confirmedBy: try r["confirmed_by"].decode(String?.self))
    }

    /// `numeric::text` read back by the one money parser (`Money.amount`).
    static func decimal(_ text: String?) -> Decimal? {
        text.flatMap { try? Money.amount($0, limits: .stored) }
    }

    static func money(_ amount: Decimal?) -> String? { amount?.plainString }

    /// Inserts a receipt row as it is (status, attempts and all): for submissions and for copying a store.
    static func insertReceipt(_ r: Receipt, imageRef: String?, primaryCopy: Bool, onConflictDoNothing: String? = nil) -> PostgresQuery {
        let conflict = onConflictDoNothing.map { " ON CONFLICT \($0) DO NOTHING" } ?? ""
        var binds = PostgresBindings()
        binds.append(r.id)
        binds.append(r.filePath)
        binds.append(r.contentHash)
        binds.append(primaryCopy)
        binds.append(r.uploadTimestamp)
        binds.append(r.ocrStatus.rawValue)
        binds.append(r.ocrResultJson)
        binds.append(r.ocrText)
        binds.append(r.analyzer)
        binds.append(r.attempts)
        binds.append(r.lastError)
        binds.append(r.createdAt)
        binds.append(r.updatedAt)
        binds.append(r.isUploaded)
        binds.append(r.expenseId)
        binds.append(imageRef)
        binds.append(r.ownership.owner)
        binds.append(r.ownership.group)
        binds.append(r.ownership.externalUser)
        binds.append(r.ownership.metadata?.serialized())
        binds.append(r.source?.stored)
        return PostgresQuery(unsafeSQL: """
            INSERT INTO receipts.receipt (id, file_path, content_hash, primary_copy, upload_timestamp, ocr_status,
                ocr_result_json, ocr_text, analyzer, attempts, last_error, created_at, updated_at, is_uploaded, expense_id, image_ref,
                owner, group_name, external_user, metadata, source)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)\(conflict)
            RETURNING *
            """, binds: binds)
    }

    static func insertExpense(_ e: Expense, corrections: String? = nil, onConflictDoNothing: Bool = false) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(e.id)
        binds.append(e.receiptId)
        binds.append(e.date?.description)
        binds.append(money(e.amount))
        binds.append(e.currency)
        binds.append(money(e.taxAmount))
        binds.append(e.category)
        binds.append(e.description)
        binds.append(e.isTaxDeductible)
        binds.append(e.taxDeductiblePercentage.plainString)
        binds.append(e.creationMethod)
        binds.append(e.status.rawValue)
        binds.append(e.needsReview)
        binds.append(e.possibleDuplicateOf)
        binds.append(e.isUploaded)
        binds.append(e.lastModified)
        binds.append(corrections)
        binds.append(e.confirmedBy)
        return PostgresQuery(unsafeSQL: """
            INSERT INTO receipts.expense (id, receipt_id, date, amount, currency, tax_amount, category, description,
                is_tax_deductible, tax_deductible_percentage, creation_method, status, needs_review,
                possible_duplicate_of, is_uploaded, last_modified, corrections, confirmed_by)
            VALUES ($1, $2, $3::date, $4::numeric, $5, $6::numeric, $7, $8, $9, $10::numeric, $11, $12, $13, $14, $15, $16, $17, $18)
            \(onConflictDoNothing ? "ON CONFLICT DO NOTHING" : "")
            """, binds: binds)
    }
}

extension PostgresQuery.StringInterpolation {
    /// The condition that keeps the receipts (of the table aliased `alias`) in `scope`, its values
    /// bound: `.user` reads the user's groups from `group_member` in the same statement, so a
    /// membership changed a moment ago counts at once and nothing is loaded into memory first.
    mutating func appendInterpolation(scope: Scope, alias r: String) {
        switch scope {
        case .everyone:
            appendLiteral("true")
        case let .owner(name):
            appendLiteral("\(r).owner = ")
            appendInterpolation(name)
        case let .user(name):
            appendLiteral("(\(r).owner = ")
            appendInterpolation(name)
            appendLiteral(" OR \(r).group_name IN (SELECT m.group_name FROM receipts.group_member m WHERE m.user_name = ")
            appendInterpolation(name)
            appendLiteral("))")
        case let .externalUser(external, service):
            appendLiteral("(\(r).owner = ")
            appendInterpolation(service)
            appendLiteral(" AND \(r).external_user = ")
            appendInterpolation(external)
            appendLiteral(")")
        }
    }
}

extension PostgresQuery {
    /// Adds ` AND <clause>` with one bound value: `clause` holds `$?` where the value goes.
    mutating func and(_ clause: String, _ value: some PostgresDynamicTypeEncodable) {
        binds.append(value)
        sql += " AND " + clause.replacingOccurrences(of: "$?", with: "$\(binds.count)")
    }
}
