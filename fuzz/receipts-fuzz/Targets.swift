// The fuzz targets: every place the program reads bytes or text it did not make. Each takes the
// fuzzer's bytes, feeds them to the product code, and checks what must hold whatever the input
// (a round trip, a limit); a broken check is a `fatalError`, which libFuzzer records as a crash.
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptModel
@testable import ReceiptAnalyzers
@testable import ReceiptOCR
@testable import ReceiptRemoteAnalyzers
@testable import ReceiptServer

struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable ([UInt8]) -> Void

    static let all: [FuzzTarget] = [
        FuzzTarget(name: "json", run: json),
        FuzzTarget(name: "amount", run: amount),
        FuzzTarget(name: "date", run: date),
        FuzzTarget(name: "analyzer", run: analyzerText),
        FuzzTarget(name: "analyzer-boxes", run: analyzerBoxes),
        FuzzTarget(name: "exif", run: exif),
        FuzzTarget(name: "image", run: image),
        FuzzTarget(name: "heif", run: heif),
        FuzzTarget(name: "pdf", run: pdf),
        FuzzTarget(name: "multipart", run: multipart),
        FuzzTarget(name: "request", run: request),
        FuzzTarget(name: "remote-answer", run: remoteAnswer),
        FuzzTarget(name: "cbor", run: cbor),
        FuzzTarget(name: "webauthn", run: webAuthn),
    ]

    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
        guard let target = all.first(where: { $0.name == name }) else {
            let names = all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("receipts-fuzz: set FUZZ_TARGET to one of: \(names) (got '\(name)')\n".utf8))
            exit(2)
        }
        return target
    }()
}

/// What must hold whatever the input; a failure is a crash with the message.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("property broken: \(message())") }
}

/// A fixed "today", so that a run does not depend on the date.
let today = CalendarDate(year: 2026, month: 6, day: 15)!
let options = AnalysisOptions(today: today)
let analyzer = HeuristicAnalyzer()

/// The input split at its first newline: a header line (a content type, a URL) and the rest.
func split(_ bytes: [UInt8]) -> (first: String, rest: [UInt8]) {
    guard let newline = bytes.firstIndex(of: 0x0A) else { return (String(decoding: bytes, as: UTF8.self), []) }
    return (String(decoding: bytes[..<newline], as: UTF8.self), Array(bytes[(newline + 1)...]))
}

// MARK: - Text

/// `JSONValue`: what parses serializes to JSON that parses back to the same value.
@Sendable func json(_ bytes: [UInt8]) {
    guard let value = try? JSONValue.parse(bytes) else { return }
    let once = value.serialized()
    guard let again = try? JSONValue.parse(once) else { fatalError("property broken: serialized JSON does not parse: \(once)") }
    require(again == value, "round trip changed the value: \(once)")
    require(again.serialized() == once, "serializing twice differs: \(once)")
    func visit(_ v: JSONValue, depth: Int) {
        _ = v.decimalValue; _ = v.doubleValue; _ = v.stringValue; _ = v.boolValue
        for item in v.arrayValue ?? [] where depth < 64 { visit(item, depth: depth + 1) }
        for (key, item) in v.objectValue ?? [] where depth < 64 { _ = v[key]; visit(item, depth: depth + 1) }
    }
    visit(value, depth: 0)
}

/// Amounts: OCR's lenient `Money.parse`, typed money's exact `Money.amount` (whose result must read
/// back the same), and the analyzer's token parser.
@Sendable func amount(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let value = Money.parse(text) {
        _ = Money.format(value, currency: "GBP"); _ = Money.format(value, currency: "JPY"); _ = value.moneyString
    }
    for limits in [Money.Limits.input, .stored] {
        if let value = try? Money.amount(text, limits: limits) {
            let plain = value.plainString
            require((try? Money.amount(plain, limits: limits)) == value, "amount '\(text)' → \(plain) does not read back")
            require(JSONValue.decimal(value).decimalValue == value, "amount '\(text)' does not survive JSON")
        }
        if let value = try? Money.amount(jsonNumber: text, limits: limits) {
            _ = Money.format(value, currency: nil)
        }
    }
    _ = AmountParser.parse(text)
    for token in AmountParser.amounts(in: text) { _ = token }
}

/// Dates: ISO dates, the remote answers' dates, and the date finder on the text as a receipt.
@Sendable func date(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let date = CalendarDate(iso: text) {
        require(CalendarDate(iso: date.description) == date, "date '\(text)' → \(date) does not read back")
        _ = date.days(since: today)
    }
    _ = AnalysisNormalizer.date(.string(text))
    _ = DateFinder.repairDigits(text)
    _ = DateFinder.year(text)
    _ = DateFinder.month(text)
    _ = DateFinder.fuzzyMonth(text)
    let document = ReceiptDocument(text: text)
    for order in DateOrder.allCases {
        if let found = DateFinder.find(document, orderHint: nil, defaultOrder: order, today: today) {
            require(found.date.year <= today.year + 1, "date found after next year: \(found.date)")
        }
    }
}

/// The analyzer on arbitrary text, one printed row per line.
@Sendable func analyzerText(_ bytes: [UInt8]) {
    check(analyzer.analyze(text: String(decoding: bytes, as: UTF8.self), options: options))
}

/// The analyzer on arbitrary words and boxes (Tesseract's TSV: any numbers, any text).
@Sendable func analyzerBoxes(_ bytes: [UInt8]) {
    let ocr = OCRResult(tesseractTSV: String(decoding: bytes, as: UTF8.self))
    check(analyzer.analyze(ocr: ocr, options: options))
}

func check(_ analysis: ReceiptAnalysis) {
    let confidence = analysis.confidence
    for value in [confidence.vendor, confidence.date, confidence.total, confidence.tax, confidence.currency, confidence.category] {
        require((0...1).contains(value), "confidence \(value) outside 0…1")
    }
    if let date = analysis.date { require(date.year <= today.year + 1, "date after next year: \(date)") }
}

// MARK: - Images and PDF

/// Pixel limits the image targets decode with: small, so that each run is quick; the checks are
/// the same as at the program's limits.
let maxPixels = 4_000_000

/// EXIF orientation in a JPEG's APP1 segment and in a HEIF Exif block.
@Sendable func exif(_ bytes: [UInt8]) {
    _ = ExifOrientation.read(jpeg: Data(bytes))
    _ = ExifOrientation.read(heifExif: bytes)
    _ = HeifDecoder.hasTransformProperties(Data(bytes))
}

/// Decoding as an upload is decoded: format sniffing, the header's pixel check, Leptonica (JPEG,
/// PNG, TIFF, WebP, BMP, GIF), libheif, poppler; then the first pass's preparation.
func decode(_ bytes: [UInt8], maxPixels: Int) {
    let data = Data(bytes)
    _ = ImageFormat.sniff(data)
    _ = ImageLoader.hasEndOfImageMarker(data)
    if let (w, h) = OCREngine.dimensions(of: data) { _ = w * h }
    let loader = ImageLoader(maxPixels: maxPixels, preprocessing: .standard)
    guard let loaded = try? loader.decode(data, file: "fuzz") else { return }
    require(loaded.sourceWidth * loaded.sourceHeight <= maxPixels,
            "decoded \(loaded.sourceWidth)×\(loaded.sourceHeight), above the limit of \(maxPixels) pixels")
    let prepared = loader.prepare(loaded.image, pass: nil)
    require(prepared.pixelCount <= Preprocessing.standard.maximumPixels + prepared.width + prepared.height,
            "prepared \(prepared.width)×\(prepared.height), above the OCR budget")
}

@Sendable func image(_ bytes: [UInt8]) {
    decode(bytes, maxPixels: maxPixels)
}

@Sendable func heif(_ bytes: [UInt8]) {
    decode(bytes, maxPixels: maxPixels)
    _ = ExifOrientation.read(heifExif: bytes)
}

/// PDF: opening, page sizes, the text layer (words and boxes), one page rendered for people and
/// the whole rendered for OCR (the image target's path).
@Sendable func pdf(_ bytes: [UInt8]) {
    let data = Data(bytes)
    guard let reader = try? PDFReader(data, file: "fuzz", maxPages: 10) else { return }
    _ = try? reader.pageSizes()
    if let text = try? reader.textLayer() {
        check(analyzer.analyze(ocr: text, options: options))
    }
    if let page = try? reader.renderPage(0, maxDimension: 800, maxPixels: 500_000) {
        require(page.pixelCount <= 500_000 + page.width + page.height, "page rendered \(page.width)×\(page.height)")
    }
    decode(bytes, maxPixels: 1_000_000)
}

// MARK: - Server and remote answers

/// `multipart/form-data` uploads: the first line is the Content-Type, the rest the body.
@Sendable func multipart(_ bytes: [UInt8]) {
    let (contentType, body) = split(bytes)
    let data = Data(body)
    if let part = try? Multipart.file(in: data, contentType: contentType) {
        require(part.data.count <= data.count, "a part larger than the body")
        require(part.name == "file", "the file part is named \(part.name ?? "nil")")
    }
    _ = Multipart.dispositionParameter("filename", in: contentType)
    _ = Multipart.parameter("name", in: contentType)
}

/// Requests: the query (first line, as a request target) and the JSON bodies of `POST /v1/analyze`
/// (its base64 image) and `PATCH /v1/expenses/{id}` (a correction).
@Sendable func request(_ bytes: [UInt8]) {
    let (target, rest) = split(bytes)
    // What an HTTP/1.1 parser lets through as a request target: visible ASCII.
    if target.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
        let head = HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: "/" + target)
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        if let query = try? QueryParameters(request, allowed: ["from", "to", "limit", "after", "store", "wait", "filename"]) {
            _ = try? query.flag("store")
            _ = try? query.integer("limit", in: 1...1000)
            _ = try? query.id("after")
            _ = try? query.date("from")
            _ = query["filename"]
        }
    }
    if let json = try? JSONValue.parse(rest) {
        _ = try? ExpenseCorrection(json: json, taxonomy: .default)
        if let image = json["image"]?.stringValue, let data = try? ReceiptServer.imageBytes(image) {
            require(!data.isEmpty, "empty image accepted")
        }
    }
    _ = try? ReceiptServer.imageBytes(String(decoding: rest, as: UTF8.self))
}

/// What a remote analyzer sends back: the HTTP body (Gemini's and OpenAI's shapes, error bodies
/// and their Retry-After), and the model's text (its JSON found and normalized).
@Sendable func remoteAnswer(_ bytes: [UInt8]) {
    let data = Data(bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    _ = try? GeminiAnalyzer.answerText(data, source: "fuzz", redact: { $0 })
    _ = try? OpenAICompatibleAnalyzer.answerText(data, source: "fuzz", redact: { $0 })
    let (header, _) = split(bytes)
    _ = RemoteErrorAnswer(reply: HTTPReply(status: 429, headers: ["retry-after": header], body: data))
    _ = RemoteErrorAnswer.parseProtobufDuration(header)
    _ = AnalysisNormalizer.currencyCode(header)
    guard let json = ModelAnswer.jsonObject(in: text) else { return }
    let outcome = AnalysisNormalizer.normalize(json, analyzer: "fuzz", options: options, today: today)
    let analysis = outcome.analysis
    if let tax = analysis.tax {
        require(tax >= 0, "negative tax kept: \(tax)")
        if let total = analysis.total, total >= 0 { require(tax <= total, "tax \(tax) above total \(total)") }
    }
    if let date = analysis.date { require((1990...today.year + 1).contains(date.year), "implausible date kept: \(date)") }
    check(analysis)
}

// MARK: - Passkeys

/// The CBOR decoder (passkeys' attestationObject and COSE keys): what decodes encodes to bytes that
/// decode to the same item, and encoding is stable.
@Sendable func cbor(_ bytes: [UInt8]) {
    guard let item = try? CBOR.decode(bytes) else {
        _ = try? CBOR.decodePrefix(bytes[...])
        return
    }
    let encoded = item.encoded
    guard let again = try? CBOR.decode(encoded) else { fatalError("property broken: re-encoded CBOR does not decode: \(encoded)") }
    require(again == item, "round trip changed the item")
    require(again.encoded == encoded, "encoding twice differs")
}

/// The relying party the WebAuthn target checks against.
let party = WebAuthn(rpID: "localhost", origin: "http://localhost:8080")
/// A P-256 key (COSE) for the sign-in half of the target.
let fuzzKey: [UInt8] = {
    let key = P256.Signing.PrivateKey().publicKey.x963Representation
    return CBOR.map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
                     (.int(-2), .bytes(Array(key[1...32]))), (.int(-3), .bytes(Array(key[33...])))]).encoded
}()

/// The WebAuthn verifier: the input is clientDataJSON, a newline, then authenticatorData or an
/// attestationObject. Nothing crashes; a registration accepted has the user verified, this RP ID and a
/// public key that parses; a sign-in with a random key's signature never verifies.
@Sendable func webAuthn(_ bytes: [UInt8]) {
    let (first, rest) = split(bytes)
    let client = Array(first.utf8)
    _ = try? WebAuthn.clientData(client)
    if let auth = try? WebAuthn.authenticatorData(rest) {
        require(auth.rpIDHash.count == 32, "the RP ID hash is 32 bytes")
        if let key = auth.publicKey { _ = try? WebAuthn.PublicKey(cose: key) }
    }
    _ = try? WebAuthn.PublicKey(cose: rest)
    if let credential = try? party.register(clientDataJSON: client, attestationObject: rest, rawID: Array(rest.prefix(16))) {
        require((try? WebAuthn.PublicKey(cose: credential.publicKey)) != nil, "an accepted credential's key parses")
    }
    let signature = Array(rest.suffix(72))
    require((try? party.signIn(clientDataJSON: client, authenticatorData: rest, signature: signature, publicKey: fuzzKey,
                               storedSignCount: 0)) == nil, "a signature by no one's key verified")
}
