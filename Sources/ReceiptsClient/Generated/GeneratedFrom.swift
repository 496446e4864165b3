// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "721ff7a0ec35ffa5e773a220e7d0e78e33765d40a50e25bd1545d54534e24061" }
