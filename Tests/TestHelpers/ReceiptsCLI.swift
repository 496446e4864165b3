import Foundation

/// Runs the real `receipts` executable built beside the test bundle.
enum ReceiptsCLI {
    static var binary: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("receipts")
    }

    /// The queue with a stand-in processor (`receipts-queue-helper`), built beside the binary.
    static var queueHelper: URL {
        binary.deletingLastPathComponent().appendingPathComponent("receipts-queue-helper")
    }

    /// The repository root (for TestReceipts/ and prompts/).
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func testReceipt(_ name: String) -> String {
        repositoryRoot.appendingPathComponent("TestReceipts").appendingPathComponent(name).path
    }

    /// ../shared/receipts/<set>, or nil when the shared data is not there.
    static func sharedSet(_ name: String) -> String? {
        let path = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/receipts/\(name)").path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// The environment the binary runs in: this process's, without a store, remote analyzer or key of
    /// the developer's, and reading with Tesseract alone unless `extra` says otherwise (an empty value
    /// removes a variable: `["RECEIPTS_READER": ""]` runs the default, both readers). These tests are
    /// about the doors (CLI, folder, HTTP, stores); both readers triple each receipt's work, which on
    /// a shared 2-core machine with a debug build turns their waits into timeouts. The default reading
    /// has its own tests: `AccuracyGateTests`, `NeuralReaderCLITests` and the `bothReaders` tests of
    /// `ServeCommandTests` and `WatchCommandTests`.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for key in ["RECEIPTS_STORE", "GEMINI_API_KEY", "RECEIPTS_GEMINI_BASE_URL", "RECEIPTS_OPENAI_BASE_URL"] { env[key] = nil }
        env["RECEIPTS_READER"] = "tesseract"
        // The binary ends when this test process does, even when it is killed (CLifeline).
        env["RECEIPTS_EXIT_WITH_PROCESS"] = "\(getpid())"
        for (key, value) in extra { env[key] = value.isEmpty ? nil : value }
        return env
    }

    struct Result {
        var status: Int32
        var out: String
        var err: String

        /// Each stdout line parsed as JSON.
        func ndjson() throws -> [JSONValue] {
            try out.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        }
    }

    /// Runs `receipts ARGS`; stderr goes to a file so a chatty run cannot block on a full pipe.
    /// Runs `receipts ARGS` off the cooperative pool (see `OffPool`).
    static func run(_ arguments: [String], environment: [String: String] = [:], currentDirectory: String? = nil) async throws -> Result {
        try await OffPool.run { try runBlocking(arguments, environment: environment, currentDirectory: currentDirectory) }
    }

    /// Runs `receipts ARGS` with stdout and stderr on a pseudo-terminal, as in a user's shell:
    /// util-linux `script` runs it on a new one and copies what the terminal got to its stdout,
    /// returned in `out` (escape sequences, carriage returns and all; `\n` arrives as `\r\n`).
    static func runInTerminal(_ arguments: [String], environment: [String: String] = [:],
                              currentDirectory: String? = nil) async throws -> Result {
        let command = ([binary.path] + arguments).map(shellQuoted).joined(separator: " ")
        return try await OffPool.run {
            try runBlocking(["-qfec", "exec " + command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"),
                            environment: environment, currentDirectory: currentDirectory)
        }
    }

    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Runs another program (openssl, curl) with ARGS, off the cooperative pool.
    static func runProgram(_ path: String, _ arguments: [String]) async throws -> Result {
        try await OffPool.run { try runBlocking(arguments, executable: URL(fileURLWithPath: path), environment: [:], currentDirectory: nil) }
    }

    private static func runBlocking(_ arguments: [String], executable: URL = binary, environment: [String: String],
                                    currentDirectory: String?) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = Self.environment(environment)
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let out = try CapturedOutput(), err = try CapturedOutput()
        process.standardOutput = out.handle
        process.standardError = err.handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let outData = out.data, errData = err.data
        return Result(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
                      err: String(decoding: errData, as: UTF8.self))
    }
}

import ReceiptModel
