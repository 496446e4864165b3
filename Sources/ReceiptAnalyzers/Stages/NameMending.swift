import ReceiptModel

/// Letters OCR confused in the vendor's weakly read words, mended by the OCR language's dictionary
/// (`BAKERLES` → `BAKERIES`; see `WordRepair`).
enum NameMending {
    static func mend(_ vendor: VendorFinding?, with reader: any PageReader) async -> VendorFinding? {
        guard var vendor else { return nil }
        let suspects = WordRepair.suspects(in: vendor)
        if !suspects.isEmpty, let known = try? await reader.dictionaryWords(among: WordRepair.lookups(for: suspects)) {
            vendor.name = WordRepair.repair(vendor.name, suspects: suspects, known: known)
        }
        return vendor
    }
}
