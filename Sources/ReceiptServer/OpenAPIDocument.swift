import ReceiptKit

/// `GET /openapi.yaml`: the OpenAPI 3.1 description of every route, exactly as the server behaves.
///
/// The document is one file, `Sources/ReceiptServer/openapi.yaml`, compiled into the binary (no file
/// to install beside it) and the one source of truth: the server serves it, the route tests read it
/// (`ProtocolRoutesTests` in ReceiptServerTests: every route described; the authorization matrix:
/// every operation has a row), schemathesis checks the server against it, and `make openapi`
/// generates the `ReceiptsClient` library from it. Its facts that live in code (ISO 4217's codes,
/// the limits of money, descriptions and metadata) are checked against the code by
/// `OpenAPIFileTests`. The one thing a server changes when serving it is the taxonomy's categories
/// (`receipts serve --taxonomy`): the file lists the default taxonomy's on the line marked
/// `# taxonomy`, and the server puts its own there.
enum OpenAPIDocument {
    /// The file as committed.
    static let file = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)

    /// The marker ending the line of the file that lists the taxonomy's categories.
    static let taxonomyMarker = "  # taxonomy"

    /// The document this server serves: the file, with `taxonomy`'s categories.
    static func yaml(taxonomy: Taxonomy) -> String {
        var lines = file.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let index = lines.firstIndex(where: { $0.hasSuffix(taxonomyMarker) }) else { return file }
        let indent = lines[index].prefix { $0 == " " }
        lines[index] = indent + "enum: [" + taxonomy.names.map(quoted).joined(separator: ", ") + "]" + taxonomyMarker
        return lines.joined(separator: "\n")
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
