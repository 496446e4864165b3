import Foundation
import Testing
import ReceiptKit
import ReceiptEvaluation
@testable import TestHelpers

/// `receipts eval` run as a user runs it (the scoring itself: ReceiptEvaluationTests).
@Suite struct EvalCommandTests {
    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("eval-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func evalTimesTheAnalyzerAloneWhenAsked() async throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["uk-parking.jpg", "uk-parking.expected.json", "us-diner.jpg", "us-diner.expected.json"] {
            try FileManager.default.copyItem(atPath: ReceiptsCLI.testReceipt(name), toPath: dir.appendingPathComponent(name).path)
        }
        let result = try await ReceiptsCLI.run(["eval", dir.path, "--time-analyzer", "--workers", "2"])
        #expect(result.status == 0, "\(result.err)")
        let lines = result.out.split(separator: "\n")
        #expect(lines.first?.contains("2 receipts") == true && lines.first?.contains("total 100.0%") == true, "\(result.out)")
        let timing = try #require(lines.first { $0.hasPrefix("analyzer (heuristic") }, "no timing line in: \(result.out)")
        #expect(timing.contains("(2 receipts × 5 rounds)"))
        let median = try #require(timing.firstMatch(of: /median ([0-9.]+) ms/).flatMap { Double($0.1) })
        #expect(median > 0 && median < 1000, "\(timing)")
    }

    @Test func evalDumpsEveryReceiptsCandidatesForTraining() async throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["us-diner.jpg", "us-diner.expected.json", "uk-insurance.jpg", "uk-insurance.expected.json"] {
            try FileManager.default.copyItem(atPath: ReceiptsCLI.testReceipt(name), toPath: dir.appendingPathComponent(name).path)
        }
        let dump = dir.appendingPathComponent("candidates.ndjson")
        // As make train reads the receipts it fits the model on: with every receipt's checks.
        let result = try await ReceiptsCLI.run(["eval", dir.path, "--reader", "both", "--ocr-passes", "5", "--checks", "every", "--dump-candidates", dump.path, "--workers", "2"])
        #expect(result.status == 0, "\(result.err)")
        let lines = try String(contentsOf: dump, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        // The header names the readers and every field's features, which make train reads.
        let header = try JSONValue.parse(String(try #require(lines.first)))
        #expect(header["readers"]?.stringValue == "both")
        for field in LearnedField.allCases {
            #expect(header["featureNames"]?[field.rawValue]?.arrayValue?.compactMap(\.stringValue)
                    == CandidateProposer.features(for: field, readers: .both))
        }
        for line in lines.dropFirst() {
            let receipt = try JSONValue.parse(String(line))
            let name = receipt["receipt"]?.stringValue ?? "?"
            #expect(receipt["known"]?["total"]?.boolValue == true, "\(name)")
            #expect((receipt["passes"]?.doubleValue ?? 0) >= 2, "\(name): the first pass and the date's and vendor's checks")
            let candidates = receipt["candidates"]?.arrayValue ?? []
            for field in LearnedField.allCases {
                let mine = candidates.filter { $0["field"]?.stringValue == field.rawValue }
                // Each field's right value is among its candidates, marked so, with every feature the model reads.
                #expect(mine.contains { $0["right"]?.boolValue == true }, "\(name): no right \(field.rawValue) candidate")
                #expect(mine.allSatisfy { $0["features"]?.arrayValue?.count == CandidateProposer.features(for: field, readers: .both).count }, "\(name) \(field.rawValue)")
            }
        }
    }
}
