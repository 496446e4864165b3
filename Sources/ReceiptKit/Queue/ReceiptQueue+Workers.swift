import Foundation
import Logging
import ServiceLifecycle

extension ReceiptQueue {
    private var pollInterval: Duration { .milliseconds(Int64(max(0.01, configuration.pollInterval) * 1000)) }

    /// How long an idle worker waits before looking again without being woken: the poll interval,
    /// or at least 5 s when the store announces other processes' changes (PostgreSQL's NOTIFY),
    /// where looking again is only a safety net.
    private var idleInterval: Duration {
        store.announcesChanges ? max(pollInterval, .seconds(5)) : pollInterval
    }

    /// Relays the store's announcements of other processes' changes to this process's waiters,
    /// until the task is cancelled (at once for a store that announces nothing).
    func relayStoreChanges() async {
        guard store.announcesChanges else { return }
        await store.watchChanges { [workAvailable, finished] change in
            switch change {
            case .workAvailable: workAvailable.notifyOne()  // one receipt, one worker; busy ones look anyway
            case .finished: finished.notifyAll()
            }
        }
    }

    private static func duration(until date: Date, cap: Duration) -> Duration {
        let seconds = max(0.005, date.timeIntervalSinceNow)
        return min(cap, .milliseconds(Int64(seconds * 1000)))
    }

    // MARK: Service mode: any pending receipt of the store

    /// Takes pending receipts until a graceful shutdown starts (then finishes the one in hand) or
    /// the task is cancelled (then the one in hand goes back to pending). Whoever starts the
    /// shutdown wakes idle workers with `workAvailable`.
    func serviceWorker(_ index: Int) async {
        let holder = identity.holder(worker: index)
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            let generation = workAvailable.generation
            do {
                if let job = try await store.claimNext(Lease(holder: holder, duration: leaseDuration)) {
                    _ = await process(job, holder: holder)
                    continue
                }
            } catch {
                logger.warning("Queue cannot claim receipts", metadata: ["error.message": "\(error)"])
                await workAvailable.wait(since: generation, timeout: pollInterval * 5)
                continue
            }
            var timeout = idleInterval
            if let due = try? await store.nextDueDate() { timeout = Self.duration(until: due, cap: idleInterval) }
            await workAvailable.wait(since: generation, timeout: timeout)
        }
    }

    /// Reclaims expired leases every half lease (at most every 30 s) until the task is cancelled.
    func reclaimLoop() async {
        let interval = Duration.milliseconds(Int64(min(30, max(0.02, leaseDuration / 2)) * 1000))
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            do { try await reclaim() } catch {
                logger.warning("Queue cannot reclaim receipts", metadata: ["error.message": "\(error)"])
            }
        }
    }

    // MARK: Batch mode: the receipts of one batch

    /// Works on the batch's receipts until all are completed or failed, reporting each as it finishes.
    func batchWorker(_ index: Int, tracker: BatchTracker,
                     emit: @escaping @Sendable (ReceiptOutcome) async -> Void) async throws {
        let holder = identity.holder(worker: index)
        while true {
            try Task.checkCancellation()
            let generation = tracker.changed.generation
            switch await tracker.next(now: Date()) {
            case .done:
                return
            case let .wait(until):
                let timeout = until.map { Self.duration(until: $0, cap: pollInterval) } ?? pollInterval
                await tracker.changed.wait(since: generation, timeout: timeout)
            case let .job(id):
                switch try await store.claim(id: id, Lease(holder: holder, duration: leaseDuration)) {
                case let .claimed(job):
                    switch await process(job, holder: holder) {
                    case let .completed(receipt, expense):
                        await report(receipt, expense: expense, tracker: tracker, emit: emit)
                    case let .failed(receipt):
                        await report(receipt, expense: nil, tracker: tracker, emit: emit)
                    case let .retry(_, at):
                        await tracker.postpone(id, until: at)
                    case .released:
                        try Task.checkCancellation()
                        await tracker.postpone(id, until: Date().addingTimeInterval(configuration.pollInterval))
                    }
                case let .finished(receipt):
                    let expense = try await store.expense(receiptId: receipt.id, in: .everyone)
                    await report(receipt, expense: expense, tracker: tracker, emit: emit)
                case let .notDue(_, until):
                    await tracker.postpone(id, until: until)
                case let .leased(_, until):
                    // Another worker (maybe another process) has it: look again soon, and once its
                    // lease has expired the reclaim loop hands it back.
                    let soon = Date().addingTimeInterval(configuration.pollInterval)
                    await tracker.postpone(id, until: min(until ?? soon, soon))
                case .notFound:
                    logger.debug("Receipt disappeared from the store", metadata: ["receipt.id": "\(id.uuidString.lowercased())"])
                    await tracker.vanished(id)
                }
            }
        }
    }

    private func report(_ receipt: Receipt, expense: Expense?, tracker: BatchTracker,
                        emit: @Sendable (ReceiptOutcome) async -> Void) async {
        for source in await tracker.finish(receipt.id) {
            await emit(ReceiptOutcome(source: source.name, receipt: receipt, expense: expense, isDuplicate: source.isDuplicate))
        }
    }
}
