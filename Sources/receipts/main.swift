import ArgumentParser
import Foundation
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

// Usage errors exit with 2 (ArgumentParser's own code for them is 64).
do {
    _ = try Receipts.parseAsRoot()
} catch where Receipts.exitCode(for: error) == .validationFailure {
    FileHandle.standardError.write(Data((Receipts.fullMessage(for: error) + "\n").utf8))
    exit(2)
} catch {}

/// `AsyncParsableCommand.main()` (top-level code would pick the synchronous overload), which
/// exits only after any neural network this process began to compile is compiled: the networks
/// compile in the background while the first receipt is read, and exiting under a compilation
/// crashes OpenVINO (`NeuralModels.waitForCompilations`).
func runAsync<Command: AsyncParsableCommand>(_: Command.Type) async {
    do {
        var command = try Command.parseAsRoot()
        if var command = command as? any AsyncParsableCommand {
            try await command.run()
        } else {
            try command.run()
        }
        NeuralModels.waitForCompilations()
    } catch {
        NeuralModels.waitForCompilations()
        Command.exit(withError: error)
    }
}

await runAsync(Receipts.self)
