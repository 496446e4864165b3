import ArgumentParser
import Foundation

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

/// Calls `AsyncParsableCommand.main()` (top-level code would pick the synchronous overload).
func runAsync<Command: AsyncParsableCommand>(_: Command.Type) async {
    await Command.main()
}

await runAsync(Receipts.self)
