import Foundation
import ReceiptModel

/// The prompts of the remote analyzers: a system and a user text read from files at run time,
/// with placeholders filled per receipt.
///
/// Placeholders: `{{taxonomy}}` (each category with its keywords), `{{categories}}` (the names,
/// comma-separated), `{{ocr_text}}` (what OCR read, or a note that it was not sent) and
/// `{{default_currency}}` (the configured code, or a note that there is none). An unknown
/// placeholder is an error when the files are loaded, so a typo never reaches a model.
public struct PromptTemplate: Sendable, Equatable {
    public static let systemFileName = "receipt-system.txt"
    public static let userFileName = "receipt-user.txt"
    public static let placeholders: Set<String> = ["taxonomy", "categories", "ocr_text", "default_currency"]

    public var system: String
    public var user: String
    /// Names recorded in each result's `details.prompt` (the file names).
    public var systemName: String
    public var userName: String

    /// Checks the placeholders of both texts.
    public init(system: String, user: String,
                systemName: String = PromptTemplate.systemFileName, userName: String = PromptTemplate.userFileName) throws {
        for (text, name) in [(system, systemName), (user, userName)] {
            for placeholder in PromptTemplate.placeholderNames(in: text) where !PromptTemplate.placeholders.contains(placeholder) {
                let known = PromptTemplate.placeholders.sorted().map { "{{\($0)}}" }.joined(separator: ", ")
                throw ReceiptError(.configuration, "unknown placeholder {{\(placeholder)}}; known: \(known)", file: name)
            }
        }
        self.system = system
        self.user = user
        self.systemName = systemName
        self.userName = userName
    }

    /// Reads `receipt-system.txt` and `receipt-user.txt` from `directory`.
    public init(directory: URL) throws {
        func read(_ name: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw ReceiptError(.configuration,
                    "prompt file missing; the remote analyzers need \(PromptTemplate.systemFileName) and "
                    + "\(PromptTemplate.userFileName) in the prompts folder", file: url.path, hint: .promptsFolder)
            }
            do {
                let text = try String(contentsOf: url, encoding: .utf8)
                guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw ReceiptError(.configuration, "prompt file is empty", file: url.path)
                }
                return text
            } catch let error as ReceiptError {
                throw error
            } catch {
                throw ReceiptError(.configuration, "cannot read prompt file (\(error.localizedDescription))", file: url.path)
            }
        }
        let system = try read(PromptTemplate.systemFileName)
        let user = try read(PromptTemplate.userFileName)
        try self.init(system: system, user: user)
    }

    /// The first folder holding both prompt files among: `<dir>/prompts` for the executable's folder
    /// and each folder above it (a `.build/debug/receipts` run from a checkout finds the project's
    /// `prompts/`), `<exe>/../share/receipts/prompts` (an installed binary), then
    /// `<currentDirectory>/prompts`. Nil when none has them.
    public static func defaultDirectory(executable: URL?, currentDirectory: URL) -> URL? {
        var candidates: [URL] = []
        if let executable {
            var dir = executable.resolvingSymlinksInPath().deletingLastPathComponent()
            candidates.append(dir.deletingLastPathComponent().appendingPathComponent("share/receipts/prompts"))
            for _ in 0..<6 {
                candidates.append(dir.appendingPathComponent("prompts"))
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        candidates.append(currentDirectory.appendingPathComponent("prompts"))
        return candidates.first { dir in
            FileManager.default.fileExists(atPath: dir.appendingPathComponent(systemFileName).path)
                && FileManager.default.fileExists(atPath: dir.appendingPathComponent(userFileName).path)
        }
    }

    /// A short fingerprint of both texts (FNV-1a, 64 bits), so results show when a prompt was edited.
    public var fingerprint: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(system.utf8) + [0] + Array(user.utf8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16).leftPadded(to: 16)
    }

    /// What a result records in `details.prompt`.
    public var detailsJSON: JSONValue {
        .object([("system", .string(systemName)), ("user", .string(userName)), ("fingerprint", .string(fingerprint))])
    }

    public struct Rendered: Sendable, Equatable {
        public var system: String
        public var user: String
    }

    /// Fills the placeholders. Values are inserted once: placeholder-like text inside the OCR text
    /// stays as it is.
    public func render(taxonomy: Taxonomy, ocrText: String?, defaultCurrency: String?) -> Rendered {
        let values: [String: String] = [
            "taxonomy": PromptTemplate.describe(taxonomy),
            "categories": taxonomy.names.joined(separator: ", "),
            "ocr_text": ocrText ?? "(no OCR text was sent: read the receipt from the image)",
            "default_currency": defaultCurrency.map { "\($0) (use it when the receipt shows no currency)" }
                ?? "none (use null when the receipt shows no currency)",
        ]
        return Rendered(system: PromptTemplate.fill(system, values), user: PromptTemplate.fill(user, values))
    }

    package static func describe(_ taxonomy: Taxonomy) -> String {
        taxonomy.categories.map { category in
            let hints = category.keywords.prefix(15).joined(separator: ", ")
            let fallback = category.name == taxonomy.fallback ? " (use when no other category fits)" : ""
            return "- \(category.name)\(fallback)" + (hints.isEmpty ? "" : ": \(hints)")
        }.joined(separator: "\n")
    }

    private static func placeholderNames(in text: String) -> [String] {
        var names: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            names.append(String(rest[open.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespaces))
            rest = rest[close.upperBound...]
        }
        return names
    }

    private static func fill(_ text: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = text[...]
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            out += rest[..<open.lowerBound]
            let name = String(rest[open.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespaces)
            out += values[name] ?? String(rest[open.lowerBound..<close.upperBound])
            rest = rest[close.upperBound...]
        }
        return out + rest
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
