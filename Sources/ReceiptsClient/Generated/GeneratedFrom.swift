// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "c8d9e8e63b453b1b955b3565a67f3cdc2b978c650e9c8ffd78e25444271376a7" }
