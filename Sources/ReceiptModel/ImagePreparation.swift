import Foundation

/// An image ready to be sent inline.
public struct InlineImage: Sendable, Equatable {
    public var data: Data
    /// `image/jpeg`, `image/png`, `image/webp`, …
    public var mimeType: String

    public init(data: Data, mimeType: String) {
        self.data = data
        self.mimeType = mimeType
    }
}

/// What a remote analyzer asks of an `ImagePreparer`: an image in one of `acceptedMimeTypes`, at
/// most `maxBytes` long and at most `maxDimension` pixels on its long side.
public struct ImagePreparationRequest: Sendable {
    public var image: Data
    /// The type sniffed from the bytes, or nil when unknown.
    public var mimeType: String?
    public var maxBytes: Int
    public var maxDimension: Int
    public var acceptedMimeTypes: [String]

    public init(image: Data, mimeType: String?, maxBytes: Int, maxDimension: Int, acceptedMimeTypes: [String]) {
        self.image = image
        self.mimeType = mimeType
        self.maxBytes = maxBytes
        self.maxDimension = maxDimension
        self.acceptedMimeTypes = acceptedMimeTypes
    }
}

/// Re-encodes and downscales an image for sending (the pipeline supplies one built on Leptonica).
public typealias ImagePreparer = @Sendable (ImagePreparationRequest) async throws -> InlineImage
