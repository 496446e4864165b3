// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "602f38adf14b83326926dc26e4e0be35a6bcf8a29e0ae0eb862cbe6d6e1dff97" }
