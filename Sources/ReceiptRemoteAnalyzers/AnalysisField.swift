import Foundation
import ReceiptModel

/// The fields of an `analysis` that an analyzer reads from a receipt, described once.
///
/// The JSON schema sent to remote models (`AnalysisSchema`) and the checks applied to their answers
/// (`AnalysisNormalizer`) are derived from this list; a test checks it against the keys of
/// `ReceiptAnalysis.json`, so a field added to the contract must be added here too.
public struct AnalysisField: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Free text (vendor name, line item description).
        case text
        /// A calendar date, `YYYY-MM-DD`.
        case date
        /// An exact decimal amount (money, quantities).
        case amount
        /// An ISO 4217 currency code.
        case currencyCode
        /// One of the taxonomy's category names.
        case category
        /// The list of line items (`AnalysisField.lineItemFields`).
        case lineItems
        /// Per-field confidence 0–1 for the scalar fields.
        case confidence
    }

    /// The JSON key in the `analysis` object.
    public let key: String
    public let kind: Kind
    /// What the field means, for people and for models.
    public let summary: String

    public init(key: String, kind: Kind, summary: String) {
        self.key = key
        self.kind = kind
        self.summary = summary
    }
}

extension AnalysisField {
    public static let vendor = AnalysisField(
        key: "vendor", kind: .text,
        summary: "Trading name of the shop or company that issued the receipt, as printed (not the address).")
    public static let date = AnalysisField(
        key: "date", kind: .date,
        summary: "Transaction date as YYYY-MM-DD (not an expiry or print date).")
    public static let total = AnalysisField(
        key: "total", kind: .amount,
        summary: "Final amount paid, including tax, as a plain decimal number.")
    public static let tax = AnalysisField(
        key: "tax", kind: .amount,
        summary: "Total tax (VAT, GST, sales tax) on the receipt as a plain decimal number; null when none is shown.")
    public static let currency = AnalysisField(
        key: "currency", kind: .currencyCode,
        summary: "ISO 4217 currency code of the amounts (GBP, EUR, USD, MYR, …); null when unknown.")
    public static let category = AnalysisField(
        key: "category", kind: .category,
        summary: "Expense category, exactly one of the allowed names.")
    public static let lineItems = AnalysisField(
        key: "lineItems", kind: .lineItems,
        summary: "Purchased items as printed; empty when the receipt lists none.")
    public static let confidence = AnalysisField(
        key: "confidence", kind: .confidence,
        summary: "Confidence 0 to 1 for each field read.")

    /// Every field of the analysis a model fills, in contract order.
    public static let all: [AnalysisField] = [vendor, date, total, tax, currency, category, lineItems, confidence]

    /// The fields that carry one value (and a confidence).
    public static let scalars: [AnalysisField] = all.filter { $0.kind != .lineItems && $0.kind != .confidence }

    /// The fields of one line item.
    public static let lineItemFields: [AnalysisField] = [
        AnalysisField(key: "description", kind: .text, summary: "Item text as printed."),
        AnalysisField(key: "quantity", kind: .amount, summary: "Quantity; null when not printed."),
        AnalysisField(key: "unitPrice", kind: .amount, summary: "Price of one unit; null when not printed."),
        AnalysisField(key: "amount", kind: .amount, summary: "Line amount; null when not printed."),
    ]
}
