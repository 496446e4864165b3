// Why sanitizers/tsan.supp suppresses races inside `Synchronization.Mutex.withLock` (Swift 6.3.1,
// Linux): four threads append under one Mutex and ThreadSanitizer reports "Swift access race" and
// "data race" on the array, though every access holds the lock. The same program with NSLock
// reports nothing. Run: swiftc -sanitize=thread -O sanitizers/tsan-mutex-case.swift -o /tmp/m && /tmp/m
// (The stdlib's Mutex locks through atomics and futexes in code ThreadSanitizer does not
// instrument, so it sees no acquire or release.) Not built with the package.
import Foundation
import Synchronization

final class Box: Sendable {
    let state = Mutex<[Int]>([])
}
let box = Box()
let group = DispatchGroup()
for t in 0..<4 {
    group.enter()
    Thread {
        for i in 0..<2000 { box.state.withLock { $0.append(i + t); if $0.count > 100 { $0.removeFirst(50) } } }
        group.leave()
    }.start()
}
group.wait()
print("count", box.state.withLock { $0.count })
