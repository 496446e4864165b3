import Foundation
import Testing
import ReceiptModel

/// `JSONValue`'s parser on what `make fuzz` found (fuzz target `json`).
@Suite struct JSONValueTests {
    /// A high surrogate followed by an escape that is not a low surrogate overflowed the code point
    /// arithmetic (a crash: any JSON body of the API, any remote answer). Found by the fuzzer in
    /// `{"a":"\u00e9\ud83d\uda00…` (a high surrogate followed by another high one).
    @Test(arguments: [
        (#""\ud83d\uda00""#, "\u{FFFD}\u{FFFD}"),
        (#""\ud800\u0041""#, "\u{FFFD}A"),
        (#""\ud800\u0000x""#, "\u{FFFD}\u{0}x"),
        (#""\udbff\udfff""#, "\u{10FFFF}"),
        (#""\ud83d\ude00""#, "😀"),
        (#""\ud800""#, "\u{FFFD}"),
    ])
    func surrogatesNeverCrash(json: String, expected: String) throws {
        #expect(try JSONValue.parse(json) == .string(expected))
    }

    @Test func theFuzzersInputParsesAndRoundTrips() throws {
        let input = #"{"a":"\u00e9\ud83d\uda00\n\t\"\\T/","b":[1,-0.5,2e10,1E-3,true,false,null]}"#
        let value = try JSONValue.parse(input)
        #expect(value["a"]?.stringValue == "é\u{FFFD}\u{FFFD}\n\t\"\\T/")
        #expect(try JSONValue.parse(value.serialized()) == value)
    }
}
