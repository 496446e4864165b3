// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "3644c7a903713975631af321a1523f8a11581f2edc0ee8b4e4a5590d2cc2945a" }
