import Foundation

/// One identity field a receipt prints, as read: its value, how sure the reading is (0–1), and the
/// words it was read from (their boxes, for the review page's `sources`).
public struct IdentityField: Sendable, Equatable {
    public var value: String
    public var confidence: Double
    public var words: [OCRWord]

    public init(value: String, confidence: Double, words: [OCRWord] = []) {
        self.value = value
        self.confidence = confidence
        self.words = words
    }
}

/// What identifies the shop a receipt is from, wherever the receipt prints it (issue 57): its tax
/// or registration number, phone, web domain, address, store number, and the purchase's time and
/// receipt number. Read by the analyzer from every receipt; shown in records as `vendorTaxId`,
/// `vendorPhone`, `vendorWeb`, `vendorAddress`, `storeNumber`, `time` (and `receiptNumber`), each with
/// its confidence (`confidence.vendorPhone` …) and words (`sources.vendorPhone` …).
public struct ShopIdentity: Sendable, Equatable {
    /// VAT / GST / SST / ABN / EIN / SIRET / company registration number, as the scheme writes it
    /// (`GB123456789`, `DE136695976`, `001234567890`); where the scheme has a checksum, only a
    /// number that passes it.
    public var taxId: IdentityField?
    /// The scheme the tax id was read as (`GB VAT`, `MY GST`, `AU ABN`…).
    public var taxIdScheme: String?
    /// The phone number in international form (`+60378051234`), normalized with the receipt's country.
    public var phone: IdentityField?
    /// The shop's web domain (`tesco.com`).
    public var web: IdentityField?
    /// The address as printed, its rows joined into one line.
    public var address: IdentityField?
    /// The address's postcode (`43300`, `SW1A 1AA`, `94107`), when it prints one.
    public var postcode: String?
    /// The branch's number (`STORE #0042` → `0042`).
    public var storeNumber: IdentityField?
    /// The purchase's time of day, `HH:MM` (24 hours).
    public var time: IdentityField?
    /// The receipt's own number (`Receipt No: 104512`, `INV-00123`).
    public var receiptNumber: IdentityField?

    public init() {}

    /// The fields in the order records list them, with their names in the record.
    public var fields: [(name: String, field: IdentityField?)] {
        [("vendorTaxId", taxId), ("vendorPhone", phone), ("vendorWeb", web), ("vendorAddress", address),
         ("storeNumber", storeNumber), ("time", time), ("receiptNumber", receiptNumber)]
    }

    /// The record's names of the identity fields.
    public static let fieldNames = ["vendorTaxId", "vendorPhone", "vendorWeb", "vendorAddress", "storeNumber", "time", "receiptNumber"]

    /// Reads the identity fields of an `analysis` object (their values and confidences; the words
    /// stay in `sources`).
    public init(analysis json: JSONValue) {
        func field(_ name: String) -> IdentityField? {
            guard let value = json[name]?.stringValue, !value.isEmpty else { return nil }
            return IdentityField(value: value, confidence: json["confidence"]?[name]?.doubleValue ?? 0)
        }
        taxId = field("vendorTaxId")
        taxIdScheme = json["vendorTaxIdScheme"]?.stringValue
        phone = field("vendorPhone")
        web = field("vendorWeb")
        address = field("vendorAddress")
        postcode = json["shop"]?["keys"]?["postcode"]?.stringValue
        storeNumber = field("storeNumber")
        time = field("time")
        receiptNumber = field("receiptNumber")
    }

    /// The fields' values as the record's top-level pairs (null where not printed), the tax id's scheme after it.
    public var jsonPairs: [(String, JSONValue)] {
        var pairs: [(String, JSONValue)] = []
        for (name, field) in fields {
            pairs.append((name, .optionalString(field?.value)))
            if name == "vendorTaxId" { pairs.append(("vendorTaxIdScheme", .optionalString(taxIdScheme))) }
        }
        return pairs
    }

    /// Each printed field's confidence, for the record's `confidence` object.
    public var confidencePairs: [(String, JSONValue)] {
        fields.compactMap { name, field in field.map { (name, .double($0.confidence, digits: 2)) } }
    }
}
