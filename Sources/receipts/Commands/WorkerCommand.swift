import ArgumentParser
import Foundation
import Logging
import ReceiptKit
import ServiceLifecycle

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run queue workers only: read every pending receipt of the store, on as many hosts as wanted.",
        discussion: """
            For a PostgreSQL store shared by several hosts: start `receipts worker --store postgres://…` \
            on each host (--workers receipts at once per host). Receipts submitted anywhere (`process`, \
            `watch`, `serve`, the library) are taken by whichever worker is free; an idle worker is \
            woken by PostgreSQL's NOTIFY at once, and looks again every few seconds as a safety net. \
            A worker that dies (SIGKILL, power loss) leaves leases that expire; any other worker then \
            takes its receipts again. Works on a SQLite store too (workers on this host only).

            Runs until SIGINT (Ctrl-C) or SIGTERM: receipts in hand are finished (or, after 10 s, \
            handed back to the queue), none is lost. One log line per receipt with -v (receipt.id, file, \
            status, vendor, total); a receipt that failed for good is logged at error level, also without -v.

            Exit status: 0 after a stop; 2 for usage errors, an unusable store or missing OCR language data.

            Examples:
              receipts worker --store postgres://receipts@db.internal/receipts --workers 2
              PGPASSWORD=… receipts worker --store postgres://receipts@10.0.0.5:5432/receipts
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var pipeline: PipelineOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: ArgumentHelp("Seconds a worker's hold on a receipt lasts without renewal (renewed every third of it); a dead worker's receipts are taken again after this.",
                               valueName: "SECONDS"))
    var lease: Double = 60

    func validate() throws {
        try pipeline.requireWorkers()
        guard lease >= 1 else { throw ValidationError("--lease must be at least 1 second.") }
    }

    func run() async throws {
        let logger = logging.bootstrap()
        let processor = try self.pipeline.makeProcessor(logger: logger)
        let location: StoreLocation
        let receiptPipeline: ReceiptPipeline
        do {
            location = try storeOptions.location()
            var configuration = ReceiptPipeline.Configuration(taxonomy: processor.options.taxonomy, workers: pipeline.workers,
                                                              leaseDuration: lease).advised
            configuration.onFinished = { [logger] outcome in ReceiptLogLine.log(outcome, to: logger) }
            receiptPipeline = try await ReceiptPipeline.open(
                location, imagesDirectory: storeOptions.images, drivers: StoreOptions.drivers, processor: processor,
                configuration: configuration, logger: logger)
        } catch let error as ReceiptError {
            printError(error)
            throw ExitCode(2)
        }
        if !logging.quiet {
            FileHandle.standardError.write(Data("receipts worker: \(pipeline.workers) workers on \(location); stop with Ctrl-C or SIGTERM\n".utf8))
        }
        var configuration = ServiceGroupConfiguration(
            // Shut down in reverse order: the workers finish, then the OCR threads end.
            services: [.init(service: processor.engine), .init(service: receiptPipeline)],
            gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch let error as ReceiptError {
            printError(error)
            throw ExitCode(2)
        }
        if !logging.quiet { FileHandle.standardError.write(Data("receipts worker: stopped\n".utf8)) }
    }
}
