import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers

/// The accuracy regression gate: the real `receipts` binary runs `eval --format json` (real OCR,
/// the default analyzer) on ../shared/receipts and TestReceipts, and every field, the share of
/// receipts left unflagged and how often those are right must stay at or above their floors.
///
/// A floor is the level the shipped analyzer reaches, less about two points for OCR noise (the
/// worth of one receipt where a folder has few). The shipped model was trained on these folders,
/// so these are regression floors, not results: `make train` prints the held-out figures
/// (docs/accuracy.md). Raise a floor when the analyzer improves; never lower one to make a change
/// pass without saying why in the commit (docs/experiments.md keeps the history of the floors).
@Suite(.serialized) struct AccuracyGateTests {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let shared = repoRoot.deletingLastPathComponent().appendingPathComponent("shared/receipts")
    static var sharedPresent: Bool {
        FileManager.default.fileExists(atPath: shared.appendingPathComponent("sroie").path)
            && FileManager.default.fileExists(atPath: shared.appendingPathComponent("wildreceipt").path)
    }

    static var binary: URL { ReceiptsCLI.binary }

    /// Floors in percent, per folder and field (the default reading: both readers, each page read
    /// once by each). Reached 2026-11-28 with PP-OCRv4's detector and v6 small's recognizer and the
    /// models refitted on their candidates (issue 46): sroie vendor 83.0, date 100, total 96.0;
    /// wildreceipt vendor 72.7, date 97.4, total 93.9, tax 91.4; TestReceipts (36) 100 on every
    /// field. Floors about two points under (none lowered).
    static let floors: [String: [String: Double]] = [
        "sroie": ["vendor": 81, "date": 98, "total": 95, "currency": 98],
        "wildreceipt": ["vendor": 70.5, "date": 95.4, "total": 91.9, "tax": 89.5, "currency": 90],
        // TestReceipts grew from 36 to 48 on 2026-12-05 with issue 58's letters and invoices (DVLA, council
        // and insurers' letters and e-mails, garage and parts invoices, a fuel-card statement): measured
        // with main's model carried onto the new features at weight 0, before `make train` refits it,
        // vendor 95.8 (46/48), date 100, total 95.8 (46/48), tax 100 (39/39); floors a receipt under.
        // Raise them after the refit.
        "TestReceipts": ["vendor": 93.5, "date": 100, "total": 93.5, "tax": 97, "currency": 100, "category": 100],
        // TestReceipts/long: three long receipts, each whole and in 2 or 3 overlapping photos (issue 49).
        "long": ["vendor": 100, "date": 100, "total": 100, "tax": 100, "currency": 100, "category": 100],
    ]

    /// needsReview floors per folder, in percent: the share of receipts (with a known total or date)
    /// left unflagged; how often those have every known total and date right (`right`), every known
    /// total, date and tax right (`withTax`), and a known vendor right (`vendor`).
    /// Reached 2026-11-28 with PP-OCRv4's detector and v6 small's recognizer (issue 46): sroie 85.0 %
    /// unflagged, 98.8 % right, 98.8 % with the tax, vendor 85.9 %; wildreceipt 58.5 %, 96.8 %,
    /// 91.9 %, 67.7 %; TestReceipts 100 % of 36, all right. Shares about two points under, rightness
    /// a receipt under (held out: docs/learned-model.md).
    static let reviewFloors: [String: (share: Double, right: Double, withTax: Double, vendor: Double)] = [
        // TestReceipts (48 since issue 58; the same measurement as its field floors): 87.5 % unflagged (42/48),
        // every unflagged receipt right on its total, date and tax (42/42: the two wrong totals are flagged),
        // vendor 95.2 % (40/42). Right and right-with-the-tax stay at 100: issue 58's promise.
        // wildreceipt's share fell to 54.7 % on 2026-12-06 (from 58.5) with issues 56 and 58's review (pictures and
        // items that do not add up, taxes above the country's ceiling, printed amounts that contradict the chosen
        // ones), while its unflagged receipts grew righter: 98.3 % (from 96.8), 93.1 % with the tax (from 91.9).
        // Share floor 56 → 52.5, rightness floors 95 → 96.5 and 90 → 91 (docs/experiments.md).
        "sroie": (83, 97, 97, 84), "wildreceipt": (52.5, 96.5, 91, 65), "TestReceipts": (85, 100, 100, 92),
        // TestReceipts/long (issue 49): 100 % unflagged and right with the tax and vendor on 2026-11-28 (debug build, both readers).
        "long": (85, 100, 100, 100),
    ]

    /// Line items' floors per folder whose items are labelled (`receipts eval`'s `items`): the F1 of
    /// the items' amounts against the labelled ones, and the share of receipts whose items' amounts
    /// are exactly the labelled ones, in percent. Measured 2026-11-27 (the items' model fitted on
    /// these receipts among others, so a guard against regressions, not a held-out figure):
    /// wildreceipt F1 92.5, exact 66.4 %; TestReceipts F1 97.0, exact 86.4 %.
    static let itemFloors: [String: (f1: Double, exact: Double)] = [
        "wildreceipt": (89, 60), "TestReceipts": (94, 77), "long": (98, 85),
    ]

    @Test(.enabled(if: sharedPresent, "../shared/receipts is absent: the accuracy gate needs the labelled receipts (sroie, wildreceipt)"),
          // A guard against a hung eval only, not a speed test: beside the rest of the suite on two
          // loaded cores the gate took 48 min (CI, 2026-12-05), alone about 12.
          .timeLimit(.minutes(85)))
    func accuracyStaysAboveTheFloors() throws {
        let process = Process()
        process.executableURL = Self.binary
        process.currentDirectoryURL = Self.repoRoot
        // sroie and wildreceipt (the benchmark's 210 receipts), then TestReceipts: both readers on
        // all 762 labelled receipts would take a debug build most of an hour on two cores; the other
        // sets are measured held out by `make train` (docs/learned-model.md).
        let sets = ["sroie", "wildreceipt"].map { Self.shared.appendingPathComponent($0).path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        process.arguments = ["eval"] + sets + [Self.repoRoot.appendingPathComponent("TestReceipts").path,
                             Self.repoRoot.appendingPathComponent("TestReceipts/long").path,
                             "--format", "json", "--workers", "2", "--quiet"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errText = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "receipts eval failed: \(errText)")

        let report = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let folders = try #require(report?["folders"] as? [[String: Any]], "no folders in the eval report")
        try #require(folders.count == sets.count + 2)
        var failures: [String] = []
        var summary: [String] = []
        for folder in folders {
            let name = URL(fileURLWithPath: try #require(folder["folder"] as? String)).lastPathComponent
            let fields = folder["fields"] as? [String: [String: Any]] ?? [:]
            let floors = try #require(Self.floors[name], "no floors for folder \(name)")
            #expect((folder["failed"] as? Int) == 0, "\(name): receipts failed in the pipeline")
            for (field, floor) in floors.sorted(by: { $0.key < $1.key }) {
                let scores = try #require(fields[field], "\(name): field \(field) was not scored")
                let correct = (scores["correct"] as? Int) ?? 0, scored = (scores["scored"] as? Int) ?? 0
                let percent = scored == 0 ? 0 : 100 * Double(correct) / Double(scored)
                summary.append("\(name).\(field) \(String(format: "%.1f", percent))% (floor \(floor))")
                if percent < floor { failures.append("\(name) \(field): \(String(format: "%.1f", percent))% < floor \(floor)%") }
            }
            let review = try #require(folder["review"] as? [String: Any], "\(name): no needsReview figures")
            let reviewFloor = try #require(Self.reviewFloors[name], "no needsReview floors for folder \(name)")
            let receipts = (review["receipts"] as? Int) ?? 0, unflagged = (review["unflagged"] as? Int) ?? 0
            let right = (review["right"] as? Int) ?? 0, withTax = (review["rightWithTax"] as? Int) ?? 0
            let vendorKnown = (review["vendorKnown"] as? Int) ?? 0, vendorRight = (review["vendorRight"] as? Int) ?? 0
            let share = 100 * Double(unflagged) / Double(max(1, receipts))
            let rightShare = unflagged == 0 ? 0 : 100 * Double(right) / Double(unflagged)
            let withTaxShare = unflagged == 0 ? 0 : 100 * Double(withTax) / Double(unflagged)
            let vendorShare = vendorKnown == 0 ? 100 : 100 * Double(vendorRight) / Double(vendorKnown)
            summary.append("\(name) unflagged \(String(format: "%.1f", share))% right \(String(format: "%.1f", rightShare))% "
                + "with the tax \(String(format: "%.1f", withTaxShare))% vendor \(String(format: "%.1f", vendorShare))%")
            if share < reviewFloor.share {
                failures.append("\(name): \(String(format: "%.1f", share))% unflagged < floor \(reviewFloor.share)%")
            }
            if rightShare < reviewFloor.right {
                failures.append("\(name): unflagged receipts right \(String(format: "%.1f", rightShare))% < floor \(reviewFloor.right)%")
            }
            if withTaxShare < reviewFloor.withTax {
                failures.append("\(name): unflagged receipts right with their tax \(String(format: "%.1f", withTaxShare))% < floor \(reviewFloor.withTax)%")
            }
            if vendorShare < reviewFloor.vendor {
                failures.append("\(name): unflagged receipts' vendor right \(String(format: "%.1f", vendorShare))% < floor \(reviewFloor.vendor)%")
            }
            if let itemFloor = Self.itemFloors[name] {
                let items = try #require(folder["items"] as? [String: Any], "\(name): its line items were not scored")
                let f1 = 100 * ((items["f1"] as? Double) ?? 0)
                let receipts = (items["receipts"] as? Int) ?? 0, exact = (items["exact"] as? Int) ?? 0
                let exactShare = 100 * Double(exact) / Double(max(1, receipts))
                summary.append("\(name) items F1 \(String(format: "%.1f", f1)) exact \(String(format: "%.1f", exactShare))%")
                if f1 < itemFloor.f1 { failures.append("\(name): items F1 \(String(format: "%.1f", f1)) < floor \(itemFloor.f1)") }
                if exactShare < itemFloor.exact {
                    failures.append("\(name): receipts with exactly the labelled items \(String(format: "%.1f", exactShare))% < floor \(itemFloor.exact)%")
                }
            }
        }
        print("accuracy gate: " + summary.joined(separator: ", "))
        #expect(failures.isEmpty, "accuracy fell below the floor: \(failures.joined(separator: "; "))")
    }
}
