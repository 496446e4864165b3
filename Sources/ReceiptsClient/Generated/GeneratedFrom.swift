// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "200e0657489202b3b9e636450043bae925b0f2149ac284cd9f762a3bcc770c8f" }
