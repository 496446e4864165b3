import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// Vendor names whose weakly read words OCR garbled, mended with the real Tesseract dictionary.
@Suite struct WordRepairTests {
    static let engine: OCREngine = TestSupport.runningEngine(threads: 1)

    /// An OCR result of `text` where a word written `WORD@60` was read with confidence 60 (others 95).
    static func weaklyRead(_ text: String) -> OCRResult {
        var result = ocrResult(text.replacingOccurrences(of: #"@\d+"#, with: "", options: .regularExpression))
        let marked = text.split(separator: "\n").map { $0.split(separator: " ") }
        for (i, row) in marked.enumerated() {
            for (j, token) in row.enumerated() {
                let parts = token.split(separator: "@")
                if parts.count == 2, let confidence = Double(parts[1]) { result.lines[i].words[j].confidence = confidence }
            }
        }
        return result
    }

    static func vendor(_ text: String, dictionary: Bool = true) async throws -> String? {
        let lookup: @Sendable ([String]) async throws -> Set<String> = { words in try await engine.dictionaryWords(among: words) }
        let reader = dictionary ? ScriptedPageReader(maxPasses: 1, dictionary: lookup) { _ in nil } : nil
        let input = AnalysisInput(source: "shop.jpg", ocr: weaklyRead(text), reader: reader)
        return try await HeuristicAnalyzer().analyze(input, options: AnalysisOptions()).vendor
    }

    static let body = "\n12/03/2024\nBREAD 2.10\nTOTAL 2.10\nCASH 5.00\nCHANGE 2.90"

    @Test func theEnginesDictionaryKnowsWordsNotTheirMisreadings() async throws {
        let known = try await Self.engine.dictionaryWords(among: ["BAKERIES", "BAKERLES", "Beauty", "Heauty", "MOONLIGHT"])
        #expect(known == ["BAKERIES", "Beauty", "MOONLIGHT"])
    }

    @Test("A weakly read word the dictionary explains by one or two confusions is mended", arguments: [
        ("GARDENIA BAKERLES@60 (KL) SDN BHD", "GARDENIA BAKERIES (KL) SDN BHD"),
        ("99 SPEED WART@70 S/B", "99 SPEED MART S/B"),
        ("MUUNLIGHT@72 CAKE HOUSE SDN BHD", "MOONLIGHT CAKE HOUSE SDN BHD"),
        ("buardian@66 Health And Heauty@32 SDN BHD", "guardian Health And Beauty SDN BHD"),
    ])
    func mendsMisreadWords(read: String, expected: String) async throws {
        #expect(try await Self.vendor(read + Self.body) == expected)
        #expect(try await Self.vendor(read + Self.body, dictionary: false) != expected, "the dictionary does the mending")
    }

    /// OCR's slips in long words come with high confidence too: those are checked whatever it is.
    @Test(arguments: [
        ("HERO OISTRIBUTION SDN BHD", "HERO DISTRIBUTION SDN BHD"),
        ("GARDENIA BAKERLES (KL) SDN BHD", "GARDENIA BAKERIES (KL) SDN BHD"),
    ])
    func mendsClearlyReadLongWords(read: String, expected: String) async throws {
        #expect(try await Self.vendor(read + Self.body) == expected)
        // A clearly read word shorter than that is taken as read.
        #expect(try await Self.vendor("99 SPEED WART S/B" + Self.body) == "99 SPEED WART S/B")
    }

    @Test("Names the dictionary does not hold stay as read when read clearly, or when nothing explains them", arguments: [
        "KAISON FURNISHING SDN BHD",        // KAISON is one confusion from RAISON, but read clearly
        "ZAWTAJAYA@50 FOOD SDN BHD",         // no dictionary word one or two confusions away
        "ABC@40 TRADING SDN BHD",            // too short to judge
    ])
    func leavesNamesAlone(read: String) async throws {
        let asRead = read.replacingOccurrences(of: #"@\d+"#, with: "", options: .regularExpression)
        #expect(try await Self.vendor(read + Self.body) == asRead)
    }

    @Test func aWordSeveralDictionaryWordsExplainStaysAsRead() {
        // HOLT is one confusion (H/B, H/N) from both BOLT and NOLT: neither wins.
        let repaired = WordRepair.repair("HOLT GARAGE", suspects: ["HOLT"], known: ["BOLT", "NOLT"])
        #expect(repaired == "HOLT GARAGE")
        #expect(WordRepair.repair("HOLT GARAGE", suspects: ["HOLT"], known: ["BOLT"]) == "BOLT GARAGE")
    }
}
