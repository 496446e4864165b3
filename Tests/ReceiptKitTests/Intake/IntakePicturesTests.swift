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
        #expect(record["pictures"]?.arrayValue?.compactMap(\.stringValue) == ["long-1.jpg", "long-2.jpg", "long-3.jpg"].map { h.inbox + "/" + $0 })
        #expect(record["file"]?.stringValue == h.inbox + "/long-1.jpg")
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
}
