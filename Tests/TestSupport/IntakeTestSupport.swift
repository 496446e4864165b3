// Test support is built for the tests only (debug builds, where @testable imports work):
// `swift build -c release` builds every regular target, this one included, and gets it empty.
#if DEBUG
import Foundation
import Logging
import ServiceLifecycle
import Testing
@testable import ReceiptKit
@testable import TestHelpers

/// A watched folder in a temporary directory, with a pipeline on a store beside it and a
/// `ScriptedProcessor` doing the "OCR": start the intake, drop files, look at what got filed.
final class IntakeHarness: @unchecked Sendable {
    let dir: TemporaryDirectory
    let processor: ScriptedProcessor
    /// The watched folder.
    let inbox: String

    init(processor: ScriptedProcessor = ScriptedProcessor()) throws {
        dir = try TemporaryDirectory()
        self.processor = processor
        inbox = dir.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
    }

    var processed: String { inbox + "/processed" }
    var failed: String { inbox + "/failed" }

    func configuration(_ change: (inout IntakeConfiguration) -> Void = { _ in }) -> IntakeConfiguration {
        var configuration = IntakeConfiguration(directory: inbox, stabilityDelay: 0.3, rescanInterval: 30, shutdownGrace: 2)
        change(&configuration)
        return configuration
    }

    /// Starts a pipeline and an intake in a service group, as `receipts watch` does.
    /// `shutdownLimit`: after a graceful shutdown has run this long, the group is cancelled (as
    /// `receipts watch` does after 10 s).
    func start(workers: Int = 2, logger: Logger = TestSupport.logger, shutdownLimit: Duration? = nil,
               _ change: (inout IntakeConfiguration) -> Void = { _ in }) throws -> RunningIntake {
        let pipeline = try TestSupport.pipeline(dir, processor: processor, workers: workers)
        let intake = IntakeService(pipeline: pipeline, configuration: configuration(change), logger: logger)
        var groupConfiguration = ServiceGroupConfiguration(
            services: [.init(service: pipeline), .init(service: intake, successTerminationBehavior: .gracefullyShutdownGroup)],
            logger: TestSupport.logger)
        groupConfiguration.maximumGracefulShutdownDuration = shutdownLimit
        let group = ServiceGroup(configuration: groupConfiguration)
        let task = Task { try await group.run() }
        return RunningIntake(pipeline: pipeline, intake: intake, group: group, task: task)
    }

    /// Writes a file into the watched folder (at once, like a fast copy).
    @discardableResult
    func drop(_ name: String, _ data: Data) throws -> String {
        let path = inbox + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Names in a folder below the watched folder ("processed", "failed", "" for the folder itself), sorted.
    func names(in folder: String) -> [String] {
        let path = folder.isEmpty ? inbox : inbox + "/" + folder
        return ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    func sidecar(_ path: String) throws -> JSONValue {
        let data = try #require(FileManager.default.contents(atPath: path), "no sidecar at \(path)")
        return try JSONValue.parse(String(decoding: data, as: UTF8.self))
    }

    func text(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }
}

struct RunningIntake {
    let pipeline: ReceiptPipeline
    let intake: IntakeService
    let group: ServiceGroup
    let task: Task<Void, Error>

    /// Waits until the watcher has started and looked at the folder once (its watches are set).
    func watching(timeout: Double = 180) async throws -> Bool {
        try await eventually(timeout: timeout) { intake.progress.watch.passes >= 1 }
    }

    /// Waits until the intake has done what it will do with the folder as it is now: the watcher
    /// has read the folder twice since the call (so it has read the events of every change made
    /// before it), no file waits to become stable, and every file reported has been handled. What
    /// has not happened by then will not happen without a new change (or a rescan, 30 s away here).
    func settled(timeout: Double = 180) async throws -> Bool {
        let start = intake.progress.watch.passes
        return try await eventually(timeout: timeout) {
            let progress = intake.progress
            return progress.watch.passes >= start + 2 && progress.watch.waiting == 0 && progress.unhandled == 0
        }
    }

    /// A graceful shutdown, as SIGTERM does; returns when both services have stopped.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        do {
            try await task.value
        } catch is CancellationError {
            // Cancelled after the shutdown limit: what a stuck receipt leads to.
        }
    }
}

#endif
