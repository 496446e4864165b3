import Foundation

/// The CBOR (RFC 8949) a passkey's authenticator writes: `attestationObject`, the public key in
/// `authenticatorData` (COSE_Key) and its extensions. Small on purpose: definite lengths only (CTAP2
/// writes nothing else), at most `maxDepth` levels, no item longer than the input, maps with
/// integer or text keys; anything else is refused with a one-line reason. Fuzzed (`make fuzz`,
/// target `cbor`).
indirect enum CBOR: Sendable, Hashable {
    case unsigned(UInt64)
    /// -1 - n, as CBOR's major type 1 holds it (`negative(0)` is -1).
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Pairs in the order written (keys are unique).
    case map([(CBOR, CBOR)])
    case tagged(UInt64, CBOR)
    case bool(Bool)
    case null
    case undefined
    case double(Double)

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static let maxDepth = 16

    /// The one item `bytes` holds; throws when anything follows it.
    static func decode(_ bytes: [UInt8]) throws -> CBOR {
        var reader = Reader(bytes: bytes[...])
        let value = try reader.item(depth: 0)
        guard reader.bytes.isEmpty else { throw Failure("\(reader.bytes.count) bytes follow the CBOR item") }
        return value
    }

    /// The first item of `bytes` and the bytes after it (a COSE key is followed by extensions).
    static func decodePrefix(_ bytes: ArraySlice<UInt8>) throws -> (CBOR, rest: ArraySlice<UInt8>) {
        var reader = Reader(bytes: bytes)
        let value = try reader.item(depth: 0)
        return (value, reader.bytes)
    }

    private struct Reader {
        var bytes: ArraySlice<UInt8>

        mutating func take(_ count: UInt64) throws -> ArraySlice<UInt8> {
            guard count <= UInt64(bytes.count) else { throw Failure("the CBOR ends inside an item (\(count) bytes wanted, \(bytes.count) left)") }
            let taken = bytes.prefix(Int(count))
            bytes = bytes.dropFirst(Int(count))
            return taken
        }

        mutating func argument(_ info: UInt8) throws -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24...27:
                return try take(1 << UInt64(info - 24)).reduce(0) { $0 << 8 | UInt64($1) }
            case 31: throw Failure("indefinite-length CBOR items are not accepted")
            default: throw Failure("reserved CBOR additional information \(info)")
            }
        }

        mutating func item(depth: Int) throws -> CBOR {
            guard depth < CBOR.maxDepth else { throw Failure("CBOR nested deeper than \(CBOR.maxDepth) levels") }
            let head = try take(1).first!
            let major = head >> 5, info = head & 0x1f
            if major == 7 {
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                case 23: return .undefined
                case 25: return .double(Double(Float16(bitPattern: UInt16(try argument(info)))))
                case 26: return .double(Double(Float(bitPattern: UInt32(try argument(info)))))
                case 27: return .double(Double(bitPattern: try argument(info)))
                default: throw Failure("CBOR simple value \(info) is not accepted")
                }
            }
            let argument = try argument(info)
            switch major {
            case 0: return .unsigned(argument)
            case 1: return .negative(argument)
            case 2: return .bytes(Array(try take(argument)))
            case 3:
                guard let text = String(validating: try take(argument), as: UTF8.self) else { throw Failure("a CBOR text string is not UTF-8") }
                return .text(text)
            case 4:
                // Each item is at least a byte: a count above what is left is refused before any memory is taken.
                guard argument <= UInt64(bytes.count) else { throw Failure("a CBOR array of \(argument) items in \(bytes.count) bytes") }
                return .array(try (0..<argument).map { _ in try item(depth: depth + 1) })
            case 5:
                guard argument <= UInt64(bytes.count / 2) else { throw Failure("a CBOR map of \(argument) pairs in \(bytes.count) bytes") }
                var pairs: [(CBOR, CBOR)] = []
                var keys = Set<CBOR>()
                for _ in 0..<argument {
                    let key = try item(depth: depth + 1)
                    switch key {
                    case .unsigned, .negative, .text: break
                    default: throw Failure("a CBOR map key is neither an integer nor a text")
                    }
                    guard keys.insert(key).inserted else { throw Failure("a CBOR map repeats a key") }
                    pairs.append((key, try item(depth: depth + 1)))
                }
                return .map(pairs)
            default:
                return .tagged(argument, try item(depth: depth + 1))
            }
        }
    }

    /// The CBOR of this value (definite lengths, the shortest argument): what `decode` reads back.
    var encoded: [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    private static func head(_ major: UInt8, _ value: UInt64, into out: inout [UInt8]) {
        switch value {
        case 0..<24: out.append(major << 5 | UInt8(value))
        case 24...0xff: out += [major << 5 | 24, UInt8(value)]
        case 0x100...0xffff: out += [major << 5 | 25] + (0..<2).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        case 0x10000...0xffff_ffff: out += [major << 5 | 26] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        default: out += [major << 5 | 27] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
    }

    private func encode(into out: inout [UInt8]) {
        switch self {
        case let .unsigned(v): Self.head(0, v, into: &out)
        case let .negative(v): Self.head(1, v, into: &out)
        case let .bytes(b): Self.head(2, UInt64(b.count), into: &out); out += b
        case let .text(t): Self.head(3, UInt64(t.utf8.count), into: &out); out += Array(t.utf8)
        case let .array(items):
            Self.head(4, UInt64(items.count), into: &out)
            for item in items { item.encode(into: &out) }
        case let .map(pairs):
            Self.head(5, UInt64(pairs.count), into: &out)
            for (key, value) in pairs { key.encode(into: &out); value.encode(into: &out) }
        case let .tagged(tag, value): Self.head(6, tag, into: &out); value.encode(into: &out)
        case let .bool(b): out.append(b ? 0xf5 : 0xf4)
        case .null: out.append(0xf6)
        case .undefined: out.append(0xf7)
        case let .double(d): out.append(0xfb); out += (0..<8).reversed().map { UInt8(truncatingIfNeeded: d.bitPattern >> ($0 * 8)) }
        }
    }

    // MARK: Reading values

    static func int(_ value: Int) -> CBOR { value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value)) }

    /// The value of an integer that fits an `Int`.
    var int: Int? {
        switch self {
        case let .unsigned(v): v <= UInt64(Int.max) ? Int(v) : nil
        case let .negative(v): v <= UInt64(Int.max) ? -1 - Int(v) : nil
        default: nil
        }
    }

    var bytesValue: [UInt8]? { if case let .bytes(b) = self { b } else { nil } }
    var textValue: String? { if case let .text(t) = self { t } else { nil } }
    var mapValue: [(CBOR, CBOR)]? { if case let .map(m) = self { m } else { nil } }

    subscript(key: CBOR) -> CBOR? { mapValue?.first { $0.0 == key }?.1 }
    subscript(key: String) -> CBOR? { self[.text(key)] }
    subscript(key: Int) -> CBOR? { self[.int(key)] }

    static func == (a: CBOR, b: CBOR) -> Bool {
        switch (a, b) {
        case let (.unsigned(x), .unsigned(y)), let (.negative(x), .negative(y)): x == y
        case let (.bytes(x), .bytes(y)): x == y
        case let (.text(x), .text(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.map(x), .map(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.tagged(t, x), .tagged(u, y)): t == u && x == y
        case let (.bool(x), .bool(y)): x == y
        case (.null, .null), (.undefined, .undefined): true
        // Bit for bit: a NaN read twice is the same item.
        case let (.double(x), .double(y)): x.bitPattern == y.bitPattern
        default: false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case let .unsigned(v): hasher.combine(0); hasher.combine(v)
        case let .negative(v): hasher.combine(1); hasher.combine(v)
        case let .bytes(b): hasher.combine(2); hasher.combine(b)
        case let .text(t): hasher.combine(3); hasher.combine(t)
        default: hasher.combine(9)
        }
    }
}
