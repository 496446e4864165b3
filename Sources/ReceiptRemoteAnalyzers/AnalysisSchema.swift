import Foundation
import ReceiptModel

/// The JSON schema of the answer a remote model must give, derived from `AnalysisField`.
///
/// It uses only the keywords that both Gemini's `responseJsonSchema` and OpenAI-style strict
/// `json_schema` response formats accept: `type` (with `"null"` in a type list for optional
/// values), `properties`, `required` (every property, as strict mode demands),
/// `additionalProperties: false`, `items`, `enum`, `format` and `description`.
public enum AnalysisSchema {
    public static func json(for taxonomy: Taxonomy) -> JSONValue {
        object(AnalysisField.all.map { ($0.key, property($0, taxonomy: taxonomy)) })
    }

    private static func object(_ properties: [(String, JSONValue)], description: String? = nil) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("type", .string("object"))]
        if let description { pairs.append(("description", .string(description))) }
        pairs += [
            ("properties", .object(properties)),
            ("required", .array(properties.map { .string($0.0) })),
            ("additionalProperties", .bool(false)),
        ]
        return .object(pairs)
    }

    private static func nullable(_ type: String) -> JSONValue {
        .array([.string(type), .string("null")])
    }

    private static func property(_ field: AnalysisField, taxonomy: Taxonomy) -> JSONValue {
        let description: (String, JSONValue) = ("description", .string(field.summary))
        switch field.kind {
        case .text:
            return .object([("type", nullable("string")), description])
        case .date:
            return .object([("type", nullable("string")), ("format", .string("date")), description])
        case .amount:
            return .object([("type", nullable("number")), description])
        case .currencyCode:
            return .object([("type", nullable("string")), description])
        case .category:
            return .object([("type", .string("string")), ("enum", .array(taxonomy.names.map(JSONValue.string))), description])
        case .lineItems:
            let item = object(AnalysisField.lineItemFields.map { f in
                (f.key, f.kind == .text ? .object([("type", .string("string")), ("description", .string(f.summary))])
                                        : property(f, taxonomy: taxonomy))
            })
            return .object([("type", .string("array")), ("items", item), description])
        case .confidence:
            return object(AnalysisField.scalars.map {
                ($0.key, .object([("type", .string("number")), ("minimum", .number("0")), ("maximum", .number("1"))]))
            }, description: field.summary)
        }
    }
}
