import Crypto
import Foundation
import Testing
import ReceiptKit
@testable import TestHelpers
@testable import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The webhook outbox end to end: the real `receipts serve` binary, a real SQLite file, a real
/// receiver on 127.0.0.1 that is down and comes back, SIGKILL, and `receipts webhooks`.
@Suite(.serialized) struct WebhookOutboxCLITests {
    typealias Server = ServeCommandTests.Server

    /// A port nothing listens on now (taken and let go), for a receiver that is down.
    private func freePort() throws -> UInt16 {
        let probe = try ScriptedHTTPServer([.drop])
        let port = probe.port
        probe.stop()
        return port
    }

    private func webhookArguments(_ port: UInt16, _ extra: [String] = []) -> [String] {
        ["--webhook", "http://127.0.0.1:\(port)/hooks", "--webhook-retry-delay", "0.2", "--webhook-max-retry-delay", "1"] + extra
    }

    private func events(_ store: String, state: String? = nil) async throws -> [JSONValue] {
        let result = try await ReceiptsCLI.run(["webhooks", "list", "--store", store, "--format", "json"]
                                                + (state.map { ["--state", $0] } ?? []))
        #expect(result.status == 0, "\(result.err)")
        return try JSONValue.parse(result.out).arrayValue ?? []
    }

    /// The test: a receiver down while receipts complete, the server SIGKILLed, the receiver
    /// back, the server restarted: every event arrives, each with one delivery id (a duplicate, if
    /// any, carries the same id), signed.
    @Test func aReceiverDownDuringASigkillGetsEachEventOnceItIsBack() async throws {
        let dir = try TemporaryDirectory()
        let port = try freePort()
        let secret = "whsec-outbox"
        let names = ["uk-parking.jpg", "us-diner.jpg", "uk-fuel-unleaded.jpg"]
        var server: Server? = try await Server(store: dir.storePath, arguments: webhookArguments(port),
                                               environment: ["RECEIPTS_WEBHOOK_SECRET": secret])
        var ids: Set<String> = []
        for name in names {
            let (status, record) = try await server!.upload(name, wait: 30)
            #expect(status == 200 && record["ocrStatus"]?.stringValue == "completed")
            ids.insert(try #require(record["receiptId"]?.stringValue))
        }
        // Each event was tried (and refused: nothing listens) before the kill.
        #expect(try await eventually(timeout: 60) {
            server!.stderr.text.components(separatedBy: "Webhook not delivered yet").count - 1 >= names.count
        }, "\(server!.stderr.text)")
        #expect(try await server!.stop(SIGKILL))
        server = nil
        let pending = try await events(dir.storePath, state: "pending")
        #expect(Set(pending.compactMap { $0["receiptId"]?.stringValue }) == ids, "the events survived the kill")
        #expect(pending.allSatisfy { ($0["attempts"]?.doubleValue ?? 0) >= 1 && $0["lastError"]?.stringValue != nil })

        let receiver = try ScriptedHTTPServer([.respond(status: 204, body: "")], port: port)
        defer { receiver.stop() }
        let restarted = try await Server(store: dir.storePath, arguments: webhookArguments(port),
                                         environment: ["RECEIPTS_WEBHOOK_SECRET": secret])
        #expect(try await eventually(timeout: 60) {
            Set(receiver.requests.compactMap { $0.json?["receiptId"]?.stringValue }) == ids
        }, "\(receiver.requests.count) requests: \(restarted.stderr.text)")
        #expect(try await ServeCommandTests.until(timeout: 30) { (try? await self.events(dir.storePath, state: "delivered").count) == names.count })
        #expect(try await restarted.stop())

        var deliveryIds: [String: Set<String>] = [:]
        for request in receiver.requests {
            let receiptId = try #require(request.json?["receiptId"]?.stringValue)
            let deliveryId = try #require(request.headers["receipts-delivery-id"], "every request names its delivery")
            deliveryIds[receiptId, default: []].insert(deliveryId)
            #expect(request.headers["receipts-event"] == "receipt.completed")
            #expect(request.json?["ocrStatus"]?.stringValue == "completed")
            let header = try #require(request.headers["receipts-signature"])
            let parts = Dictionary(uniqueKeysWithValues: header.split(separator: ",").map { item in
                let kv = item.split(separator: "=", maxSplits: 1); return (String(kv[0]), String(kv[1]))
            })
            let t = try #require(parts["t"])
            let mac = HMAC<SHA256>.authenticationCode(for: Data("\(t).".utf8) + request.body, using: SymmetricKey(data: Data(secret.utf8)))
            #expect(parts["v1"] == mac.map { String(format: "%02x", $0) }.joined())
        }
        #expect(deliveryIds.count == names.count)
        #expect(deliveryIds.values.allSatisfy { $0.count == 1 }, "one delivery id per event: \(deliveryIds)")
        let delivered = try await events(dir.storePath, state: "delivered")
        #expect(Set(delivered.compactMap { $0["id"]?.stringValue }) == Set(deliveryIds.values.flatMap { $0 }))
        #expect(try await events(dir.storePath, state: "pending").isEmpty)
    }

    /// A delivery failing for longer than --webhook-dead-after is a dead letter (logged once,
    /// listed); `receipts webhooks retry --dead` sends it again with the same id.
    @Test func aDeadLetterIsListedAndRetried() async throws {
        let dir = try TemporaryDirectory()
        let port = try freePort()
        let server = try await Server(store: dir.storePath, arguments: webhookArguments(port, ["--webhook-dead-after", "1s"]),
                                      environment: ["RECEIPTS_WEBHOOK_SECRET": "s"])
        let (_, record) = try await server.upload("uk-parking.jpg", wait: 30)
        let receiptId = try #require(record["receiptId"]?.stringValue)
        #expect(try await eventually(timeout: 60) { server.stderr.text.contains("dead letter") }, "\(server.stderr.text)")
        let dead = try #require(try await events(dir.storePath, state: "dead").first)
        #expect(dead["receiptId"]?.stringValue == receiptId && dead["type"]?.stringValue == "receipt.completed")
        let eventId = try #require(dead["id"]?.stringValue)
        #expect(try await server.stop())
        #expect(server.stderr.text.components(separatedBy: "dead letter").count - 1 == 1, "logged once")

        // Clear one-line errors.
        let notAnId = try await ReceiptsCLI.run(["webhooks", "retry", "nope", "--store", dir.storePath])
        #expect(notAnId.status == 2 && notAnId.err.contains("'nope' is not a delivery id"), "\(notAnId.err)")
        let unknown = try await ReceiptsCLI.run(["webhooks", "retry", UUID().uuidString, "--store", dir.storePath])
        #expect(unknown.status == 1 && unknown.err.contains("no webhook event with id"), "\(unknown.err)")

        let retry = try await ReceiptsCLI.run(["webhooks", "retry", "--dead", "--store", dir.storePath])
        #expect(retry.status == 0 && retry.err.contains("1 dead delivery is due now"), "\(retry.err)")
        let receiver = try ScriptedHTTPServer([.respond(status: 200, body: "ok")], port: port)
        defer { receiver.stop() }
        let restarted = try await Server(store: dir.storePath, arguments: webhookArguments(port),
                                         environment: ["RECEIPTS_WEBHOOK_SECRET": "s"])
        #expect(try await eventually(timeout: 60) { !receiver.requests.isEmpty })
        #expect(receiver.requests.first?.headers["receipts-delivery-id"] == eventId)
        #expect(try await ServeCommandTests.until(timeout: 30) { (try? await self.events(dir.storePath, state: "delivered").count) == 1 })
        #expect(try await restarted.stop())
        let again = try await ReceiptsCLI.run(["webhooks", "retry", eventId, "--store", dir.storePath])
        #expect(again.status == 1 && again.err.contains("was delivered already"), "\(again.err)")
    }
}
