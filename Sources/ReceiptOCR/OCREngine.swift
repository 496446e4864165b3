import COCRTuning
import Foundation
import ReceiptModel
import Logging

/// Reads receipt images with Tesseract on dedicated threads.
///
/// A pool of `threads` OS threads, each owning one Tesseract engine (created on first use and
/// reused), takes jobs from a FIFO queue; `recognize` suspends the caller until its job is done, so
/// Swift's cooperative thread pool is never blocked by OCR.
///
/// Tesseract on Debian uses OpenMP: set `OMP_THREAD_LIMIT=1` in the environment before the process
/// starts, or OCR is several times slower (the `receipts` executable does this itself).
public final class OCREngine: Sendable {
    public let configuration: OCRConfiguration
    public let threads: Int
    private let dataPath: String
    private let queue: JobQueue
    private let logger: Logger

    /// - Throws: `ReceiptError` when the language data is missing or the configuration is invalid.
    public init(configuration: OCRConfiguration = OCRConfiguration(), threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                logger: Logger = Logger(label: "receipts.ocr")) throws {
        self.configuration = configuration
        self.threads = max(1, threads)
        self.dataPath = try configuration.resolvedDataPath()
        self.logger = logger
        self.queue = JobQueue()
        OCREngine.warnAboutOpenMPOnce(logger)
        // Fail now, not on the first receipt, if the engine cannot start; the first thread then
        // uses this engine (each model load costs time and leaves memory behind).
        let first = HandOver(try TesseractHandle(dataPath: dataPath, languages: configuration.languages))
        for index in 0..<self.threads {
            let thread = Thread { [queue, dataPath, configuration, logger] in
                OCREngine.workerLoop(queue: queue, handle: index == 0 ? first.take() : nil, dataPath: dataPath,
                                     languages: configuration.languages, logger: logger)
            }
            thread.name = "receipts-ocr-\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    deinit {
        queue.close()
    }

    /// Reads an image from bytes. `file` names it in errors.
    /// - Throws: `ReceiptError` naming the file and the cause.
    public func recognize(imageData: Data, file: String, pass: OCRPass? = nil) async throws -> OCRResult {
        let loader = ImageLoader(maxPixels: configuration.maxPixels, preprocessing: configuration.preprocessing)
        let psm = pass?.pageSegmentationMode ?? configuration.pageSegmentationMode
        return try await withCheckedThrowingContinuation { continuation in
            queue.push { handle in
                do {
                    guard let handle else {
                        throw ReceiptError(.ocrFailed, file: file, "the OCR engine could not start")
                    }
                    let loaded = try loader.load(imageData, file: file, pass: pass)
                    let read = handle.recognize(loaded.image, pageSegmentationMode: psm)
                    continuation.resume(returning: OCRResult(
                        text: read.text, lines: read.lines, meanConfidence: read.meanConfidence,
                        imageWidth: loaded.image.width, imageHeight: loaded.image.height,
                        sourceWidth: loaded.sourceWidth, sourceHeight: loaded.sourceHeight))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// The words among `words` that the OCR language's dictionary holds (a lookup costs
    /// microseconds; it runs on an OCR thread, which owns the dictionary).
    public func dictionaryWords(among words: [String]) async throws -> Set<String> {
        try await withCheckedThrowingContinuation { continuation in
            queue.push { handle in
                guard let handle else {
                    continuation.resume(throwing: ReceiptError(.engineInitFailed, "the OCR engine could not start"))
                    return
                }
                continuation.resume(returning: Set(words.filter(handle.isDictionaryWord)))
            }
        }
    }

    /// Runs blocking image work on the engine's threads.
    package func runOnOCRThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.push { _ in continuation.resume(with: Result { try body() }) }
        }
    }

    /// Reads an image file.
    public func recognize(imageAt url: URL, file: String? = nil, pass: OCRPass? = nil) async throws -> OCRResult {
        let name = file ?? url.path
        let data = try ReceiptFile.read(url, file: name)
        return try await recognize(imageData: data, file: name, pass: pass)
    }

    /// Stops the threads once queued jobs are done.
    public func shutdown() {
        queue.close()
    }

    private static func workerLoop(queue: JobQueue, handle first: TesseractHandle?, dataPath: String, languages: String,
                                   logger: Logger) {
        var handle = first
        while let job = queue.pop() {
            if handle == nil {
                do { handle = try TesseractHandle(dataPath: dataPath, languages: languages) } catch {
                    logger.error("Cannot start an OCR engine", metadata: ["ocr.error": "\(error)"])
                }
            }
            job(handle)
            // Tesseract frees tens of megabytes after each image; without this glibc keeps them in
            // each OCR thread's arena and the process's footprint only ever grows.
            receipts_release_free_memory()
        }
    }

    /// True when Tesseract's in-memory line images skip zlib compression in this process (the
    /// override in COCRTuning is linked in and wins symbol lookup): OCR is then about a fifth faster.
    public static var lineImagesUncompressed: Bool { receipts_line_images_uncompressed() != 0 }

    private static let openMPWarning = OnceFlag()

    private static func warnAboutOpenMPOnce(_ logger: Logger) {
        guard (ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] ?? "").isEmpty, openMPWarning.take() else { return }
        logger.warning("OMP_THREAD_LIMIT is not set: Tesseract's OpenMP threads make OCR several times slower; start the process with OMP_THREAD_LIMIT=1")
    }
}

/// FIFO of OCR jobs shared by the engine's threads.
///
/// `@unchecked Sendable`: every access to `jobs` and `closed` happens with `condition` locked.
private final class JobQueue: @unchecked Sendable {
    package typealias Job = (TesseractHandle?) -> Void
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var head = 0
    private var closed = false

    package func push(_ job: @escaping Job) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Blocks until a job is available; nil once closed and drained.
    package func pop() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count && !closed { condition.wait() }
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        if head > 64 && head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }

    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Moves one engine, made on the caller's thread, to the OCR thread that will own it.
///
/// `@unchecked Sendable`: `take()` is called exactly once, by that thread, after `init`.
private final class HandOver: @unchecked Sendable {
    private var handle: TesseractHandle?

    package init(_ handle: TesseractHandle) { self.handle = handle }

    package func take() -> TesseractHandle? {
        defer { handle = nil }
        return handle
    }
}

/// True exactly once.
package final class OnceFlag: @unchecked Sendable {
    // Invariant: `done` is only read and written with `lock` held.
    private let lock = NSLock()
    private var done = false

    package func take() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if done { return false }
        done = true
        return true
    }
}
