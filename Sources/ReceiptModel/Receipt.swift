import Foundation

/// Where a receipt is in the pipeline: pending → processing → completed | failed.
public enum OCRStatus: String, Sendable, CaseIterable, Codable {
    case pending, processing, completed, failed
}

/// A receipt image and what became of it. Mirrors the `Receipt` of the mobile apps.
public struct Receipt: Sendable, Equatable, Identifiable {
    public var id: UUID
    /// The path as given by the user (or the file name for bytes submitted in memory).
    public var filePath: String
    /// SHA-256 of the image bytes, lowercase hex; nil when the file could not be read.
    public var contentHash: String?
    public var uploadTimestamp: Date
    public var ocrStatus: OCRStatus
    /// The `analysis` object, serialized as JSON.
    public var ocrResultJson: String?
    public var ocrText: String?
    public var analyzer: String?
    public var attempts: Int
    /// One line naming the file and the cause.
    public var lastError: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var isUploaded: Bool
    public var expenseId: UUID?
    /// Whose it is: its owner, its group, the backend's end user and metadata.
    public var ownership: Ownership
    /// The e-mail message the receipt was found in (nil for a file or an upload).
    public var source: ReceiptSource?

    public init(id: UUID = UUID(), filePath: String, contentHash: String? = nil, uploadTimestamp: Date = Date(),
                ocrStatus: OCRStatus = .pending, ocrResultJson: String? = nil, ocrText: String? = nil,
                analyzer: String? = nil, attempts: Int = 0, lastError: String? = nil,
                createdAt: Date = Date(), updatedAt: Date = Date(), isUploaded: Bool = false, expenseId: UUID? = nil,
                ownership: Ownership = .admin, source: ReceiptSource? = nil) {
        self.ownership = ownership
        self.source = source
        self.id = id
        self.filePath = filePath
        self.contentHash = contentHash
        self.uploadTimestamp = uploadTimestamp
        self.ocrStatus = ocrStatus
        self.ocrResultJson = ocrResultJson
        self.ocrText = ocrText
        self.analyzer = analyzer
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.isUploaded = isUploaded
        self.expenseId = expenseId
        self.source = source
    }

    /// The analysis parsed back from `ocrResultJson`.
    public var analysis: ReceiptAnalysis? {
        guard let ocrResultJson, let json = try? JSONValue.parse(ocrResultJson) else { return nil }
        return ReceiptAnalysis(json: json)
    }
}
