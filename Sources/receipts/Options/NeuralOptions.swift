import ArgumentParser
import Foundation
import Logging
import ReceiptKit

extension ReaderChoice: ExpressibleByArgument {}

/// The neural reader's flags (PP-OCR models through OpenVINO, installed by `make neural`).
struct NeuralOptions: ParsableArguments {
    @Option(name: .customLong("neural-dir"),
            help: "Folder `make neural` installed the neural reader into (default: $RECEIPTS_NEURAL_DIR, then .build/neural beside the executable's folder).")
    var directory: String?

    @Option(name: .customLong("neural-models"), help: ArgumentHelp("The neural reader's model set: \(NeuralModelSet.installed.map(\.name).joined(separator: ", ")).", visibility: .hidden))
    var models = NeuralConfiguration(directory: "").modelSet.name

    @Option(name: .customLong("neural-header-models"), help: ArgumentHelp("The model set that reads the header band (the rows above the first priced row) again, or none: \(NeuralModelSet.installed.map(\.name).joined(separator: ", ")).", visibility: .hidden))
    var headerModels = NeuralConfiguration(directory: "").headerModelSet?.name ?? "none"

    @Option(name: .customLong("det-max-side"), help: ArgumentHelp("Longest side of the neural detector's input, in pixels.", visibility: .hidden))
    var detectorMaximumSide = NeuralConfiguration(directory: "").detectorMaximumSide

    @Option(name: .customLong("det-min-side"), help: ArgumentHelp("Shortest side of the neural detector's input, in pixels (smaller pages are scaled up).", visibility: .hidden))
    var detectorMinimumSide = NeuralConfiguration(directory: "").detectorMinimumSide

    @Option(name: .customLong("det-max-pixels"), help: ArgumentHelp("Most pixels of the neural detector's input.", visibility: .hidden))
    var detectorMaximumPixels = NeuralConfiguration(directory: "").detectorMaximumPixels

    @Option(name: .customLong("rec-batch"), help: ArgumentHelp("Text boxes the neural recognizer reads at once.", visibility: .hidden))
    var batchSize = NeuralConfiguration(directory: "").batchSize

    @Option(name: .customLong("rec-min-width"), help: ArgumentHelp("Narrowest neural recognizer input, in pixels.", visibility: .hidden))
    var recognizerMinimumWidth = NeuralConfiguration(directory: "").recognizerMinimumWidth

    @Option(name: .customLong("rec-batch-width"), help: ArgumentHelp("Most crop width (rows × padded width) the neural recognizer reads at once; its working memory grows with it.", visibility: .hidden))
    var recognizerBatchWidth = NeuralConfiguration(directory: "").recognizerBatchWidth

    @Option(name: .customLong("rec-pack"), help: ArgumentHelp("Read short crops side by side in one recognizer input row (yes or no).", visibility: .hidden))
    var packing = NeuralConfiguration(directory: "").recognizerPacking ? "yes" : "no"

    @Option(name: .customLong("rec-pack-gap"), help: ArgumentHelp("Pixels between two crops sharing a recognizer input row.", visibility: .hidden))
    var packingGap = NeuralConfiguration(directory: "").recognizerPackingGap

    @Flag(name: .customLong("neural-gray"), help: ArgumentHelp("Give the neural reader the page in gray even when it is in colour.", visibility: .hidden))
    var gray = false

    func validate() throws {
        guard NeuralModelSet.installed.contains(where: { $0.name == models }) else {
            throw ValidationError("--neural-models must be one of \(NeuralModelSet.installed.map(\.name).joined(separator: ", ")).")
        }
        guard headerModels == "none" || NeuralModelSet.installed.contains(where: { $0.name == headerModels }) else {
            throw ValidationError("--neural-header-models must be none or one of \(NeuralModelSet.installed.map(\.name).joined(separator: ", ")).")
        }
        guard detectorMaximumSide >= 32, detectorMinimumSide >= 32 else { throw ValidationError("--det-max-side and --det-min-side must be at least 32.") }
        guard batchSize > 0 else { throw ValidationError("--rec-batch must be positive.") }
        guard recognizerBatchWidth > 0 else { throw ValidationError("--rec-batch-width must be positive.") }
        guard packing == "yes" || packing == "no" else { throw ValidationError("--rec-pack must be yes or no.") }
        guard packingGap >= 0 else { throw ValidationError("--rec-pack-gap must not be negative.") }
    }

    /// Flag > `RECEIPTS_NEURAL_DIR` > beside the executable.
    var configuration: NeuralConfiguration {
        // The executable's real path (a link to it in PATH still finds the build folder it is in).
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let folder = NeuralConfiguration.resolveDirectory(explicit: directory, environment: ProcessInfo.processInfo.environment,
                                                          executable: executable)
        return NeuralConfiguration(directory: folder, modelSet: NeuralModelSet.installed.first { $0.name == models }!,
                                   headerModelSet: NeuralModelSet.installed.first { $0.name == headerModels },
                                   detectorMinimumSide: detectorMinimumSide, detectorMaximumSide: detectorMaximumSide,
                                   detectorMaximumPixels: detectorMaximumPixels,
                                   batchSize: batchSize, recognizerMinimumWidth: recognizerMinimumWidth,
                                   recognizerBatchWidth: recognizerBatchWidth, recognizerPacking: packing == "yes",
                                   recognizerPackingGap: packingGap, grayInput: gray)
    }

    /// The networks, compiled for `streams` OCR threads; a one-line error and exit code 2 when the
    /// reader is not installed or a model file is damaged.
    func load(streams: Int, logger: Logger) throws -> NeuralModels {
        do {
            return try NeuralModels(configuration: configuration, streams: streams, logger: logger)
        } catch let error as ReceiptError {
            printError("\(error)")
            throw ExitCode(2)
        }
    }
}
