import ArgumentParser
import Foundation
import Logging
import ReceiptModel

/// Logging flags. Logs go to stderr so stdout stays clean for results.
struct LoggingOptions: ParsableArguments {
    @Flag(name: [.short, .customLong("verbose")], help: "Log more (repeat for debug output).")
    var verbosity: Int

    @Flag(name: [.short, .customLong("quiet")], help: "Log errors only.")
    var quiet = false

    var level: Logger.Level {
        if quiet { return .error }
        switch verbosity {
        case 0: return .warning
        case 1: return .info
        default: return .debug
        }
    }

    func bootstrap() -> Logger {
        let level = self.level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "receipts")
        logger.logLevel = level
        return logger
    }
}

/// Prints `receipts: error: <message>` to stderr.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("receipts: error: \(message)\n".utf8))
}

/// Runs a command's step; a `ReceiptError` is printed on one line (`printError`) and the command
/// exits 1.
func exitingOnReceiptError<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as ReceiptError {
        printError(error.message)
        throw ExitCode(1)
    }
}
