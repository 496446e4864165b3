// `make fuzz`: one libFuzzer executable for every fuzz target, chosen at run time by FUZZ_TARGET
// (see Targets.swift and docs/hardening.md). Built only with RECEIPTS_FUZZ=1 (see the end of
// Package.swift), with AddressSanitizer and libFuzzer's coverage on the package's own modules.
//
// libFuzzer's driver is started from here (LLVMFuzzerRunDriver) rather than by its own `main`,
// because SwiftPM renames an executable's `main`; LLVMFuzzerTestOneInput is defined as well, for
// a link that takes libFuzzer's `main` after all (everything is set up lazily, in `FuzzTarget`).
import Foundation

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : [UInt8](UnsafeBufferPointer(start: data, count: size))
    FuzzTarget.selected.run(bytes)
    return 0
}

if CommandLine.arguments.dropFirst().first == "--list" {
    print(FuzzTarget.all.map(\.name).joined(separator: "\n"))
    exit(0)
}
_ = FuzzTarget.selected
var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
