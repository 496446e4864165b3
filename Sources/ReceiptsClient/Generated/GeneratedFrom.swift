// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "28f786d4f46be2849bae3f0ecfaf6df8b17c29d2d9f1c36b19854b10a1598353" }
