import Foundation
import Testing
@testable import ReceiptRemoteAnalyzers

/// A remote server's error answer and Retry-After on inputs that stopped the process (`make fuzz`,
/// target `remote-answer`).
@Suite struct RemoteErrorAnswerFuzzTests {
    /// Found by the fuzzer: a Retry-After that is not ASCII reached Foundation's DateFormatter, which
    /// stops the process ("Incorrect range CFRange") on a combining mark after a digit. The header
    /// line of the input it found, and the shortest form of it.
    @Test(arguments: ["Wed, 21\u{05B0}ct```json", "Wed, 21\u{05B0}ct", "1\u{0301}"])
    func nonASCIIRetryAfterIsNoDate(header: String) {
        #expect(RemoteErrorAnswer.parseRetryAfter(header) == nil)
        let answer = RemoteErrorAnswer(reply: HTTPReply(status: 429, headers: ["retry-after": header], body: Data("{}".utf8)))
        #expect(answer.retryDelay == nil)
    }

    @Test func anHTTPDateStillReads() {
        #expect(RemoteErrorAnswer.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == .zero)
        #expect(RemoteErrorAnswer.parseRetryAfter("30") == .seconds(30))
    }

    /// Found while writing the target (the fuzzer had not reached it in its first minutes): a delay
    /// of 1e300 seconds overflowed Int64 when made milliseconds. It is capped at 10⁹ s.
    @Test func hugeDelaysAreCapped() {
        let cap = Duration.seconds(1_000_000_000)
        #expect(RemoteErrorAnswer.parseRetryAfter("1e300") == cap)
        #expect(RemoteErrorAnswer.parseProtobufDuration("1e300s") == cap)
        #expect(RemoteErrorAnswer.parseProtobufDuration("1.5s") == .milliseconds(1500))
        let body = #"{"error": {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "9e99s"}]}}"#
        #expect(RemoteErrorAnswer(reply: HTTPReply(status: 429, headers: [:], body: Data(body.utf8))).retryDelay == cap)
    }
}
