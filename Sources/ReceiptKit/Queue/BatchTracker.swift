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
    /// Receipts of candidate pictures (`BatchItem.candidates`) not yet known to be one receipt or
    /// split apart: their paths. The batch is not done while any is left (a split adds receipts).
    private var candidates: [UUID: [String]] = [:]
    /// Notified whenever something changes that a waiting worker may care about.
    nonisolated let changed = WakeSignal()

    /// A receipt of candidate pictures (`paths`) to be resolved once finished (`resolve`).
    func add(candidate id: UUID, paths: [String], source: Source) {
        candidates[id] = paths
        add(id, source: source)
    }

    /// The paths of a receipt of candidate pictures not resolved yet, taken out (nil for another
    /// receipt): the caller resolves it and then calls `resolved`.
    func takeCandidate(_ id: UUID) -> [String]? {
        guard let paths = candidates[id], !paths.isEmpty else { return nil }
        candidates[id] = []
        return paths
    }

    /// The candidate receipt is resolved (reported, or split with its parts added).
    func resolved(_ id: UUID) {
        candidates[id] = nil
        changed.notifyAll()
    }

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
        if entries.isEmpty && !submissionsOpen && candidates.isEmpty { return .done }
        return .wait(until: earliest)
    }

    /// Try this receipt again at `date`.
    func postpone(_ id: UUID, until date: Date) {
        entries[id]?.inFlight = false
        entries[id]?.dueAt = date
        changed.notifyAll()
    }

    /// The receipt is gone from the store: nothing to report or resolve.
    func vanished(_ id: UUID) {
        _ = finish(id)
        candidates[id] = nil
    }

    /// The receipt is completed or failed: returns the sources to report it under.
    func finish(_ id: UUID) -> [Source] {
        let sources = entries.removeValue(forKey: id)?.sources ?? []
        order.removeAll { $0 == id }
        changed.notifyAll()
        return sources
    }
}
