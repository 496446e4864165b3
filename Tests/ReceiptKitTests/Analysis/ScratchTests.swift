import Foundation
import Testing
@testable import ReceiptKit

@Suite struct Scratch {
    @Test func debug() throws {
        for name in ["Image_60_20_db26cc8b43a2b4a02c7a340062a1573617b79b3e", "Image_12_10_9af7313e785b3ac5f17ce0ce25fa0edd9e936b6a"] {
            let tsv = try String(contentsOfFile: "/work/ocr-cache/wildreceipt/\(name).tsv", encoding: .utf8)
            let doc = ReceiptDocument(ocr: OCRResult(tesseractTSV: tsv))
            for line in doc.lines.prefix(8) {
                let name = VendorFinder.clean(line.text)
                print("V", line.index, Int(line.confidence), VendorFinder.isPlausibleName(name, label: LabelText(line.text)), name, "|", line.text)
            }
            print(VendorFinder.find(doc) as Any)
        }
    }
}
