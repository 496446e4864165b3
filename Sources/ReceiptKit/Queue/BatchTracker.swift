import Foundation

/// The receipts of one batch that are not finished yet, and when each may next be tried.
///
/// Batch workers take receipts from here (not any pending receipt of the store), so a batch ends
/// when its own receipts are completed or failed. The same receipt may appear under several
/// sources (the same bytes given twice).
actor BatchTracker {
    struct Source: Sendable {
        var name: String
        /// The bytes were known before this batch submitted them.
        var isDuplicate: Bool
    }

    enum Next: Sendable {
        case job(UUID)
        /// Nothing is due; wait for a change or until this time (nil: until a change).
        case wait(until: Date?)
        case done
    }

    private struct Entry {
        var sources: [Source]
        var dueAt: Date?
        var inFlight = false
    }

    private var entries: [UUID: Entry] = [:]
    private var order: [UUID] = []
    private var submissionsOpen = true
    /// Notified whenever something changes that a waiting worker may care about.
    nonisolated let changed = WakeSignal()

    func add(_ id: UUID, source: Source) {
        if entries[id] != nil {
            entries[id]!.sources.append(source)
        } else {
            entries[id] = Entry(sources: [source])
            order.append(id)
        }
        changed.notifyAll()
    }

    func closeSubmissions() {
        submissionsOpen = false
        changed.notifyAll()
    }

    func next(now: Date) -> Next {
        var earliest: Date?
        for id in order {
            guard let entry = entries[id], !entry.inFlight else { continue }
            if let due = entry.dueAt, due > now {
                earliest = min(earliest ?? due, due)
                continue
            }
            entries[id]!.inFlight = true
            return .job(id)
        }
        if entries.isEmpty && !submissionsOpen { return .done }
        return .wait(until: earliest)
    }

    /// Try this receipt again at `date`.
    func postpone(_ id: UUID, until date: Date) {
        entries[id]?.inFlight = false
        entries[id]?.dueAt = date
        changed.notifyAll()
    }

    /// The receipt is completed or failed: returns the sources to report it under.
    func finish(_ id: UUID) -> [Source] {
        let sources = entries.removeValue(forKey: id)?.sources ?? []
        order.removeAll { $0 == id }
        changed.notifyAll()
        return sources
    }
}
