import Foundation

/// The receipt in a `multipart/form-data` body (RFC 7578): its `file` parts (one, or a long receipt's
/// pictures top to bottom, at most `maxPictures`), and its `metadata` part (the uploader's JSON) if
/// any. Other parts (a note, a form's fields) are ignored; a body with no `file` part is refused.
enum Multipart {
    struct Part {
        var name: String?
        var filename: String?
        var data: Data
    }

    /// The most pictures one receipt is sent in.
    static let maxPictures = 10

    static func file(in body: Data, contentType: String) throws -> Part {
        let files = try upload(in: body, contentType: contentType).files
        guard files.count == 1 else { throw Problem(.badRequest, "the multipart body has \(files.count) 'file' parts; send one") }
        return files[0]
    }

    /// The `file` parts in order and the text of the `metadata` part (at most one).
    static func upload(in body: Data, contentType: String) throws -> (files: [Part], metadata: String?) {
        guard let boundary = contentType.split(separator: ";").lazy
            .map({ $0.trimmingCharacters(in: .whitespaces) })
            .first(where: { $0.lowercased().hasPrefix("boundary=") })
            .map({ String($0.dropFirst("boundary=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }),
            !boundary.isEmpty else {
            throw Problem(.badRequest, "multipart/form-data without a boundary")
        }
        let parts = try self.parts(body, boundary: Data(("--" + boundary).utf8))
        let files = parts.filter { $0.name == "file" }
        guard files.count <= maxPictures else {
            throw Problem(.badRequest, "the multipart body has \(files.count) 'file' parts; a receipt is sent in \(maxPictures) pictures at most")
        }
        guard !files.isEmpty else {
            throw Problem(.badRequest, "the multipart body has no 'file' part (the receipt's bytes)")
        }
        let metadata = parts.filter { $0.name == "metadata" }
        guard metadata.count <= 1 else { throw Problem(.badRequest, "the multipart body has \(metadata.count) 'metadata' parts; send one") }
        return (files, metadata.first.map { String(decoding: $0.data, as: UTF8.self) })
    }

    private static func parts(_ body: Data, boundary: Data) throws -> [Part] {
        var parts: [Part] = []
        guard var cursor = body.range(of: boundary)?.upperBound else {
            throw Problem(.badRequest, "the multipart body does not start with its boundary")
        }
        let crlf = Data("\r\n".utf8), headerEnd = Data("\r\n\r\n".utf8), closing = Data("--".utf8)
        while true {
            if body[cursor...].starts(with: closing) { return parts }                // the final boundary
            guard body[cursor...].starts(with: crlf) else { break }
            cursor += crlf.count
            let headers: String, contentStart: Data.Index
            if body[cursor...].starts(with: crlf) {
                // A part without headers.
                (headers, contentStart) = ("", cursor + crlf.count)
            } else {
                guard let headersEnd = body.range(of: headerEnd, in: cursor..<body.endIndex) else { break }
                (headers, contentStart) = (String(decoding: body[cursor..<headersEnd.lowerBound], as: UTF8.self), headersEnd.upperBound)
            }
            guard let next = body.range(of: crlf + boundary, in: contentStart..<body.endIndex) else { break }
            parts.append(Part(name: parameter("name", in: headers), filename: parameter("filename", in: headers),
                              data: body[contentStart..<next.lowerBound]))
            cursor = next.upperBound
        }
        throw Problem(.badRequest, "the multipart body is truncated or malformed")
    }

    /// A parameter of a part's `Content-Disposition` header (`name`, `filename`).
    static func parameter(_ key: String, in headers: String) -> String? {
        for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
            return dispositionParameter(key, in: String(line.dropFirst("content-disposition:".count)))
        }
        return nil
    }

    /// A parameter of a `Content-Disposition` value (`attachment; filename="IMG_1.jpg"`), with RFC
    /// 5987's `filename*=UTF-8''…` preferred when both are given.
    static func dispositionParameter(_ key: String, in value: String) -> String? {
        let items = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        if let extended = items.first(where: { $0.lowercased().hasPrefix(key + "*=") }) {
            let encoded = extended.dropFirst(key.count + 2)
            if let quote = encoded.range(of: "''") {
                return String(encoded[quote.upperBound...]).removingPercentEncoding
            }
        }
        for item in items where item.lowercased().hasPrefix(key + "=") {
            return String(item.dropFirst(key.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }
}
