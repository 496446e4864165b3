// ReceiptKit is the facade: `import ReceiptKit` gives a backend every layer's public API it links.
// Two layers are opt-in, imported beside it by a program that wants them: ReceiptPostgres (the
// PostgreSQL store: PostgresNIO, NIOSSL) and ReceiptRemoteAnalyzers (Gemini and OpenAI-compatible
// servers: an HTTP client).
@_exported import ReceiptAnalyzers
@_exported import ReceiptModel
@_exported import ReceiptOCR
@_exported import ReceiptStorage
