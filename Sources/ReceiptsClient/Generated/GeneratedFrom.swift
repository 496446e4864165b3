// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "eee0fe3f5f9032092c5d2fec2553cb09e396dbb3cdc08429f588984792fa39ec" }
