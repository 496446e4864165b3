// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "4c8784d3f65abdf3a68411ce2ff26deabcef75e36ffbd332f847679c5e2a9cb0" }
