import Foundation
import PostgresNIO
import ReceiptModel

/// Row ↔ model mapping. Money goes in and out as exact decimal text (`$1::numeric`, `amount::text`),
/// receipt dates as `YYYY-MM-DD` text (`$1::date`, `to_char`), so nothing passes through a binary
/// floating point or a time zone.
enum PostgresRows {
    static let posix = Locale(identifier: "en_US_POSIX")

    /// The expense columns, money and dates as text.
    static let expenseColumns = """
        id, receipt_id, to_char(date, 'YYYY-MM-DD') AS date, amount::text AS amount, currency,
        tax_amount::text AS tax_amount, category, description, is_tax_deductible,
        tax_deductible_percentage::text AS tax_deductible_percentage, creation_method, status, needs_review,
        possible_duplicate_of, is_uploaded, last_modified
        """

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
            lastModified: try r["last_modified"].decode(Date.self))
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
        binds.append(r.source?.stored)
        return PostgresQuery(unsafeSQL: """
            INSERT INTO receipts.receipt (id, file_path, content_hash, primary_copy, upload_timestamp, ocr_status,
                ocr_result_json, ocr_text, analyzer, attempts, last_error, created_at, updated_at, is_uploaded, expense_id, image_ref,
                source)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)\(conflict)
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
        return PostgresQuery(unsafeSQL: """
            INSERT INTO receipts.expense (id, receipt_id, date, amount, currency, tax_amount, category, description,
                is_tax_deductible, tax_deductible_percentage, creation_method, status, needs_review,
                possible_duplicate_of, is_uploaded, last_modified, corrections)
            VALUES ($1, $2, $3::date, $4::numeric, $5, $6::numeric, $7, $8, $9, $10::numeric, $11, $12, $13, $14, $15, $16, $17)
            \(onConflictDoNothing ? "ON CONFLICT DO NOTHING" : "")
            """, binds: binds)
    }
}
