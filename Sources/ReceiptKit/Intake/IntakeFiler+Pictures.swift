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
        let contents: Data
        switch outcome {
        case let .processed(json, _): (base, sidecarSuffix, contents) = (processedDirectory, ".json", Data((json.serialized() + "\n").utf8))
        case let .failed(message): (base, sidecarSuffix, contents) = (failedDirectory, ".error.txt", Data((message.oneLine + "\n").utf8))
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
        try Self.writeAtomically(contents, to: sidecar)
        if keep { return sidecar }
        var firstDestination = sidecar
        for (index, file) in files.enumerated() {
            let name = (file.path as NSString).lastPathComponent
            let ext = (name as NSString).pathExtension
            let fileStem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
            var attempt = 0
            while true {
                let candidate = attempt == 0 ? name : "\(fileStem) (\(attempt))" + (ext.isEmpty ? "" : "." + ext)
                let target = folder + "/" + candidate
                attempt += 1
                if Self.exists(target) { continue }
                switch Self.moveWithoutReplacing(file.path, to: target) {
                case .moved:
                    if index == 0 { firstDestination = target }
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
        Self.syncFolder(folder)
        return firstDestination
    }
}
