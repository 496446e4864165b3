import Foundation
import Testing
import ReceiptKit
@testable import ReceiptServer

/// The OpenAPI document is a file (`Sources/ReceiptServer/openapi.yaml`): what the server serves,
/// what the route tests read and what `make openapi` generates ReceiptsClient from. Its facts that
/// also live in code must say what the code does, or schemathesis and the client would be told a
/// limit the server does not keep.
@Suite struct OpenAPIFileTests {
    /// The file in the repository, as committed.
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/ReceiptServer/openapi.yaml").standardizedFileURL

    @Test func theServerServesTheFileInTheRepository() throws {
        let onDisk = try String(contentsOf: Self.path, encoding: .utf8)
        #expect(OpenAPIDocument.file == onDisk, "the binary embeds \(Self.path.path) as it is")
        #expect(OpenAPIDocument.yaml(taxonomy: .default) == onDisk, "with the default taxonomy the file is served unchanged")
    }

    @Test func aServersOwnTaxonomyIsWhatItsDocumentLists() throws {
        let taxonomy = Taxonomy(categories: [.init(name: "Travel"), .init(name: "Meals \"out\"")])
        let served = OpenAPIDocument.yaml(taxonomy: taxonomy)
        #expect(served.contains(#"enum: ["Travel", "Meals \"out\""]  # taxonomy"#))
        #expect(!served.contains(#""Vehicle Tax""#))
        // Nothing else changes.
        let changed = zip(served.split(separator: "\n"), OpenAPIDocument.file.split(separator: "\n")).filter { $0 != $1 }
        #expect(changed.count == 1 && served.split(separator: "\n").count == OpenAPIDocument.file.split(separator: "\n").count)
    }

    /// The list on the line marked `# name`, its items unquoted.
    private func list(marked name: String) throws -> [String] {
        let line = try #require(OpenAPIDocument.file.split(separator: "\n").first { $0.hasSuffix("  # \(name)") })
        let inside = try #require(line.split(separator: "[", maxSplits: 1).last?.split(separator: "]").first)
        return inside.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
    }

    @Test func theFilesFactsAreTheCodes() throws {
        let file = OpenAPIDocument.file
        #expect(try list(marked: "taxonomy") == Taxonomy.default.names)
        #expect(try list(marked: "iso-4217") == Currency.codes + ["null"])
        #expect(file.contains("      pattern: \"\(Money.amountPattern)\"\n"), "MoneyInput's pattern is Money.amountPattern")
        let descriptionLimit = "maxLength: \(ExpenseCorrection.maximumDescriptionLength)"
        #expect(file.components(separatedBy: descriptionLimit).count - 1 == 3, "description, vendor and a shop's new name are limited to \(descriptionLimit)")
        #expect(file.contains("      maxProperties: \(Ownership.maxMetadataKeys)\n"))
        #expect(file.contains("      propertyNames: {minLength: 1, maxLength: \(Ownership.maxMetadataKey)}\n"))
        #expect(file.contains("          - {type: string, maxLength: \(Ownership.maxMetadataString)}\n"))
        #expect(file.contains("at most \(Ownership.maxMetadataKeys) keys of 1 to\n        \(Ownership.maxMetadataKey) characters"))
        #expect(file.contains("(at most \(Ownership.maxMetadataBytes) bytes in all)"))
    }
}
