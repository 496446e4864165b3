import ArgumentParser
import CLifeline
import Foundation
import ReceiptModel
import ReceiptOCR

// Debian's libtesseract uses OpenMP, which reads OMP_THREAD_LIMIT when the library loads — before
// any Swift code runs. Without it OCR is 4–9× slower on small machines (measured on this project's
// 2-core machine), so the executable re-executes itself once with it set. Decided and kept: it is
// the only way to set it from inside the program, it costs one exec (a few milliseconds), and a
// user's own OMP_THREAD_LIMIT is respected. Only the executable does this; a program linking
// ReceiptKit sets it in its own environment (OCREngine logs a warning once when it is missing).
if (ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] ?? "").isEmpty {
    setenv("OMP_THREAD_LIMIT", "1", 1)
    execv("/proc/self/exe", CommandLine.unsafeArgv)
    // exec failed (no /proc): carry on; ReceiptKit logs a warning about the slower OCR.
}

// RECEIPTS_EXIT_WITH_PROCESS=<pid>: this process ends (SIGKILL) when that one does, however it
// ends. What the tests and scripts set for every `receipts` they start, so that none outlives a
// test run that is killed (CLifeline); read after the re-execution above, in the process that runs.
_ = receipts_lifeline_from_environment()

/// A usage error as every command prints it: `receipts: error: …` (as the commands' other errors
/// start), then the usage of the command it is about; exit 2 (ArgumentParser's own code is 64).
func exitWithUsageError(_ text: String) -> Never {
    var text = text
    if text.hasPrefix("Error: ") { text = "receipts: error: " + text.dropFirst("Error: ".count) }
    FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    exit(2)
}

do {
    _ = try Receipts.parseAsRoot()
} catch where Receipts.exitCode(for: error) == .validationFailure {
    exitWithUsageError(Receipts.fullMessage(for: error))
} catch {}

/// `AsyncParsableCommand.main()` (top-level code would pick the synchronous overload), which
/// exits only after any neural network this process began to compile is compiled: the networks
/// compile in the background while the first receipt is read, and exiting under a compilation
/// crashes OpenVINO (`NeuralModels.waitForCompilations`).
///
/// A usage error a command finds only once it runs (`--password-file` naming a file that is not
/// there) is printed as one found while parsing: with that command's usage, exit 2. Any other error
/// that reaches here is one line, `receipts: error: …`, exit 1.
func runAsync<Command: AsyncParsableCommand>(_: Command.Type) async {
    var parsed: (any ParsableCommand.Type)?
    do {
        var command = try Command.parseAsRoot()
        parsed = type(of: command)
        if var command = command as? any AsyncParsableCommand {
            try await command.run()
        } else {
            try command.run()
        }
        NeuralModels.waitForCompilations()
    } catch let error as ValidationError {
        NeuralModels.waitForCompilations()
        let usage = parsed.map { Command.usageString(for: $0) } ?? Command.usageString(for: Command.self)
        let help = ["receipts", fullName(parsed, root: Command.self)].filter { !$0.isEmpty }.joined(separator: " ")
        exitWithUsageError("receipts: error: \(error.message)\nUsage: \(usage)\n  See '\(help) --help' for more information.")
    } catch let error as ReceiptError {
        NeuralModels.waitForCompilations()
        printError(error)
        exit(1)
    } catch {
        NeuralModels.waitForCompilations()
        let code = Command.exitCode(for: error)
        if code == .validationFailure { exitWithUsageError(Command.fullMessage(for: error)) }
        // --help, --version, an ExitCode a command chose: as ArgumentParser prints them.
        if error is ExitCode || code == .success { Command.exit(withError: error) }
        var message = Command.fullMessage(for: error)
        if message.hasPrefix("Error: ") { message = "receipts: error: " + message.dropFirst("Error: ".count) }
        FileHandle.standardError.write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
        exit(code.rawValue)
    }
}

/// `mail`, or `user add`: the subcommand's words after `receipts`.
private func fullName(_ command: (any ParsableCommand.Type)?, root: any ParsableCommand.Type) -> String {
    guard let command else { return "" }
    var names: [String] = []
    func find(_ type: any ParsableCommand.Type, _ path: [String]) -> Bool {
        if ObjectIdentifier(type) == ObjectIdentifier(command) { names = path; return true }
        for sub in type.configuration.subcommands where find(sub, path + [sub._commandName]) { return true }
        return false
    }
    _ = find(root, [])
    return names.joined(separator: " ")
}

await runAsync(Receipts.self)
