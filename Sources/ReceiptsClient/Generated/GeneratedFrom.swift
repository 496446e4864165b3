// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "a7c7a0b5a05bb92787e05673928774e81c250280fe7ef4a153442edaf146c0da" }
