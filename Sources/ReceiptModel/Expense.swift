import Foundation

public enum ExpenseStatus: String, Sendable, CaseIterable, Codable {
    case draft, confirmed
}

/// An expense drafted from a receipt. Mirrors the `Expense` of the mobile apps.
public struct Expense: Sendable, Equatable, Identifiable {
    public var id: UUID
    public var receiptId: UUID
    public var date: CalendarDate?
    public var amount: Decimal?
    public var currency: String?
    public var taxAmount: Decimal?
    public var category: String
    /// The vendor.
    public var description: String
    public var isTaxDeductible: Bool
    /// 0–100.
    public var taxDeductiblePercentage: Decimal
    /// Always `ocr` for expenses drafted by this pipeline.
    public var creationMethod: String
    public var status: ExpenseStatus
    public var needsReview: Bool
    /// Another expense with the same vendor, date and total from a different image.
    public var possibleDuplicateOf: UUID?
    public var isUploaded: Bool
    public var lastModified: Date
    /// The user who confirmed it (nil while it is a draft, or when confirmed before users existed).
    public var confirmedBy: String?

    public init(id: UUID = UUID(), receiptId: UUID, date: CalendarDate?, amount: Decimal?, currency: String?,
                taxAmount: Decimal?, category: String, description: String, isTaxDeductible: Bool,
                taxDeductiblePercentage: Decimal, creationMethod: String = "ocr", status: ExpenseStatus = .draft,
                needsReview: Bool, possibleDuplicateOf: UUID? = nil, isUploaded: Bool = false, lastModified: Date = Date(),
                confirmedBy: String? = nil) {
        self.confirmedBy = confirmedBy
        self.id = id
        self.receiptId = receiptId
        self.date = date
        self.amount = amount
        self.currency = currency
        self.taxAmount = taxAmount
        self.category = category
        self.description = description
        self.isTaxDeductible = isTaxDeductible
        self.taxDeductiblePercentage = taxDeductiblePercentage
        self.creationMethod = creationMethod
        self.status = status
        self.needsReview = needsReview
        self.possibleDuplicateOf = possibleDuplicateOf
        self.isUploaded = isUploaded
        self.lastModified = lastModified
    }

    /// Drafts the expense for a completed receipt; deductibility comes from the taxonomy's rule
    /// for the category.
    public static func draft(from analysis: ReceiptAnalysis, receiptId: UUID, taxonomy: Taxonomy,
                             id: UUID = UUID(), now: Date = Date()) -> Expense {
        let categoryName = analysis.category.flatMap { taxonomy.category(named: $0)?.name } ?? taxonomy.fallback
        // The shop's own deduction, where its confirmations agree on one for this category.
        let remembered = analysis.memory?.settles.contains("category") == true ? analysis.memory?.taxDeductiblePercentage : nil
        let pct = remembered ?? taxonomy.category(named: categoryName)?.taxDeductiblePercentage ?? 0
        return Expense(id: id, receiptId: receiptId, date: analysis.date, amount: analysis.total,
                       currency: analysis.currency, taxAmount: analysis.tax, category: categoryName,
                       description: analysis.vendor ?? "", isTaxDeductible: pct > 0, taxDeductiblePercentage: pct,
                       needsReview: analysis.confidence.needsReview || analysis.total == nil || analysis.date == nil,
                       lastModified: now)
    }
}

extension Expense {
    /// The `expense` object of the NDJSON contract.
    public var json: JSONValue {
        .object([
            ("id", .string(id.uuidString.lowercased())),
            ("receiptId", .string(receiptId.uuidString.lowercased())),
            ("date", .optionalString(date?.description)),
            ("amount", .money(amount, currency: currency)),
            ("currency", .optionalString(currency)),
            ("taxAmount", .money(taxAmount, currency: currency)),
            ("category", .string(category)),
            ("description", .string(description)),
            ("isTaxDeductible", .bool(isTaxDeductible)),
            ("taxDeductiblePercentage", .decimal(taxDeductiblePercentage)),
            ("creationMethod", .string(creationMethod)),
            ("status", .string(status.rawValue)),
            ("needsReview", .bool(needsReview)),
            ("possibleDuplicateOf", .optionalString(possibleDuplicateOf?.uuidString.lowercased())),
            ("isUploaded", .bool(isUploaded)),
            ("lastModified", .string(lastModified.iso8601)),
            ("confirmedBy", .optionalString(confirmedBy)),
        ])
    }
}
