#if os(Linux)
import Foundation
import Glibc

/// Owns one inotify instance (a non-blocking file descriptor) and the folders it watches.
/// Not thread-safe: used only by the watcher's own thread.
final class InotifyHandle {
    /// One change inotify reported.
    struct Event {
        /// The folder watched plus the name reported (the folder itself when there is no name).
        var path: String
        var mask: UInt32

        var isFolder: Bool { mask & UInt32(IN_ISDIR) != 0 }
        var isOverflow: Bool { mask & UInt32(IN_Q_OVERFLOW) != 0 }
        var isGone: Bool { mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 }
        var isArrival: Bool { mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 }
    }

    let fd: Int32
    private var folders: [Int32: String] = [:]
    private var descriptors: [String: Int32] = [:]
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// What is asked of every watched folder: files written, closed, moved in or out, created or
    /// deleted, and changes to their times (`touch`, a copy that sets mtime last).
    private static let mask = UInt32(IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE
                                     | IN_ATTRIB | IN_DELETE_SELF | IN_ONLYDIR)

    init() throws {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            throw ReceiptError(.watchFailed, file: "inotify", "cannot start inotify; raise fs.inotify.max_user_instances",
                              cause: String(cString: strerror(errno)), hint: .poll)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    var watchedFolders: Int { descriptors.count }

    func isWatching(_ folder: String) -> Bool { descriptors[folder] != nil }

    /// Watches `folder` (not its subfolders). Returns the error text when the system refuses
    /// (ENOSPC: fs.inotify.max_user_watches reached).
    func watch(_ folder: String) -> String? {
        if descriptors[folder] != nil { return nil }
        let wd = inotify_add_watch(fd, folder, Self.mask)
        guard wd >= 0 else { return String(cString: strerror(errno)) }
        if let old = folders[wd], old != folder { descriptors[old] = nil }
        folders[wd] = folder
        descriptors[folder] = wd
        return nil
    }

    /// Stops watching `folder` and every folder below it (it was deleted or moved away).
    func unwatch(below folder: String) {
        let prefix = folder + "/"
        for (path, wd) in descriptors where path == folder || path.hasPrefix(prefix) {
            inotify_rm_watch(fd, wd)
            descriptors[path] = nil
            folders[wd] = nil
        }
    }

    /// Reads every event waiting (never blocks).
    func readEvents() -> [Event] {
        var events: [Event] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = raw[(offset + header)..<min(count, offset + header + length)]
                    let name = String(decoding: nameBytes.prefix(while: { $0 != 0 }), as: UTF8.self)
                    offset += header + length
                    if mask & UInt32(IN_IGNORED) != 0 {
                        if let folder = folders.removeValue(forKey: wd), descriptors[folder] == wd { descriptors[folder] = nil }
                        continue
                    }
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        events.append(Event(path: "", mask: mask))
                        continue
                    }
                    guard let folder = folders[wd] else { continue }
                    events.append(Event(path: name.isEmpty ? folder : folder + "/" + name, mask: mask))
                }
            }
        }
        return events
    }
}

@available(*, unavailable) extension InotifyHandle: Sendable {}
#endif
