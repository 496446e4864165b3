import Foundation
import Testing
@testable import ReceiptKit
@testable import ReceiptOCR
@testable import TestHelpers

/// iPhone photos: HEIC decoded in process by libheif, turned upright, then read like any photo.
@Suite struct HEICTests {
    @Test func aHEICIsToldByItsBytesNotItsName() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("iphone-autospares.heic")))
        #expect(ImageFormat.sniff(data) == .heic)
        #expect(ImageFormat.heic.isSupported && ImageFormat.avif.isSupported)
    }

    @Test func theHEICIsDecodedUprightAsItsEXIFOrientationSays() throws {
        let heic = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("iphone-autospares.heic")))
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("exif-orientation-6.jpg")))
        let loader = ImageLoader(maxPixels: 100_000_000, preprocessing: .standard)
        let fromHEIC = try loader.decode(heic, file: "iphone-autospares.heic")
        let fromJPEG = try loader.decode(jpeg, file: "exif-orientation-6.jpg")
        // Stored 758 wide and 618 high; upright it is taller than wide, as the JPEG with its EXIF applied.
        #expect(fromHEIC.image.width == fromJPEG.image.width && fromHEIC.image.height == fromJPEG.image.height)
        #expect(fromHEIC.image.height > fromHEIC.image.width)
        #expect(fromHEIC.sourceWidth == 618 && fromHEIC.sourceHeight == 758)
        #expect(!HeifDecoder.hasTransformProperties(heic), "heif-enc writes no irot: the EXIF orientation turns it")
    }

    @Test func theHEICGivesTheSameExpenseAsTheJPEGItWasMadeFrom() async throws {
        let dir = try TemporaryDirectory()
        let result = try await ReceiptsCLI.run(["process", ReceiptsCLI.testReceipt("iphone-autospares.heic"),
                                                ReceiptsCLI.testReceipt("exif-orientation-6.jpg"),
                                                "--store", dir.storePath, "--format", "ndjson"])
        #expect(result.status == 0, "\(result.err)")
        let records = try result.ndjson()
        let heic = try #require(records.first { $0["file"]?.stringValue?.hasSuffix(".heic") == true })
        let jpeg = try #require(records.first { $0["file"]?.stringValue?.hasSuffix(".jpg") == true })
        for field in ["vendor", "date", "total", "tax", "currency", "category"] {
            #expect(heic["analysis"]?[field] == jpeg["analysis"]?[field], "\(field)")
        }
        #expect(heic["analysis"]?["total"]?.doubleValue == 45.45)
    }

    @Test func aPictureAboveThePixelLimitIsRefusedBeforeDecoding() throws {
        let heic = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("iphone-autospares.heic")))
        let loader = ImageLoader(maxPixels: 100_000, preprocessing: .standard)
        #expect {
            _ = try loader.decode(heic, file: "big.heic")
        } throws: { error in
            guard let error = error as? ReceiptError else { return false }
            return error.code == .tooLarge && error.description.hasPrefix("big.heic: ") && error.description.contains("758×618")
        }
    }
}
