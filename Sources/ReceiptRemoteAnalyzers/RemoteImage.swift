import Foundation
import ReceiptAnalyzers
import ReceiptModel

/// Chooses the image a remote analyzer sends: as it is when the API takes its type and it is
/// small enough, otherwise through the configured `ImagePreparer`, otherwise not at all.
package enum RemoteImage {
    package struct Choice {
        var image: InlineImage?
        /// Why no image is sent although `send` asked for one (recorded in `details.imageOmitted`).
        var omittedReason: String?
    }

    /// The type of an image from its first bytes.
    package static func sniffMimeType(_ data: Data) -> String? {
        let b = [UInt8](data.prefix(16))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + prefix.count && Array(b[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("GIF8".utf8)) { return "image/gif" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "image/tiff" }
        if starts(Array("BM".utf8)) { return "image/bmp" }
        if starts(Array("%PDF".utf8)) { return "application/pdf" }
        if starts(Array("ftyp".utf8), at: 4) {
            let brand = String(decoding: b.count >= 12 ? b[8..<12] : [], as: UTF8.self)
            if ["heic", "heix", "hevc", "heim", "heis"].contains(brand) { return "image/heic" }
            if ["mif1", "msf1"].contains(brand) { return "image/heif" }
        }
        return nil
    }

    package static func choose(for input: AnalysisInput, configuration: RemoteAnalyzerConfiguration,
                       accepted: [String], provider: String) async throws -> Choice {
        let send = configuration.send
        guard send.sendsImage else { return Choice() }
        func omit(_ reason: String) throws -> Choice {
            if send == .image {
                throw ReceiptError(.remoteFailed, "cannot send the image: \(reason)", file: input.source, retry: .never)
            }
            return Choice(omittedReason: reason)
        }
        guard let data = input.imageData, !data.isEmpty else { return try omit("no image data available") }

        let mimeType = sniffMimeType(data)
        let longSide = max(input.ocr.sourceWidth, input.ocr.sourceHeight)
        let tooBig = data.count > configuration.maxInlineImageBytes
        let unsupported = mimeType.map { !accepted.contains($0) } ?? true
        // A PDF has no pixels to count: its size in bytes is what limits sending it.
        let tooLarge = mimeType != "application/pdf" && longSide > configuration.maxImageDimension
        if !tooBig, !unsupported, !tooLarge, let mimeType {
            return Choice(image: InlineImage(data: data, mimeType: mimeType))
        }
        if let prepare = configuration.imagePreparer {
            let request = ImagePreparationRequest(image: data, mimeType: mimeType, maxBytes: configuration.maxInlineImageBytes,
                                                  maxDimension: configuration.maxImageDimension, acceptedMimeTypes: accepted)
            let prepared: InlineImage
            do {
                prepared = try await prepare(request)
            } catch {
                return try omit("re-encoding failed (\(error))")
            }
            guard prepared.data.count <= configuration.maxInlineImageBytes, accepted.contains(prepared.mimeType) else {
                return try omit("re-encoded image is still \(megabytes(prepared.data.count)) \(prepared.mimeType), "
                                + "above the \(megabytes(configuration.maxInlineImageBytes)) limit or not accepted")
            }
            return Choice(image: prepared)
        }
        if !tooBig, !unsupported, let mimeType {          // only large in pixels: send as it is
            return Choice(image: InlineImage(data: data, mimeType: mimeType))
        }
        if tooBig {
            return try omit("the image is \(megabytes(data.count)), above the \(megabytes(configuration.maxInlineImageBytes)) "
                            + "sent inline, and no image re-encoder is configured")
        }
        return try omit("\(provider) does not accept \(mimeType ?? "this image type") "
                        + "(accepted: \(accepted.joined(separator: ", "))) and no image re-encoder is configured")
    }

    package static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
