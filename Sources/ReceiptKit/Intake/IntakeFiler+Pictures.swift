import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Filing the pictures of one long receipt (`NAME-1.jpg`, `NAME-2.jpg`… joined by the watched
/// folder): one sidecar named for the receipt (`NAME.json` or `NAME.error.txt`, written first),
/// then each picture moved beside it under its own name (a suffix when the name is taken).
extension IntakeFiler {
    /// Files the pictures of one receipt named `stem`; returns where the first picture went (with
    /// `keep`, where the sidecar went).
    func file(pictures files: [WatchedFile], _ outcome: Outcome, stem: String) throws -> String {
        guard let first = files.first else { throw ReceiptError(.filingFailed, file: stem, "no picture to file") }
        let (base, sidecarSuffix): (String, String)
        switch outcome {
        case .processed: (base, sidecarSuffix) = (processedDirectory, ".json")
        case .failed: (base, sidecarSuffix) = (failedDirectory, ".error.txt")
        }
        let subfolder = (first.relativePath as NSString).deletingLastPathComponent
        let folder = subfolder.isEmpty ? base : base + "/" + subfolder
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ReceiptError(.outputFolder, file: folder, "cannot create the output folder; check permissions and free space",
                              cause: error.localizedDescription)
        }
        var suffix = 0
        var sidecar = folder + "/" + stem + sidecarSuffix
        while Self.exists(sidecar) {
            suffix += 1
            sidecar = folder + "/" + stem + " (\(suffix))" + sidecarSuffix
        }
        if keep {
            try Self.writeAtomically(Self.contents(outcome, filedAs: files.map(\.path)), to: sidecar)
            return sidecar
        }
        // Where each picture goes (its own name, or with a suffix when taken): the record names
        // them there. Written before the moves; written again should a name be taken meanwhile.
        var planned: [String] = []
        for file in files { planned.append(Self.freeName(for: file.path, in: folder, after: 0, besides: planned).target) }
        try Self.writeAtomically(Self.contents(outcome, filedAs: planned), to: sidecar)
        var filed: [String] = []
        for file in files {
            var attempt = 0
            while true {
                let (target, tried) = Self.freeName(for: file.path, in: folder, after: attempt, besides: filed)
                attempt = tried + 1
                switch Self.moveWithoutReplacing(file.path, to: target) {
                case .moved:
                    filed.append(target)
                case .targetExists:
                    continue
                case let .failed(cause):
                    throw ReceiptError(.filingFailed, file: file.path,
                                      "cannot move the file to \(folder); check permissions (its result is in \(sidecar))", cause: cause)
                }
                break
            }
            Self.syncFolder((file.path as NSString).deletingLastPathComponent)
        }
        if filed != planned { try Self.writeAtomically(Self.contents(outcome, filedAs: filed), to: sidecar) }
        Self.syncFolder(folder)
        return filed[0]
    }

    /// The first name from the `attempt`-th on (`a.jpg`, `a (1).jpg`, …) in `folder` that is free
    /// and not among `taken`, and its attempt's number.
    private static func freeName(for path: String, in folder: String, after attempt: Int, besides taken: [String]) -> (target: String, attempt: Int) {
        let name = (path as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension
        let fileStem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        var attempt = attempt
        while true {
            let candidate = attempt == 0 ? name : "\(fileStem) (\(attempt))" + (ext.isEmpty ? "" : "." + ext)
            let target = folder + "/" + candidate
            if !exists(target) && !taken.contains(target) { return (target, attempt) }
            attempt += 1
        }
    }
}
