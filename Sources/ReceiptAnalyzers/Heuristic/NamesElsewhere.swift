import Foundation
import ReceiptModel

/// A name the receipt gives its shop outside the header: where a logo heads the receipt and no
/// reader turns it into text, the shop still names itself in its web address or e-mail, on the
/// card slip's merchant line, or in its thanks at the foot.
package struct NameElsewhere: Sendable {
    package enum Kind: Sendable, Equatable {
        /// A web address or an e-mail domain: `www.fiveguys.co.uk`, `help@tesco.com`.
        case web
        /// "THANK YOU FOR SHOPPING AT KOHL'S", "The Meijer Team" (`VendorFinder.signOffName`).
        case signOff
        /// A card slip's `MERCHANT: …` line.
        case merchant
    }

    package var kind: Kind
    /// The name as printed (for a web address: the words of a row that spell its domain, else the
    /// domain's name in capitals).
    package var name: String
    /// Its letters and digits (`NameMatching.normalized`).
    package var key: String { NameMatching.normalized(name) }
    /// The row it was read from.
    package var line: ReceiptLine
}

package enum NamesElsewhere {
    /// Every name the receipt gives its shop outside the header, each once.
    package static func find(_ document: ReceiptDocument) -> [NameElsewhere] {
        var found: [NameElsewhere] = []
        func add(_ name: NameElsewhere) {
            guard name.key.count >= 3, !found.contains(where: { $0.key == name.key }) else { return }
            found.append(name)
        }
        for line in document.lines {
            for domain in domains(in: line.text) { add(NameElsewhere(kind: .web, name: spelled(domain, in: document) ?? domain.uppercased(), line: line)) }
            if let name = merchantName(line) { add(NameElsewhere(kind: .merchant, name: name, line: line)) }
        }
        if let name = VendorFinder.signOffName(document), let line = document.lines.first(where: { $0.text.localizedCaseInsensitiveContains(name) }) {
            add(NameElsewhere(kind: .signOff, name: name, line: line))
        }
        return found
    }

    /// `www.name.tld`, `http(s)://name.tld`, `name.com`, `name.co.uk`, `user@name.tld`: the name
    /// before the top-level domain (and before `co`/`com`/`org` of a country's second level), in
    /// lower case; not a mail provider's, a social network's or a survey's.
    static func domains(in text: String) -> [String] {
        domainPattern.matches(in: text.lowercased()).compactMap { match -> String? in
            guard let host = match.groups[1] ?? match.groups[2] else { return nil }
            var labels = host.replacingOccurrences(of: " ", with: "").split(separator: ".").map(String.init)
            guard labels.count >= 2 else { return nil }
            labels.removeLast()                                   // the top-level domain
            if labels.count >= 2, secondLevel.contains(labels.last!) { labels.removeLast() }
            guard let name = labels.last?.replacingOccurrences(of: "-", with: ""), name.count >= 3,
                  name.contains(where: \.isLetter), !generic.contains(name),
                  !surveyWords.contains(where: { name.contains($0) }) else { return nil }
            return name
        }
    }

    // A host after `www.`, `://` or `@`, or any host ending in a common top-level domain.
    private static let domainPattern = Pattern(
        #"(?:www\s?\.\s?|https?://|@)([a-z0-9][a-z0-9\-]*(?:\.[a-z0-9\-]+)+)|\b([a-z0-9][a-z0-9\-]{2,}\.(?:com|co\.uk|org\.uk|net|org|de|fr|it|es|nl|be|ie|at|ch|com\.my|my|co|us|ca|au|eu|shop|store))\b"#)

    private static let secondLevel: Set<String> = ["co", "com", "org", "net", "gov", "ac"]
    /// Domains that name no shop: mail providers, social networks, payment and delivery services.
    private static let generic: Set<String> = [
        "gmail", "googlemail", "hotmail", "yahoo", "outlook", "live", "msn", "icloud", "aol", "gmx", "web", "mail", "email",
        "facebook", "instagram", "twitter", "tiktok", "youtube", "google", "linkedin", "pinterest", "apple", "microsoft",
        "paypal", "visa", "mastercard", "amex", "stripe", "square", "squareup", "sumup", "zettle", "izettle", "worldpay",
        "ubereats", "deliveroo", "justeat", "doordash", "grubhub", "tripadvisor", "yelp", "gov", "www",
    ]
    /// Survey and feedback sites a receipt invites its customers to ("tellsubway", "mcdvoice").
    private static let surveyWords = ["survey", "feedback", "tell", "voice", "opinion", "listens", "review", "rate", "win"]

    /// The words of some row that spell `domain` (`FIVE GUYS` for `fiveguys`), as printed.
    static func spelled(_ domain: String, in document: ReceiptDocument) -> String? {
        for line in document.lines {
            let words = line.text.split(whereSeparator: \.isWhitespace).map(String.init)
            for start in words.indices {
                var joined = ""
                for end in start..<min(words.count, start + 5) {
                    joined += NameMatching.normalized(words[end])
                    if joined == domain { return words[start...end].joined(separator: " ") }
                    if joined.count >= domain.count || !domain.hasPrefix(joined) { break }
                }
            }
        }
        return nil
    }

    /// The name on a card slip's merchant line: `MERCHANT: CASTLEGATE PARKING`,
    /// `Merchant Name BIG BURGER CO`; not a merchant number.
    static func merchantName(_ line: ReceiptLine) -> String? {
        guard let match = merchantPattern.firstMatch(in: line.text), let raw = match[1] else { return nil }
        let name = raw.trimmingCharacters(in: CharacterSet(charactersIn: " .:-#"))
        let label = LabelText(name)
        guard name.filter(\.isLetter).count >= 3, let first = label.words.first,
              !["ID", "NO", "NUMBER", "NUM", "COPY", "REF", "CODE"].contains(first) else { return nil }
        return name
    }

    private static let merchantPattern = Pattern(#"^\s*MERCHANT(?:\s+NAME)?\s*[:.]?\s+([A-Za-z].*)$"#)
}
