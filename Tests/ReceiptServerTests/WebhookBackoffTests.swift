import Foundation
import Testing
import ReceiptServer

/// The wait between a webhook's attempts: the first delay, doubling, never more than the cap.
@Suite struct WebhookBackoffTests {
    @Test func theDelayDoublesUpToItsCap() {
        let delays = (1...12).map { WebhookSender.retryDelay(afterAttempts: $0, first: .seconds(1), max: .seconds(600)) }
        #expect(delays.prefix(5) == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)])
        #expect(delays[9] == .seconds(512) && delays[10] == .seconds(600) && delays[11] == .seconds(600))
        #expect(WebhookSender.retryDelay(afterAttempts: 10_000, first: .milliseconds(200), max: .seconds(1)) == .seconds(1))
    }
}
