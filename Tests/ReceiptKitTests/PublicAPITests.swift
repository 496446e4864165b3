import Foundation
import Logging
import ReceiptKit   // no @testable: only what a backend can use
import ServiceLifecycle
import Testing
@testable import TestHelpers
@testable import TestSupport

/// Uses ReceiptKit the way a backend would: a pipeline as a service, uploads from memory, queries.
@Suite struct PublicAPITests {
    @Test func aBackendSubmitsUploadsAndReadsBackExpenses() async throws {
        let dir = try TemporaryDirectory()
        let logger = Logger(label: "backend", factory: { _ in SwiftLogNoOpLogHandler() })
        let pipeline = try ReceiptPipeline(
            storePath: dir.path("data/receipts.sqlite"), processor: ScriptedProcessor(),
            configuration: .init(taxonomy: .default, workers: 2, pollInterval: 0.05), logger: logger)
        let services = ServiceGroup(services: [pipeline], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }

            let upload = ScriptedProcessor.image(vendor: "Esso Garage", date: "2024-06-30", total: "61.07", tax: "10.18",
                                                 category: "Fuel")
            // What a backend holds: the pipeline as one principal sees it (here the administrator).
            let admin = pipeline.scoped(to: .administrator())
            let receipt = try await pipeline.submit(imageData: upload, filename: "IMG_0042.jpg", as: .admin)
            #expect(receipt.ocrStatus == .pending)
            let done = try await admin.waitForCompletion(of: receipt.id)
            #expect(done.ocrStatus == .completed)
            #expect(done.analysis?.vendor == "Esso Garage")

            let expense = try #require(try await admin.expense(forReceipt: receipt.id))
            #expect(expense.amount == Decimal(string: "61.07"))
            #expect(expense.taxAmount == Decimal(string: "10.18"))
            #expect(expense.date == CalendarDate(year: 2024, month: 6, day: 30))
            #expect(expense.category == "Fuel")
            #expect(expense.status == .draft)
            #expect(expense.creationMethod == "ocr")
            #expect(expense.json["amount"] == .number("61.07"))

            let broken = try await pipeline.submit(imageData: Data("not an image".utf8), filename: "scan.pdf", as: .admin)
            let failed = try await admin.waitForCompletion(of: broken.id)
            #expect(failed.ocrStatus == .failed)
            #expect(failed.lastError == "scan.pdf: not an image (unknown format)")

            let june = try await admin.expenses(ExpenseQuery(from: CalendarDate(iso: "2024-06-01"), to: CalendarDate(iso: "2024-06-30"),
                                                         category: "Fuel"))
            #expect(june.map(\.receiptId) == [receipt.id])
            #expect(try await admin.receipts(ReceiptQuery(status: .failed)).map(\.id) == [broken.id])

            // A batch, results as each finishes.
            var seen = 0
            for try await outcome in pipeline.process([.data(ScriptedProcessor.image(vendor: "A"), filename: "a.jpg"),
                                                       .data(upload, filename: "again.jpg")], as: .admin) {
                seen += 1
                #expect(outcome.receipt.ocrStatus == .completed)
                if outcome.source == "again.jpg" { #expect(outcome.isDuplicate && outcome.receipt.id == receipt.id) }
            }
            #expect(seen == 2)

            await services.triggerGracefulShutdown()
            try await group.waitForAll()
        }
    }

    @Test func aStoreErrorIsOneClearLine() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("receipts.sqlite", Data(repeating: 0x42, count: 4096))
        do {
            _ = try ReceiptPipeline(storePath: path, processor: ScriptedProcessor(),
                                    logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
            Issue.record("opening a corrupt store should fail")
        } catch let error as ReceiptError {
            #expect(error.code == .corrupt)
            #expect(error.description.hasPrefix(path + ": "))
        }
    }
}
