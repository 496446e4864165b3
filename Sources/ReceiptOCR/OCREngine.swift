import COCRTuning
import CTesseract
import Foundation
import Logging
import ReceiptModel
import ServiceLifecycle
import Synchronization

/// Reads receipt images with Tesseract on dedicated threads.
///
/// A `Service`: `run()` starts `threads` OS threads, each owning one Tesseract engine (made when
/// the thread starts and reused), which take jobs from a FIFO queue; it returns after a graceful
/// shutdown or cancellation, once the jobs queued by then are done and the threads have ended. Run
/// it in a `ServiceGroup` beside the services that use it, or around a piece of work with
/// `withRunning(_:)`. Callers suspend until their job is done, so Swift's cooperative thread pool
/// is never blocked by OCR. Work asked of an engine that is not running yet waits for `run()`;
/// work asked after it stopped fails with `.engineInitFailed`.
///
/// With `neural` networks (compiled once for the process, see `NeuralModels`) the same threads also
/// run the neural reader: each thread makes its own inference requests on them when it first reads
/// with it, so N threads use N requests on one compiled model. Without them the engine is
/// Tesseract only and asking for a neural reading fails with `.neuralReaderNotInstalled`.
///
/// Tesseract on Debian uses OpenMP: set `OMP_THREAD_LIMIT=1` in the environment before the process
/// starts, or OCR is several times slower (the `receipts` executable does this itself).
public final class OCREngine: Service, Sendable {
    public let configuration: OCRConfiguration
    public let threads: Int
    /// The neural reader's networks, or nil (Tesseract only).
    public let neural: NeuralModels?
    private let dataPath: String
    private let queue = JobQueue()
    private let logger: Logger

    /// Checks the configuration and that every language's data is installed; starts nothing.
    /// - Throws: `ReceiptError` (`.languageNotInstalled`, `.invalidConfiguration`).
    public init(configuration: OCRConfiguration = OCRConfiguration(), threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                neural: NeuralModels? = nil, logger: Logger) throws {
        self.configuration = configuration
        self.neural = neural
        self.threads = max(1, threads)
        self.dataPath = try configuration.resolvedDataPath()
        self.logger = logger
        OCREngine.warnAboutOpenMPOnce(logger)
    }

    // MARK: Running

    /// Starts the OCR threads and keeps them until a graceful shutdown or cancellation; then lets
    /// them finish the jobs already queued and returns when they have ended.
    /// - Throws: `ReceiptError(.engineInitFailed)` when not even one Tesseract engine can start
    ///   (checked before any thread is started), or when called twice.
    public func run() async throws {
        // One engine made here, before any thread: a broken installation fails the service now,
        // not on the first receipt. The first thread then uses it (each model load costs time and
        // leaves memory behind).
        let first: HandOver
        do {
            first = HandOver(try TesseractHandle(dataPath: dataPath, languages: configuration.languages))
        } catch {
            // Nothing will ever read: work already asked for fails now instead of waiting forever.
            queue.close()
            while let job = queue.pop() { job(nil) }
            throw error
        }
        guard queue.start() else {
            throw ReceiptError(.engineInitFailed, "the OCR engine was already started")
        }
        let finished = ThreadsFinished(count: threads)
        for index in 0..<threads {
            let thread = Thread { [queue, dataPath, configuration, logger] in
                OCREngine.workerLoop(queue: queue, handle: index == 0 ? first.take() : nil, dataPath: dataPath,
                                     languages: configuration.languages, logger: logger)
                finished.threadEnded()
            }
            thread.name = "receipts-ocr-\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
        logger.debug("OCR engine started", metadata: ["ocr.threads": "\(threads)", "ocr.languages": "\(configuration.languages)"])
        await withTaskCancellationOrGracefulShutdownHandler {
            await queue.waitUntilClosed()
        } onCancelOrGracefulShutdown: { [queue] in
            queue.close()
        }
        await finished.wait()
        logger.debug("OCR engine stopped")
    }

    /// Whether the engine's threads are running and taking work (between `run()` starting them and
    /// a shutdown): what a readiness check asks.
    public var isRunning: Bool { queue.isOpen }

    /// Runs the engine around `body`: started before it, shut down (queued work finished) after it.
    public func withRunning<T>(_ body: (OCREngine) async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.run() }
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body(self)) } catch { outcome = .failure(error) }
            group.cancelAll()
            if case .success = outcome { try await group.waitForAll() } else { while (try? await group.next()) != nil {} }
            return try outcome.get()
        }
    }

    /// Stops taking work; the threads finish what is queued and end (as a graceful shutdown does).
    public func shutdown() {
        queue.close()
    }

    // MARK: Reading

    /// An OCR session for one receipt: the bytes are decoded on the first reading and every pass
    /// is prepared from that decoded image. At most `maxPasses` passes, the first included.
    public func session(imageData: Data, file: String, maxPasses: Int = OCRSession.defaultMaxPasses) -> OCRSession {
        OCRSession(engine: self, imageData: imageData, file: file, maxPasses: maxPasses)
    }

    /// Refuses, from the header alone and without decoding, a picture above the configuration's
    /// pixel limit (`.tooLarge`, naming `file`): what an upload is checked with before it is
    /// accepted. Formats whose size the header does not give (PDF, HEIC) pass; their limit is
    /// checked when they are read.
    public func checkPixelLimit(_ data: Data, file: String) throws {
        guard let (w, h) = Self.dimensions(of: data) else { return }
        let pixels = w * h, limit = configuration.maxPixels
        guard pixels > limit else { return }
        throw ReceiptError(.tooLarge, file: file, String(format: "image is %d×%d pixels (%.1f megapixels), above the limit of %.1f megapixels",
                                                         w, h, Double(pixels) / 1e6, Double(limit) / 1e6), hint: .maxPixels)
    }

    /// Width and height from the image's header, without decoding it; nil for PDF, HEIC and AVIF
    /// (Leptonica does not read their headers) and for bytes it cannot read.
    public static func dimensions(of data: Data) -> (width: Int, height: Int)? {
        guard let format = ImageFormat.sniff(data), ![.pdf, .heic, .avif].contains(format) else { return nil }
        var fmt: Int32 = 0, w: Int32 = 0, h: Int32 = 0, bps: Int32 = 0, spp: Int32 = 0, cmap: Int32 = 0
        let ok = data.withUnsafeBytes { raw in
            pixReadHeaderMem(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &fmt, &w, &h, &bps, &spp, &cmap) == 0
        }
        return ok ? (Int(w), Int(h)) : nil
    }

    /// Reads an image from bytes, with the configuration's settings: the first reading of a
    /// session (a page whose print was lost is read a second time, see `OCRSession.firstReading`).
    /// `file` names it in errors.
    /// - Throws: `ReceiptError` naming the file and the cause.
    public func recognize(imageData: Data, file: String) async throws -> OCRResult {
        try await session(imageData: imageData, file: file, maxPasses: 2).firstReading()
    }

    /// Reads an image file once.
    public func recognize(imageAt url: URL, file: String? = nil) async throws -> OCRResult {
        let name = file ?? url.path
        let data = try ReceiptFile.read(url, file: name)
        return try await recognize(imageData: data, file: name)
    }

    /// The words among `words` that the OCR language's dictionary holds (a lookup costs
    /// microseconds; it runs on an OCR thread, which owns the dictionary).
    public func dictionaryWords(among words: [String]) async throws -> Set<String> {
        try await onOCRThread { handle in Set(words.filter(handle.isDictionaryWord)) }
    }

    /// Jobs asked for and not yet taken by an OCR thread (for tests that wait for work to queue).
    package var queuedJobs: Int { queue.count }

    /// Runs blocking work with a Tesseract engine on one of the engine's threads.
    package func onOCRThread<T: Sendable>(_ body: @escaping @Sendable (TesseractHandle) throws -> T) async throws -> T {
        try await onOCRWorker { worker in try body(worker.tesseract) }
    }

    /// Runs blocking work on one of the engine's threads with everything that thread owns.
    package func onOCRWorker<T: Sendable>(_ body: @escaping @Sendable (OCRWorker) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let queued = queue.push { handle in
                guard let handle else {
                    continuation.resume(throwing: ReceiptError(.engineInitFailed, "the OCR engine could not start"))
                    return
                }
                continuation.resume(with: Result { try body(handle) })
            }
            if !queued {
                continuation.resume(throwing: ReceiptError(.engineInitFailed, "the OCR engine has stopped"))
            }
        }
    }

    private static func workerLoop(queue: JobQueue, handle first: TesseractHandle?, dataPath: String, languages: String,
                                   logger: Logger) {
        var handle = first.map(OCRWorker.init)
        while true {
            // The job (and the session it holds) is released before the memory is trimmed.
            let ran: Bool = {
                guard let job = queue.pop() else { return false }
                if handle == nil {
                    do { handle = OCRWorker(try TesseractHandle(dataPath: dataPath, languages: languages)) } catch {
                        logger.error("Cannot start an OCR engine", metadata: ["ocr.error": "\(error)"])
                    }
                }
                job(handle)
                return true
            }()
            guard ran else { break }
            // Kept on purpose: Tesseract frees tens of megabytes after each image; without
            // `malloc_trim` glibc keeps them in each OCR thread's arena and the process's footprint
            // only ever grows (measured on ../shared/receipts: peak RSS 186–204 MB without, 160–180
            // MB with). A no-op where glibc is not the allocator.
            receipts_release_free_memory()
        }
    }

    /// True when Tesseract's in-memory line images skip zlib compression in this process (the
    /// override in COCRTuning is linked in, wins symbol lookup, and was not turned off with
    /// `RECEIPTS_COMPRESSED_LINE_IMAGES=1`): OCR is then about a fifth faster.
    public static var lineImagesUncompressed: Bool { receipts_line_images_uncompressed() != 0 }

    private static let openMPWarning = Mutex(false)

    private static func warnAboutOpenMPOnce(_ logger: Logger) {
        guard (ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] ?? "").isEmpty else { return }
        let first = openMPWarning.withLock { warned in
            defer { warned = true }
            return !warned
        }
        guard first else { return }
        logger.warning("OMP_THREAD_LIMIT is not set: Tesseract's OpenMP threads make OCR several times slower; start the process with OMP_THREAD_LIMIT=1")
    }
}

/// FIFO of OCR jobs shared by the engine's threads. Jobs pushed before `start()` wait for it;
/// after `close()` nothing more is taken and the threads drain what is queued.
private final class JobQueue: Sendable {
    typealias Job = @Sendable (OCRWorker?) -> Void

    private struct State {
        /// Taken jobs are set to nil at once: a job's closure holds its receipt's OCR session (the
        /// decoded image), which must not outlive the job.
        var jobs: [Job?] = []
        var head = 0
        var started = false
        var closed = false
        var closedWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Wakes idle OCR threads. (A condition variable: OS threads block on it, which a Mutex cannot
    /// do; `state` stays the only place the queue's data lives.)
    private let wake = NSCondition()

    /// Jobs pushed and not yet taken.
    var count: Int { state.withLock { $0.jobs.count - $0.head } }

    /// Started and not yet closed: jobs pushed now will be read.
    var isOpen: Bool { state.withLock { $0.started && !$0.closed } }

    /// False when already started.
    func start() -> Bool {
        state.withLock { s in
            guard !s.started else { return false }
            s.started = true
            return true
        }
    }

    /// False when the queue is closed (the job is not taken).
    func push(_ job: @escaping Job) -> Bool {
        let taken = state.withLock { s in
            guard !s.closed else { return false }
            s.jobs.append(job)
            return true
        }
        if taken { signal() }
        return taken
    }

    /// Blocks until a job is available; nil once closed and drained.
    func pop() -> Job? {
        wake.lock()
        defer { wake.unlock() }
        while true {
            let next: Job?? = state.withLock { s in
                if s.head < s.jobs.count {
                    let job = s.jobs[s.head]!
                    s.jobs[s.head] = nil
                    s.head += 1
                    if s.head > 64 && s.head * 2 > s.jobs.count {
                        s.jobs.removeFirst(s.head)
                        s.head = 0
                    }
                    return .some(job)
                }
                return s.closed ? .some(nil) : nil
            }
            if let next { return next }
            wake.wait()
        }
    }

    func close() {
        let waiters = state.withLock { s in
            s.closed = true
            defer { s.closedWaiters = [] }
            return s.closedWaiters
        }
        wake.lock()
        wake.broadcast()
        wake.unlock()
        for waiter in waiters { waiter.resume() }
    }

    func waitUntilClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let closed = state.withLock { s in
                if s.closed { return true }
                s.closedWaiters.append(continuation)
                return false
            }
            if closed { continuation.resume() }
        }
    }

    private func signal() {
        wake.lock()
        wake.signal()
        wake.unlock()
    }
}

/// Counts the OCR threads still running; `wait()` returns once all have ended.
private final class ThreadsFinished: Sendable {
    private let state: Mutex<(running: Int, waiter: CheckedContinuation<Void, Never>?)>

    init(count: Int) { state = Mutex((count, nil)) }

    func threadEnded() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.running -= 1
            guard s.running == 0 else { return nil }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s in
                if s.running == 0 { return true }
                s.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}

/// Moves one engine, made on the caller's thread, to the OCR thread that will own it.
private final class HandOver: Sendable {
    private let handle: Mutex<TesseractHandle?>

    init(_ handle: consuming sending TesseractHandle) { self.handle = Mutex(handle) }

    func take() -> TesseractHandle? {
        handle.withLock { slot in
            let taken = slot
            slot = nil
            return taken
        }
    }
}

/// What one OCR thread owns: its Tesseract engine and, once it has read with the neural reader,
/// its inference requests on the shared networks. Not thread-safe: it never leaves its thread.
package final class OCRWorker {
    package let tesseract: TesseractHandle
    private var requests: NeuralRequests?

    init(_ tesseract: TesseractHandle) {
        self.tesseract = tesseract
    }

    /// This thread's inference requests on `models`, made on first use.
    package func neuralRequests(_ models: NeuralModels) throws -> NeuralRequests {
        if let requests { return requests }
        let made = try models.makeRequests()
        requests = made
        return made
    }
}

@available(*, unavailable) extension OCRWorker: Sendable {}
