import Foundation
import ReceiptModel

/// A receipt's readings as the memory of shops sees them: what identifies the shop
/// (`IdentityFinder`) and the fingerprint of its header, from the neural reader's reading first
/// (it reads print more faithfully), then Tesseract's.
package struct ShopReading {
    /// The readings, the preferred first.
    package let readings: [Reading]
    package let identity: ShopIdentity
    /// `IdentityFinder.headerFingerprint` of the preferred reading.
    package let header: String?

    package init(_ reading: Reading, neural: Reading?, options: AnalysisOptions) {
        readings = [neural, reading].compactMap { $0 }
        let currency = (reading.currency ?? neural?.currency)?.code ?? options.defaultCurrency
        identity = IdentityFinder.find(readings, currency: currency)
        header = IdentityFinder.headerFingerprint(readings[0].document)
    }

    /// The shop's keys, with the name as printed.
    package func keys(printedName: String?) -> ShopKeys {
        ShopKeys(identity: identity, printedName: printedName, header: header)
    }
}
