// ReceiptKit is the facade: `import ReceiptKit` gives a backend every layer's public API.
@_exported import ReceiptAnalyzers
@_exported import ReceiptModel
@_exported import ReceiptOCR
@_exported import ReceiptStorage
@_exported import ReceiptPostgres
