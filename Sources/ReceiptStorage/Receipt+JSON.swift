import Foundation
import ReceiptModel

extension Receipt {
    /// The receipt as a record for `receipts list` / `show` and for backends: every stored field,
    /// ids lowercase, timestamps ISO 8601 (UTC). The analysis is under `analysis` (parsed) when
    /// `includeDetails`, with the OCR text.
    public func json(includeDetails: Bool = false) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("id", .string(id.uuidString.lowercased())),
            ("filePath", .string(filePath)),
            ("contentHash", .optionalString(contentHash)),
            ("ocrStatus", .string(ocrStatus.rawValue)),
            ("lastError", .optionalString(lastError)),
            ("attempts", .int(attempts)),
            ("analyzer", .optionalString(analyzer)),
            ("uploadTimestamp", .string(uploadTimestamp.iso8601)),
            ("createdAt", .string(createdAt.iso8601)),
            ("updatedAt", .string(updatedAt.iso8601)),
            ("isUploaded", .bool(isUploaded)),
            ("expenseId", .optionalString(expenseId?.uuidString.lowercased())),
            ("owner", .string(ownership.owner)),
            ("group", .optionalString(ownership.group)),
            ("externalUser", .optionalString(ownership.externalUser)),
            ("metadata", ownership.metadata ?? .null),
        ]
        if includeDetails {
            pairs.append(("analysis", ocrResultJson.flatMap { try? JSONValue.parse($0) } ?? .null))
            pairs.append(("ocrText", .optionalString(ocrText)))
        }
        return .object(pairs)
    }
}
