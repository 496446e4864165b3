import ArgumentParser
import Foundation
import Logging
import ReceiptKit
import ServiceLifecycle

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch a folder: every receipt image dropped in becomes a receipt with a drafted expense.",
        discussion: """
            Runs until SIGINT (Ctrl-C) or SIGTERM, then stops within a few seconds: receipts in flight \
            finish, or stay pending and are taken on the next start; nothing is half-written. Files \
            already in DIR at start-up are taken too. Subfolders are watched (inotify), new ones as they \
            appear; a full rescan runs every --rescan seconds as a safety net. Use --poll on network \
            shares (NFS, SMB), where change events do not arrive.

            A file is taken once it has had no events and kept its size and mtime for --stable seconds, \
            so a slow copy or a scanner still writing is not read early. Only image files are taken \
            (.jpg .jpeg .png .tif .tiff .webp .bmp .gif .heic .heif .avif .pdf). Never taken: names ending in .part \
            .filepart .crdownload .tmp .partial .download .swp, names starting with ~$ or a dot, \
            .DS_Store, Thumbs.db, desktop.ini, @eaDir, #recycle, and --ignore patterns.

            Where files go:
              completed: DIR/processed/<name>, with <stem>.json beside it
              failed:    DIR/failed/<name>, with <stem>.error.txt beside it
            The .json holds the receipt's NDJSON record (as `receipts process` prints it) plus \
            "duplicate" and, for a duplicate, "duplicateOf", its "file" naming the image where it now \
            is, beside it; the .error.txt the one-line error. \
            Subfolders are kept below the output folder. A name already taken gets a suffix (a-1.jpg); \
            nothing is overwritten. Bytes already in the store are not read again: the file is filed as \
            a duplicate of the first (bytes whose receipt failed are tried again). With --keep files \
            stay where they are (sidecars are still written) and are remembered by content in \
            processed/.receipts-keep.ndjson.

            A long receipt photographed in several pictures: name them NAME-1.jpg, NAME-2.jpg… (top \
            to bottom). Pictures of one NAME in one folder that arrive within --join seconds of each \
            other (default 10) are read together, and are one receipt, filed together with one NAME.json, \
            when each overlaps the one before (the rows both show). Pictures that do not overlap are \
            receipts of their own, each filed with its own sidecar, as `receipts process` reads them; a \
            name ending in a date (receipt-2024-03-14.jpg) never joins. --no-join reads every file as a \
            receipt of its own.

            Stopping and starting again processes each file exactly once: the store knows every image \
            by content, so a file left behind by a stop or a crash is filed with its stored result (a \
            failed one is tried again).

            One log line per receipt goes to stderr (file, status, vendor, total, elapsed; a failed receipt's \
            line is at error level, with its cause, so -q still shows it); -v adds the queue's lines, -vv \
            debug output, -q errors only.

            Exit status: 0 after a stop; with --once, 0 when every file completed, 1 when any failed \
            or could not be filed. 2 for usage errors, a missing folder, an unusable store or missing \
            OCR language data.

            Examples:
              receipts watch ~/Scans
              receipts watch /mnt/nas/receipts --poll 30 --processed /srv/receipts/done
              receipts watch ~/Scans --once          (from cron)
            """)

    @Argument(help: ArgumentHelp("The folder to watch.", valueName: "DIR"))
    var directory: String

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var userOptions: FilingUserOptions

    @Option(help: ArgumentHelp("Where completed images and their .json go (default: DIR/processed).", valueName: "DIR"))
    var processed: String?

    @Option(help: ArgumentHelp("Where failed images and their .error.txt go (default: DIR/failed).", valueName: "DIR"))
    var failed: String?

    @Flag(help: "Leave files where they are; remember them by content so a restart does not take them again.")
    var keep = false

    @Option(help: ArgumentHelp("Scan every SECONDS instead of using inotify (network shares).", valueName: "SECONDS"))
    var poll: Double?

    @Option(help: ArgumentHelp("Seconds a file must stay unchanged before it is taken.", valueName: "SECONDS"))
    var stable: Double = 3

    @Option(help: ArgumentHelp("Seconds between full rescans beside inotify (a safety net).", valueName: "SECONDS"))
    var rescan: Double = 60

    @Option(help: ArgumentHelp(
        "Ignore names matching GLOB (*, ?, [...]); a GLOB with / is matched against the path below DIR. Repeatable.",
        valueName: "GLOB"))
    var ignore: [String] = []

    @Option(help: ArgumentHelp("Pictures NAME-1.jpg, NAME-2.jpg… arriving within SECONDS of each other are one long receipt.", valueName: "SECONDS"))
    var join: Double = 10

    @Flag(name: .customLong("no-join"), help: "Read NAME-1.jpg, NAME-2.jpg… as receipts of their own, not as one receipt's pictures.")
    var noJoin = false

    @Flag(help: "Take the files that are there, wait for them, and exit (for cron).")
    var once = false

    @Flag(name: .customLong("no-recursive"), help: "Do not watch subfolders.")
    var noRecursive = false

    @OptionGroup var pipeline: PipelineOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        try pipeline.requireWorkers()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder) else {
            throw ValidationError("\(directory): no such folder; create it or name another.")
        }
        guard isFolder.boolValue else { throw ValidationError("\(directory): not a folder.") }
        guard stable >= 0 else { throw ValidationError("--stable must be 0 or more seconds.") }
        if let poll, !(poll > 0) { throw ValidationError("--poll must be a positive number of seconds.") }
        guard rescan > 0 else { throw ValidationError("--rescan must be a positive number of seconds.") }
        guard join > 0 else { throw ValidationError("--join must be a positive number of seconds (--no-join turns joining off).") }
    }

    func run() async throws {
        let (logger, queueLogger) = bootstrapLogging()
        let processor = try self.pipeline.makeProcessor(logger: queueLogger)
        let location: StoreLocation
        let pipeline: ReceiptPipeline
        let ownership: Ownership
        do {
            location = try storeOptions.location()
            let configuration = ReceiptPipeline.Configuration(taxonomy: processor.options.taxonomy, workers: self.pipeline.workers).advised
            let opened = try await storeOptions.open(maximumConnections: configuration.workers + 4, logger: queueLogger)
            ownership = try await userOptions.ownership(opened.store)
            pipeline = ReceiptPipeline(store: opened.store, images: opened.images, processor: processor, configuration: configuration,
                                       logger: queueLogger)
        } catch let error as ReceiptError {
            printError(error)
            throw ExitCode(2)
        }
        // A store or image folder kept inside the watched folder is never taken as input.
        var excluded = [pipeline.images.location]
        if case let .sqlite(path) = location {
            let storeFile = URL(fileURLWithPath: path).standardizedFileURL.path
            excluded += [storeFile, storeFile + "-wal", storeFile + "-shm", storeFile + "-journal"]
        }
        var intakeConfiguration = IntakeConfiguration(
            directory: directory, processedDirectory: processed, failedDirectory: failed, keep: keep,
            recursive: !noRecursive, pollInterval: poll, stabilityDelay: stable, rescanInterval: rescan,
            ignorePatterns: ignore, excludedPaths: excluded, once: once, maxInFlight: max(4, self.pipeline.workers * 2),
            receiptLogLevel: .info, failureLogLevel: .error, ownership: ownership)
        intakeConfiguration.joinPictures = noJoin ? nil : join
        let intake = IntakeService(pipeline: pipeline, configuration: intakeConfiguration, logger: logger)
        logger.info("Watching folder", metadata: ["intake.folder": "\(directory)", "store.path": "\(location)", "user.name": "\(ownership.owner)"])

        var configuration = ServiceGroupConfiguration(
            // Shut down in reverse order: the intake stops taking files, the workers finish, then
            // the OCR threads end.
            services: [.init(service: processor.engine), .init(service: pipeline),
                       .init(service: intake, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: queueLogger)
        // A receipt still in hand after this goes back to pending (taken on the next start).
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch let error as ReceiptError {
            printError(error)
            throw ExitCode(2)
        }
        let summary = intake.summary
        if once && (summary.failed > 0 || summary.notFiled > 0) { throw ExitCode(1) }
    }

    /// Logs go to stderr. The intake's line per receipt shows by default; the queue's own lines
    /// from -v on.
    private func bootstrapLogging() -> (intake: Logger, queue: Logger) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .trace
            return handler
        }
        var intake = Logger(label: "receipts.watch")
        var queue = Logger(label: "receipts")
        if logging.quiet {
            intake.logLevel = .error
            queue.logLevel = .error
        } else {
            intake.logLevel = logging.verbosity >= 2 ? .debug : .info
            queue.logLevel = logging.level
        }
        return (intake, queue)
    }
}
