// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "eb408ea9d760ef9a98aa3c0e76e9367e7468eae4a2c4cf1e20313286dca41966" }
