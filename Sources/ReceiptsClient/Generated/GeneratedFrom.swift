// Written by `make openapi` with Types.swift and Client.swift: the SHA-256 of the OpenAPI document and
// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).
enum GeneratedFrom { static let sha256 = "7151ae746d6b7c2e059354227af1b2651782ee484de8a17ca76b7c31368bd783" }
