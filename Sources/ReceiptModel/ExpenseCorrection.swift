import Foundation

/// A person's changes to a drafted expense, as `PATCH /v1/expenses/{id}` and `receipts expense
/// edit` take them. Every field is checked before anything is saved: money by `Money.amount` (a
/// plain decimal, never digits picked out of text), the category against the taxonomy, the
/// currency against ISO 4217. A new category brings its deduction rule with it, unless the same
/// correction sets the deduction itself.
public struct ExpenseCorrection: Sendable, Equatable {
    /// The fields a correction may set, in the order they are applied.
    public static let fields = ["date", "amount", "taxAmount", "currency", "category", "description", "isTaxDeductible",
                                "taxDeductiblePercentage", "status"]
    /// The longest description (vendor) kept, in Unicode scalars.
    public static let maximumDescriptionLength = 500

    // For each field: nil when the correction leaves it alone; for nullable fields `.some(nil)`
    // clears it.
    public var date: CalendarDate??
    public var amount: Decimal??
    public var taxAmount: Decimal??
    public var currency: String??
    /// The taxonomy's spelling of the category.
    public var category: String?
    public var description: String?
    public var isTaxDeductible: Bool?
    /// 0–100.
    public var taxDeductiblePercentage: Decimal?
    public var status: ExpenseStatus?

    public init() {}

    public var isEmpty: Bool { self == ExpenseCorrection() }

    /// Reads a JSON object of the fields to change (`{"amount": "12.50", "category": "Fuel"}`).
    /// Throws `.invalidInput` naming the first field that is not valid and what it accepts.
    public init(json: JSONValue, taxonomy: Taxonomy) throws(ReceiptError) {
        guard let pairs = json.objectValue else {
            throw Self.invalid("the body must be a JSON object of the fields to change (\(Self.fields.joined(separator: ", ")))")
        }
        for (name, value) in pairs {
            switch name {
            case "date":
                if value.isNull { date = .some(nil); continue }
                guard let text = value.stringValue, let parsed = CalendarDate(iso: text) else {
                    throw Self.invalid("date must be a date as YYYY-MM-DD, or null")
                }
                date = parsed
            case "amount": amount = .some(try Self.money(value, name))
            case "taxAmount": taxAmount = .some(try Self.money(value, name))
            case "currency":
                if value.isNull { currency = .some(nil); continue }
                guard let text = value.stringValue, let code = Currency.code(text) else {
                    throw Self.invalid("currency must be an ISO 4217 code such as GBP, EUR or USD, or null (got \(value.serialized()))")
                }
                currency = code
            case "category":
                guard let text = value.stringValue, let known = taxonomy.category(named: text) else {
                    throw Self.invalid("category must be one of \(taxonomy.names.joined(separator: ", ")) (got \(value.serialized()))")
                }
                category = known.name
            case "description", "vendor":
                // `vendor` is the name a person uses for it (the record's `analysis.vendor`).
                guard let text = value.stringValue, text.contains(where: { !" \t\r\n".contains($0) }),
                      text.unicodeScalars.count <= Self.maximumDescriptionLength else {
                    throw Self.invalid("\(name) must be a non-blank string of at most \(Self.maximumDescriptionLength) characters")
                }
                description = text
            case "isTaxDeductible":
                guard let flag = value.boolValue else { throw Self.invalid("isTaxDeductible must be true or false") }
                isTaxDeductible = flag
            case "taxDeductiblePercentage":
                let message = "taxDeductiblePercentage must be a number from 0 to 100 with at most 4 decimals"
                guard let percentage = try? Self.money(value, name), percentage >= 0, percentage <= 100 else {
                    throw Self.invalid(message)
                }
                taxDeductiblePercentage = percentage
            case "status":
                guard let parsed = value.stringValue.flatMap(ExpenseStatus.init(rawValue:)) else {
                    throw Self.invalid("status must be draft or confirmed")
                }
                status = parsed
            default:
                throw Self.invalid("'\(name)' cannot be changed (only \(Self.fields.joined(separator: ", ")))")
            }
        }
    }

    /// A money field: null, a JSON number or a string holding a plain decimal (`Money.amount`).
    private static func money(_ value: JSONValue, _ name: String) throws(ReceiptError) -> Decimal? {
        let text: String, isNumber: Bool
        switch value {
        case .null: return nil
        case let .number(number): (text, isNumber) = (number, true)
        case let .string(string): (text, isNumber) = (string, false)
        default: throw invalid("\(name) must be a number, a string holding a plain decimal such as \"12.50\", or null")
        }
        do throws(AmountError) {
            return isNumber ? try Money.amount(jsonNumber: text) : try Money.amount(text)
        } catch {
            throw invalid("\(name) \(error)")
        }
    }

    private static func invalid(_ message: String) -> ReceiptError {
        ReceiptError(.invalidInput, message)
    }

    /// The expense with this correction applied, and for each field whose value changed, what it
    /// was before (for `corrections`). A new category sets `isTaxDeductible` and
    /// `taxDeductiblePercentage` from the taxonomy's rule, unless this correction sets them; a
    /// percentage given alone makes the expense deductible when it is above 0. Confirming clears
    /// `needsReview`.
    public func applied(to expense: Expense, taxonomy: Taxonomy) -> (expense: Expense, changed: [(field: String, before: JSONValue)]) {
        var corrected = expense
        if let date { corrected.date = date }
        if let amount { corrected.amount = amount }
        if let taxAmount { corrected.taxAmount = taxAmount }
        if let currency { corrected.currency = currency }
        if let description { corrected.description = description }
        if let category {
            corrected.category = category
            let rule = taxonomy.category(named: category)?.taxDeductiblePercentage ?? 0
            corrected.taxDeductiblePercentage = rule
            corrected.isTaxDeductible = rule > 0
        }
        if let taxDeductiblePercentage {
            corrected.taxDeductiblePercentage = taxDeductiblePercentage
            corrected.isTaxDeductible = taxDeductiblePercentage > 0
        }
        if let isTaxDeductible { corrected.isTaxDeductible = isTaxDeductible }
        if let status {
            corrected.status = status
            if status == .confirmed { corrected.needsReview = false }
        }
        let before = expense.json, after = corrected.json
        let changed = Self.fields.filter { $0 != "status" && before[$0] != after[$0] }.map { ($0, before[$0] ?? .null) }
        return (corrected, changed)
    }
}

extension Expense {
    /// What the expense's deduction comes to: `amount × taxDeductiblePercentage / 100`, rounded
    /// half away from zero to the currency's minor units, when it is tax deductible; 0 when it is
    /// not; nil without an amount.
    public var deductibleAmount: Decimal? {
        guard let amount else { return nil }
        guard isTaxDeductible else { return .zero }
        return (amount * taxDeductiblePercentage / 100).rounded(scale: Currency.decimals(of: currency))
    }
}
