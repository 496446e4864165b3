import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// The watched folder's long receipts: `NAME-1.jpg`, `NAME-2.jpg`… arriving within the join window
/// are one receipt of several pictures, filed together; `joinPictures` nil reads each on its own.
/// Real files and inotify events, a scripted processor for the OCR (header from the first picture,
/// totals from the last, as the real one joins them).
@Suite struct IntakePicturesTests {
    @Test func picturesOfOneNameArrivingTogetherAreOneReceiptFiledTogether() async throws {
        let h = try IntakeHarness()
        let running = try h.start { $0.joinPictures = 1 }
        #expect(try await running.watching())
        try h.drop("long-1.jpg", ScriptedProcessor.image(vendor: "Ridgeway Hardware", total: "0.00", id: "top"))
        try h.drop("long-2.jpg", ScriptedProcessor.image(vendor: "", total: "0.00", id: "middle"))
        try h.drop("long-3.jpg", ScriptedProcessor.image(vendor: "", total: "193.34", id: "bottom"))
        // Another file meanwhile is its own receipt.
        try h.drop("alone.jpg", ScriptedProcessor.image(vendor: "Alone", total: "1.00"))
        #expect(try await eventually { h.names(in: "processed").count == 6 }, "\(h.names(in: "processed"))")
        #expect(try await running.settled())
        try await running.stop()

        #expect(h.names(in: "processed") == ["alone.jpg", "alone.json", "long-1.jpg", "long-2.jpg", "long-3.jpg", "long.json"])
        let record = try h.sidecar(h.processed + "/long.json")
        #expect(record["analysis"]?["vendor"]?.stringValue == "Ridgeway Hardware")
        #expect(record["analysis"]?["total"]?.decimalValue == Decimal(string: "193.34"))
        // The pictures where they are now, beside the sidecar (issue 56), not where they were.
        #expect(record["pictures"]?.arrayValue?.compactMap(\.stringValue) == ["long-1.jpg", "long-2.jpg", "long-3.jpg"].map { h.processed + "/" + $0 })
        #expect(record["file"]?.stringValue == h.processed + "/long-1.jpg")
        #expect(try h.sidecar(h.processed + "/alone.json")["file"]?.stringValue == h.processed + "/alone.jpg")
        let receipts = try await running.pipeline.scoped(to: .administrator()).receipts()
        #expect(receipts.count == 2)
        #expect(running.intake.summary.completed == 2)
    }

    @Test func theSamePicturesDroppedAgainAreAKnownReceiptAndNoJoinReadsEachAlone() async throws {
        let h = try IntakeHarness()
        let top = ScriptedProcessor.image(vendor: "Millbrook", total: "0.00", id: "t"), bottom = ScriptedProcessor.image(vendor: "", total: "91.97", id: "b")
        var running = try h.start { $0.joinPictures = 1 }
        #expect(try await running.watching())
        try h.drop("shop-1.jpg", top)
        try h.drop("shop-2.jpg", bottom)
        #expect(try await eventually { h.names(in: "processed").contains("shop.json") })
        // Dropped again (another folder): the store knows them by all their bytes together.
        try h.drop("again/shop-1.jpg", top)
        try h.drop("again/shop-2.jpg", bottom)
        #expect(try await eventually { h.names(in: "processed/again").contains("shop.json") })
        #expect(try await running.settled())
        try await running.stop()
        #expect(try h.sidecar(h.processed + "/again/shop.json")["duplicate"]?.boolValue == true)
        #expect(h.processor.calls(for: top) == 1 && h.processor.calls(for: bottom) == 1, "read once")

        // Joining off: each picture is a receipt of its own.
        let other = try IntakeHarness()
        running = try other.start { $0.joinPictures = nil }
        try other.drop("shop-1.jpg", top)
        try other.drop("shop-2.jpg", bottom)
        #expect(try await eventually { other.names(in: "processed").count == 4 })
        try await running.stop()
        #expect(other.names(in: "processed") == ["shop-1.jpg", "shop-1.json", "shop-2.jpg", "shop-2.json"])
    }

    @Test func aLonePictureOfANameIsAReceiptOfItsOwnAfterTheWait() async throws {
        let h = try IntakeHarness()
        let running = try h.start { $0.joinPictures = 0.5 }
        #expect(try await running.watching())
        try h.drop("IMG_0042-1.jpg", ScriptedProcessor.image(vendor: "Lone", total: "4.00"))
        #expect(try await eventually { h.names(in: "processed") == ["IMG_0042-1.jpg", "IMG_0042-1.json"] })
        try await running.stop()
    }

    /// Pictures named as one receipt's that share no row (issue 56: `scan-1.jpg`, `scan-2.jpg`…
    /// were three receipts read as one) are receipts of their own, each filed with its own sidecar;
    /// those that overlap stay together. Dropped again, they are found, not read again.
    @Test func numberedPicturesThatDoNotOverlapAreReceiptsOfTheirOwn() async throws {
        let h = try IntakeHarness()
        let parking = ScriptedProcessor.image(vendor: "Castlegate Parking", total: "7.50", id: "p")
        let diner = ScriptedProcessor.image(vendor: "Blue Mesa Diner", total: "33.50", currency: "USD", overlapsAbove: false, id: "d")
        let fuel = ScriptedProcessor.image(vendor: "Lindenhof", total: "71.76", currency: "EUR", overlapsAbove: false, id: "f")
        // A long receipt's two pictures after another receipt: together, the first alone.
        let top = ScriptedProcessor.image(vendor: "Ridgeway", total: "0.00", overlapsAbove: false, id: "t")
        let bottom = ScriptedProcessor.image(vendor: "", total: "193.34", id: "b")
        var running = try h.start { $0.joinPictures = 1 }
        #expect(try await running.watching())
        try h.drop("scan-1.jpg", parking)
        try h.drop("scan-2.jpg", diner)
        try h.drop("scan-3.jpg", fuel)
        try h.drop("roll-1.jpg", parking + Data(";copy".utf8))
        try h.drop("roll-2.jpg", top)
        try h.drop("roll-3.jpg", bottom)
        #expect(try await eventually { h.names(in: "processed").count == 11 }, "\(h.names(in: "processed"))")
        #expect(try await running.settled())
        try await running.stop()
        #expect(h.names(in: "processed") == ["roll-1.jpg", "roll-1.json", "roll-2.jpg", "roll-3.jpg", "roll.json",
                                             "scan-1.jpg", "scan-1.json", "scan-2.jpg", "scan-2.json", "scan-3.jpg", "scan-3.json"])
        #expect(try h.sidecar(h.processed + "/scan-2.json")["analysis"]?["vendor"]?.stringValue == "Blue Mesa Diner")
        #expect(try h.sidecar(h.processed + "/scan-3.json")["analysis"]?["total"]?.decimalValue == Decimal(string: "71.76"))
        #expect(try h.sidecar(h.processed + "/scan-1.json")["file"]?.stringValue == h.processed + "/scan-1.jpg")
        let roll = try h.sidecar(h.processed + "/roll.json")
        #expect(roll["pictures"]?.arrayValue?.compactMap(\.stringValue) == [h.processed + "/roll-2.jpg", h.processed + "/roll-3.jpg"])
        #expect(roll["analysis"]?["total"]?.decimalValue == Decimal(string: "193.34"))
        let receipts = try await running.pipeline.scoped(to: .administrator()).receipts()
        #expect(receipts.count == 5, "three scans, the roll's first picture, the roll's other two: \(receipts.map(\.filePath))")
        #expect(running.intake.summary.completed == 5 && running.intake.summary.failed == 0)

        // The scans dropped again: each found by its bytes, filed as a duplicate, not read again.
        let reads = h.processor.totalCalls
        running = try h.start { $0.joinPictures = 1 }
        #expect(try await running.watching())
        try h.drop("again/scan-1.jpg", parking)
        try h.drop("again/scan-2.jpg", diner)
        try h.drop("again/scan-3.jpg", fuel)
        #expect(try await eventually { h.names(in: "processed/again").count == 6 }, "\(h.names(in: "processed/again"))")
        try await running.stop()
        #expect(h.processor.totalCalls == reads, "nothing read again")
        #expect(try h.sidecar(h.processed + "/again/scan-2.json")["duplicate"]?.boolValue == true)
    }

    /// A picture that cannot be read among numbered ones fails alone; the others are receipts.
    @Test func anUnreadablePictureAmongNumberedOnesFailsAlone() async throws {
        let h = try IntakeHarness()
        let running = try h.start { $0.joinPictures = 1 }
        #expect(try await running.watching())
        try h.drop("scan-1.jpg", ScriptedProcessor.image(vendor: "One", total: "1.00"))
        try h.drop("scan-2.jpg", Data("not an image".utf8))
        #expect(try await eventually { h.names(in: "processed").count == 2 && h.names(in: "failed").count == 2 })
        try await running.stop()
        #expect(h.names(in: "processed") == ["scan-1.jpg", "scan-1.json"])
        #expect(h.text(h.failed + "/scan-2.error.txt")?.hasPrefix(h.inbox + "/scan-2.jpg: ") == true)
    }
}
