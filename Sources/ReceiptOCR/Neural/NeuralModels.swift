import COpenVINO
import Crypto
import Foundation
import Logging
import ReceiptModel
import Synchronization

/// The neural reader's networks, compiled once a process and shared by every OCR thread.
///
/// Loading checks each file's SHA-256 against the model set's and loads the runtime before `init`
/// returns (so a missing or damaged install is an error at once); then detection and recognition
/// are compiled for the CPU on two threads of their own, side by side, while the caller goes on
/// (Tesseract's first pass of the first receipt runs meanwhile). Each is compiled as one stream run
/// by as many threads as the engine has OCR threads (`streams`). The first OCR thread to read waits
/// for them (`makeRequests`); each OCR thread makes its own inference requests (lazily, see
/// `NeuralRequests`); the stream's working memory is shared.
///
/// `Sendable`: every stored property is a constant; the compiled networks are `CompiledNetwork`s
/// (thread-safe in OpenVINO) behind `NetworkLoad`'s lock, the counters are atomics.
public final class NeuralModels: Sendable {
    public let configuration: NeuralConfiguration
    /// The networks that read a page's header band again (`NeuralConfiguration.headerModelSet`), or nil.
    public let header: NeuralModels?
    /// The recognizer's classes: `""` (CTC's blank), the set's characters, then `" "`.
    package let classes: [String]
    private let networks: NetworkLoad
    private let requests = Atomic<Int>(0)

    /// Networks compiled by this process so far (two a load): what a test reads to see that the
    /// OCR threads share one load.
    public static var compiledNetworks: Int { compiles.load(ordering: .relaxed) }
    private static let compiles = Atomic<Int>(0)

    /// Inference requests made on these networks (two an OCR thread that read with them).
    public var requestsMade: Int { requests.load(ordering: .relaxed) }

    /// Loads the runtime from `<directory>/lib` and compiles the configuration's model set.
    /// - Parameter streams: the OCR engine's thread count: the threads an inference may use.
    /// - Throws: `ReceiptError` in one line: `.neuralReaderNotInstalled` (no runtime, no model
    ///   folder: run `make neural`), `.neuralModelCorrupt` (a file whose SHA-256 is not the set's).
    public init(configuration: NeuralConfiguration, streams: Int, logger: Logger) throws {
        let set = configuration.modelSet
        let root = URL(fileURLWithPath: configuration.directory)
        let library = root.appendingPathComponent("lib").path
        let folders = [set.detector, set.recognizer].map { root.appendingPathComponent(set.folder(of: $0)) }
        guard FileManager.default.fileExists(atPath: library), folders.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) }) else {
            let names = Set([set.detector, set.recognizer].map { set.folder(of: $0) + "/" }).sorted().joined(separator: " and ")
            throw ReceiptError(.neuralReaderNotInstalled,
                               "neural reader not installed: run `make neural` (looked in \(configuration.directory) for lib/ and \(names))")
        }
        try OpenVINO.load(from: library)
        func path(_ file: NeuralModelSet.File) -> URL { root.appendingPathComponent(set.folder(of: file)).appendingPathComponent(file.name) }
        let detectorBytes = try Self.verified(set.detector, at: path(set.detector))
        let recognizerBytes = try Self.verified(set.recognizer, at: path(set.recognizer))
        let characterBytes = try Self.verified(set.characters, at: path(set.characters))
        let characters = String(decoding: characterBytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        classes = [""] + characters.dropLast(characters.last == "" ? 1 : 0).map(String.init) + [" "]

        // The inference's working buffers (tens of megabytes, another size for every page and
        // batch of rows) go back to the system when freed: 20 receipts, 2 workers, peak RSS
        // 626 -> 556 MB in the same time (docs/neural-reader.md).
        receipts_map_large_allocations(1 << 20)
        let core = try OpenVINOCore()
        // One stream for every OCR thread's requests, with as many threads as OCR threads: the
        // working memory of one inference instead of one a thread (20 receipts, 2 workers: peak RSS
        // 634 MB with two streams, 529 MB with one, the same time).
        let threads = max(1, streams)
        let files = (path(set.detector).path, path(set.recognizer).path)
        networks = NetworkLoad(core: core, detector: (detectorBytes, files.0), recognizer: (recognizerBytes, files.1),
                               threads: threads, logger: logger, setName: set.name)
        Self.compiles.add(2, ordering: .relaxed)
        self.configuration = configuration
        header = try configuration.headerReading.map { set in
            var headerConfiguration = configuration
            headerConfiguration.modelSet = set
            headerConfiguration.headerModelSet = nil
            return try NeuralModels(configuration: headerConfiguration, streams: streams, logger: logger)
        }
    }

    /// Returns once no network is being compiled by this process. A program that may exit within a
    /// second of loading the networks (every file it was given failed before they were needed)
    /// calls it before it exits: exiting under a compilation crashes the runtime. The `receipts`
    /// executable does, whatever the command.
    public static func waitForCompilations() {
        NetworkLoad.waitForAll()
    }

    /// An OCR thread's own inference requests on these networks; the first call waits until the
    /// detector is compiled (the recognizer's request is made when it is first needed, so the first
    /// detection need not wait for the recognizer's compilation).
    /// - Throws: `ReceiptError(.engineInitFailed)` naming the model file that could not be compiled.
    package func makeRequests() throws -> NeuralRequests {
        let requests = NeuralRequests(detector: try networks.wait(.detector).makeRequest(), recognizer: { [self] in
            let request = try networks.wait(.recognizer).makeRequest()
            self.requests.add(1, ordering: .relaxed)
            return request
        }, header: header.map { header in { try header.makeRequests() } })
        self.requests.add(1, ordering: .relaxed)
        return requests
    }

    /// The file's bytes after checking its SHA-256 (the bytes checked are the bytes compiled).
    private static func verified(_ file: NeuralModelSet.File, at url: URL) throws -> Data {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ReceiptError(.neuralReaderNotInstalled, file: url.path, "model file missing: run `make neural`")
        }
        let digest = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        guard digest == file.sha256 else {
            throw ReceiptError(.neuralModelCorrupt, file: url.path,
                               "SHA-256 mismatch (expected \(file.sha256.prefix(12))…, found \(digest.prefix(12))…): the file is damaged or not the model expected; run `make neural` to install it again")
        }
        return data
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.2f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}

/// The two networks being compiled, each on a thread of its own, and what became of them.
///
/// `@unchecked Sendable`: the state is read and written only with `condition` locked (the count of
/// compilations in flight with `inFlight` locked); the core is
/// used by the two compiling threads at once, which OpenVINO allows (`ov::Core` is thread-safe),
/// and kept until both finish.
private final class NetworkLoad: @unchecked Sendable {
    private let condition = NSCondition()
    private var detector: Result<CompiledNetwork, ReceiptError>?
    private var recognizer: Result<CompiledNetwork, ReceiptError>?

    enum Network { case detector, recognizer }

    /// Networks of the process being compiled now, counted before their threads start: the
    /// runtime's exit-time destructors (some registered during a compilation itself, so no atexit
    /// handler could run before them) must not run under one.
    private static let inFlight = NSCondition()
    nonisolated(unsafe) private static var compiling = 0

    /// Returns once no network of this process is being compiled.
    static func waitForAll() {
        inFlight.lock()
        while compiling > 0 { inFlight.wait() }
        inFlight.unlock()
    }

    init(core: OpenVINOCore, detector: (bytes: Data, file: String), recognizer: (bytes: Data, file: String),
         threads: Int, logger: Logger, setName: String) {
        let started = ContinuousClock.now
        nonisolated(unsafe) let core = core
        Self.inFlight.lock()
        Self.compiling += 2
        Self.inFlight.unlock()
        for (which, model) in [(Network.detector, detector), (.recognizer, recognizer)] {
            let thread = Thread { [self] in
                let result: Result<CompiledNetwork, ReceiptError>
                do {
                    result = .success(try core.compile(model: model.bytes, file: model.file, threads: threads, streams: 1))
                } catch let error as ReceiptError {
                    result = .failure(error)
                } catch {
                    result = .failure(ReceiptError(.engineInitFailed, file: model.file, "cannot compile the model: \(error)"))
                }
                condition.lock()
                if which == .detector { self.detector = result } else { self.recognizer = result }
                let done = self.detector != nil && self.recognizer != nil
                condition.broadcast()
                condition.unlock()
                Self.inFlight.lock()
                Self.compiling -= 1
                Self.inFlight.broadcast()
                Self.inFlight.unlock()
                if done {
                    logger.debug("Neural reader loaded", metadata: [
                        "neural.models": "\(setName)", "neural.openvino": "\(OpenVINO.version)", "neural.streams": "1",
                        "neural.seconds": "\(NeuralModels.seconds(ContinuousClock.now - started))",
                    ])
                }
            }
            thread.name = "receipts-neural-load"
            thread.start()
        }
    }

    /// The network once compiled, or why it could not be.
    func wait(_ network: Network) throws -> CompiledNetwork {
        condition.lock()
        defer { condition.unlock() }
        while (network == .detector ? detector : recognizer) == nil { condition.wait() }
        return try (network == .detector ? detector : recognizer)!.get()
    }
}

/// One OCR thread's inference requests: made on first use by that thread and kept with it.
package final class NeuralRequests {
    let detector: InferRequest
    private var madeRecognizer: InferRequest?
    private let makeRecognizer: () throws -> InferRequest
    private var madeHeader: NeuralRequests?
    private let makeHeader: (() throws -> NeuralRequests)?

    init(detector: InferRequest, recognizer: @escaping () throws -> InferRequest, header: (() throws -> NeuralRequests)? = nil) {
        self.detector = detector
        makeRecognizer = recognizer
        makeHeader = header
    }

    /// The recognizer's request, made (once the recognizer is compiled) on first use.
    func recognizer() throws -> InferRequest {
        if let madeRecognizer { return madeRecognizer }
        let made = try makeRecognizer()
        madeRecognizer = made
        return made
    }

    /// The header networks' requests (`NeuralModels.header`), made on first use; nil without them.
    func header() throws -> NeuralRequests? {
        if let madeHeader { return madeHeader }
        guard let makeHeader else { return nil }
        let made = try makeHeader()
        madeHeader = made
        return made
    }
}

@available(*, unavailable) extension NeuralRequests: Sendable {}
