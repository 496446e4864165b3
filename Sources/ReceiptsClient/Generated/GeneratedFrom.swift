// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "b0b0eccb8e76ada6217f72dd45ea0ccca617a941ca047003fdafc5d1c0f1c3b8" }
