import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptKit

/// `POST /v1/analyze`: the original app's call, one image read while the client waits.
extension ReceiptServer {
    /// `{"image": "<base64>", "mimeType": "image/jpeg"}` in, the `analysis` object out, nothing
    /// stored (with `?store=true`: stored as an upload would be, the analysis with `receiptId` and
    /// `expenseId` beside it). `image` may be standard or URL-safe base64, padded or not, or a
    /// `data:` URL. At most `AnalysisGate.slots` images are read at once, within a pixel budget;
    /// others get 429 with Retry-After.
    func analyze(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let store = try QueryParameters(request, allowed: ["store"]).flag("store") ?? false
        let body = try await BoundedBody.collect(request, context: context, limit: configuration.maxUploadBytes * 4 / 3 + 4096,
                                                 reported: configuration.maxUploadBytes, setting: configuration.advice[.maxUploadSize])
        guard let json = try? JSONValue.parse([UInt8](buffer: body)) else {
            throw Problem(.badRequest, "the body is not JSON: send {\"image\": \"<base64>\", \"mimeType\": \"image/jpeg\"}")
        }
        guard let fields = json.objectValue else {
            throw Problem(.badRequest, "the body is not a JSON object: send {\"image\": \"<base64>\", \"mimeType\": \"image/jpeg\"}")
        }
        for (name, value) in fields {
            switch name {
            case "image": guard value.stringValue != nil else { throw Problem(.badRequest, "image must be a string: the image's bytes in base64") }
            case "mimeType": guard value.stringValue != nil else { throw Problem(.badRequest, "mimeType must be a string such as image/jpeg") }
            default: throw Problem(.badRequest, "unknown field '\(name)' (the body takes image and mimeType)")
            }
        }
        guard let encoded = json["image"]?.stringValue else { throw Problem(.badRequest, "image (the image's bytes in base64) is missing") }
        let data = try Self.imageBytes(encoded)
        try Self.checkFormat(data)
        try checkPixels(data, file: "upload")
        if store {
            // Stored as an upload would be: the analysis when it is done within the wait limit,
            // else 202 and where its record will be.
            let principal = try context.who()
            let receipt = try await pipeline.submit(imageData: data, filename: "analyze",
                                                    as: try principal.ownership(group: nil, metadata: nil))
            guard let done = try await finished(receipt.id, for: pipeline.scoped(to: principal), within: configuration.maxWaitSeconds) else {
                return try await accepted(receipt, for: pipeline.scoped(to: principal))
            }
            guard let analysis = done.analysis else {
                throw Problem(.unprocessableContent, (done.lastError ?? "the image could not be read").oneLine)
            }
            var pairs = analysis.json.objectValue ?? []
            pairs.append(("receiptId", .string(done.id.uuidString.lowercased())))
            pairs.append(("expenseId", .optionalString(done.expenseId?.uuidString.lowercased())))
            var response = Self.json(.object(pairs))
            response.headers[.location] = Self.location(receipt.id)
            return response
        }
        // What decoding the image costs: its pixels (an estimate for PDF and HEIC, whose headers
        // Leptonica does not read).
        let pixels = OCREngine.dimensions(of: data).map { $0.width * $0.height } ?? 16_000_000
        guard analyses.enter(pixels: min(pixels, analyses.pixelBudget)) else {
            throw Problem(.tooManyRequests, "\(analyses.slots) images are being analyzed (or the memory for this one is in use); try again shortly")
        }
        defer { analyses.leave(pixels: min(pixels, analyses.pixelBudget)) }
        do {
            let processed = try await processor.process(imageData: data, displayPath: "upload")
            return Self.json(processed.analysis.json)
        } catch let error as ReceiptError {
            // A pixel bomb, a broken or encrypted file: the request was understood, the content cannot be read.
            throw Problem(.unprocessableContent, configuration.advice.apply(to: error).message)
        }
    }

    /// The bytes of `image`: base64 (standard or URL-safe alphabet, padded or not, line breaks and
    /// spaces ignored), or a `data:[type];base64,…` URL. 400 saying why otherwise.
    static func imageBytes(_ text: String) throws -> Data {
        var encoded = Substring(text)
        if encoded.lowercased().hasPrefix("data:") {
            guard let comma = encoded.firstIndex(of: ","), encoded[..<comma].lowercased().hasSuffix(";base64") else {
                throw Problem(.badRequest, "image is a data: URL without ;base64, (expected data:image/jpeg;base64,…)")
            }
            encoded = encoded[encoded.index(after: comma)...]
        }
        var cleaned = String(encoded.filter { !$0.isWhitespace })
        guard !cleaned.isEmpty else { throw Problem(.badRequest, "image is empty: send the image's bytes in base64") }
        cleaned = cleaned.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while cleaned.hasSuffix("=") { cleaned.removeLast() }
        guard cleaned.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/") }), cleaned.count % 4 != 1 else {
            throw Problem(.badRequest, "image is not base64 (standard or URL-safe) nor a data: URL")
        }
        cleaned += String(repeating: "=", count: (4 - cleaned.count % 4) % 4)
        guard let data = Data(base64Encoded: cleaned), !data.isEmpty else {
            throw Problem(.badRequest, "image is not base64 (standard or URL-safe) nor a data: URL")
        }
        return data
    }
}
