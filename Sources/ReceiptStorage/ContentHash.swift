import Crypto
import Foundation

/// A receipt's `contentHash`: the SHA-256 of its bytes as 64 lowercase hex digits (swift-crypto's
/// SHA256, hardware-accelerated where the CPU allows). The store deduplicates and files images by it.
public enum ContentHash {
    public static func hex(of data: Data) -> String {
        hex(of: SHA256.hash(data: data))
    }

    /// A SHA-256 computed piece by piece (a file read in chunks) as the same 64 hex digits.
    public static func hex(of digest: SHA256.Digest) -> String {
        var text = ""
        text.reserveCapacity(64)
        for byte in digest {
            text.append(Self.digits[Int(byte >> 4)])
            text.append(Self.digits[Int(byte & 0x0f)])
        }
        return text
    }

    private static let digits = Array("0123456789abcdef")
}
