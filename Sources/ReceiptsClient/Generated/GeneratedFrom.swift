// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "fc409f08b2f0c78f65564e807ad18a8f6e61c8c72426d444730d56d7649db5b3" }
