import Foundation
import ReceiptModel

/// Where receipts, their drafted expenses and the job queue's state live: `SQLiteReceiptStore` and
/// `PostgresReceiptStore` implement it.
///
/// Every read and change here takes a `Scope`: this is what a store implements, not what a request
/// holds. Requests and commands use `store.scoped(to: principal)` (`ScopedStore`), whose methods
/// take none; the queue's workers use `ReceiptQueueStore`.
public protocol ReceiptStore: ReceiptQueueStore, ReceiptPictureStore, ShopMemoryStore {
    /// The database, for messages (`/home/me/.local/share/receipts/receipts.sqlite`).
    var location: String { get }

    // MARK: Receipts and expenses

    // Every read and change of a receipt or an expense says whose it may touch (`Scope`); one
    // outside the scope is answered as if it did not exist (nil, `.notFound`).

    /// Stores a new receipt (normally `pending`) for `receipt.ownership`; `imagePath` is where its
    /// bytes are kept. With `deduplicate`, when a receipt of the same owner (and external user)
    /// has the same `contentHash`, nothing is stored and that receipt is returned (`isNew` false):
    /// the same bytes from two users are two receipts. The check and the insert are one
    /// transaction. Throws `.notFound` when the owner is not a user of the store, or the group
    /// not a group.
    func insert(_ receipt: Receipt, imagePath: String?, deduplicate: Bool) async throws -> (receipt: Receipt, isNew: Bool)
    func receipt(id: UUID, in scope: Scope) async throws -> Receipt?
    /// The receipt in `scope` whose id starts with `prefix` (case-insensitive, at least 4
    /// characters). Throws `ReceiptError` `.notFound` or `.ambiguousId`.
    func receipt(idPrefix prefix: String, in scope: Scope) async throws -> Receipt
    /// The oldest receipt in `scope` with these bytes, if any.
    func receipt(contentHash: String, in scope: Scope) async throws -> Receipt?
    /// Where the receipt's image bytes are kept, if they were stored.
    func imagePath(ofReceipt id: UUID, in scope: Scope) async throws -> String?
    /// A page of the receipts in `scope` that `query` selects, newest first (see `ReceiptQuery`).
    func receipts(_ query: ReceiptQuery, in scope: Scope) async throws -> [Receipt]
    func expense(id: UUID, in scope: Scope) async throws -> Expense?
    func expense(receiptId: UUID, in scope: Scope) async throws -> Expense?
    /// The expenses of these receipts (those in `scope` that have one), in one query: a page of
    /// receipts' records.
    func expenses(ofReceipts ids: [UUID], in scope: Scope) async throws -> [Expense]
    /// A page of the expenses in `scope` that `query` selects, by date (see `ExpenseQuery`).
    func expenses(_ query: ExpenseQuery, in scope: Scope) async throws -> [Expense]
    /// `expenses(_:in:)` with each expense's receipt file, owner and corrections: what the export prints.
    func expenseListings(_ query: ExpenseQuery, in scope: Scope) async throws -> [ExpenseListing]
    /// The totals of the expenses in `scope` that `query` selects (its paging aside), summed by the
    /// store per currency, category and month.
    func expenseTotals(_ query: ExpenseQuery, in scope: Scope) async throws -> ExpenseTotals
    /// Number of receipts in each state.
    func statusCounts(in scope: Scope) async throws -> [OCRStatus: Int]
    /// How many of the receipts in `scope` that `query` selects (its status, review flag and paging
    /// aside) are in each of the inbox's states, each counted up to `cap`.
    func inboxCounts(_ query: ReceiptQuery, in scope: Scope, cap: Int) async throws -> InboxCounts
    /// Of the expenses in `scope` a person confirmed: how many, and per field how many had it
    /// corrected (a field in their `corrections`).
    func correctionCounts(in scope: Scope) async throws -> (confirmed: Int, changed: [String: Int])
    /// How many receipts each group shares, by group name.
    func groupReceiptCounts() async throws -> [String: Int]

    // MARK: A person's review

    /// Deletes the receipt, its drafted expense and its idempotency keys; returns the path of its
    /// image copy when no other receipt uses it (the caller removes the file). `.notFound` when
    /// unknown in `scope`; `.invalidState` when its expense is confirmed (a person's record) and
    /// not `force`.
    func deleteReceipt(id: UUID, in scope: Scope, force: Bool) async throws -> String?
    /// Saves a person's changes to an expense in `scope`: `expense` as corrected, and per changed
    /// field what the analyzer had drafted (kept from the first correction on); `author` and the
    /// fields go into its history (and `confirmedBy` when it becomes confirmed). Returns the
    /// corrections. With `expectedVersion`, only when the stored expense's `etag` is still that
    /// one (checked in the same transaction), else `.preconditionFailed`.
    func correct(_ expense: Expense, changed: [(field: String, drafted: JSONValue)], by author: ChangeAuthor, in scope: Scope,
                 now: Date, expectedVersion: String?) async throws -> JSONValue
    /// The corrections of an expense in `scope` (an empty object when none).
    func corrections(ofExpense id: UUID, in scope: Scope) async throws -> JSONValue
    /// Who changed the expense and when, oldest first.
    func history(ofExpense id: UUID, in scope: Scope) async throws -> [ExpenseChange]

    // MARK: Putting failed receipts back

    /// Puts a failed receipt in `scope` back to `pending` with its attempts reset. Throws
    /// `.invalidState` for a receipt that is not failed, `.notFound` for one not in `scope`.
    func requeue(id: UUID, in scope: Scope, now: Date) async throws -> Receipt
    /// Puts every failed receipt in `scope` back to `pending`.
    func requeueFailed(in scope: Scope, now: Date) async throws -> [Receipt]
}

/// The job queue's side of a store: the workers' steps. Every state change is one atomic step: a
/// worker claims a pending receipt (processing, with a lease), then completes it (completed +
/// analysis + drafted expense in one transaction) or fails it. These take no scope: they are
/// reached only through `ReceiptPipeline`'s workers (and the command line's store commands),
/// never from what the HTTP handlers or a library's user hold.
public protocol ReceiptQueueStore: ChangeAnnouncing {
    /// The database, for messages (`/home/me/.local/share/receipts/receipts.sqlite`).
    var location: String { get }

    /// Atomically takes the oldest due pending receipt: `processing`, `attempts + 1`, leased to
    /// `lease.holder` until `lease.expiresAt`.
    func claimNext(_ lease: Lease) async throws -> ClaimedJob?
    /// Atomically takes this receipt if it is pending and due; otherwise says where it is.
    func claim(id: UUID, _ lease: Lease) async throws -> ClaimAttempt
    /// Extends a lease this holder has. False when the lease was lost (reclaimed by others).
    func renew(id: UUID, _ lease: Lease) async throws -> Bool
    /// Completes a receipt this holder has leased: `completed`, the analysis, the OCR text and the drafted
    /// expense, in one transaction. The expense is flagged `possibleDuplicateOf` an existing expense
    /// with the same vendor, date and total. Nil when the lease was lost (nothing is written).
    func complete(id: UUID, holder: String, work: CompletedWork, now: Date) async throws -> (Receipt, Expense)?
    /// Records a failure of a receipt this holder has leased: back to `pending` until `retryAt` when it is
    /// given, else `failed`. Nil when the lease was lost.
    func fail(id: UUID, holder: String, error: String, retryAt: Date?, now: Date) async throws -> Receipt?
    /// Hands a receipt back to `pending` without counting the attempt (graceful shutdown).
    func release(id: UUID, holder: String, now: Date) async throws
    /// Returns abandoned `processing` receipts to `pending` — those whose lease expired before
    /// `now` or whose owner `isAbandoned` says is gone — or fails them when they already had
    /// `maxAttempts` attempts. Returns the receipts changed.
    func reclaim(now: Date, maxAttempts: Int, isAbandoned: @escaping @Sendable (String) -> Bool) async throws -> [Receipt]
    /// The earliest time a pending receipt becomes due (nil: none is waiting for a retry time).
    func nextDueDate() async throws -> Date?

    /// Receipts of everyone pending or being read (the queue's length).
    func waitingCount() async throws -> Int
}

/// A store that may tell of other processes' changes (PostgreSQL's `LISTEN`): the queue's workers
/// and the webhook sender wake on them.
public protocol ChangeAnnouncing: Sendable {
    /// Whether `watchChanges` reports other processes' changes (then the queue's poll is only a
    /// slow safety net). False for SQLite: there, other processes' changes are seen by polling.
    var announcesChanges: Bool { get }
    /// Calls `onChange` when any process submits, returns or finishes a receipt, until the task is
    /// cancelled. Returns at once when the store cannot announce changes.
    func watchChanges(_ onChange: @escaping @Sendable (StoreChange) -> Void) async
}

/// What another process did to the queue.
public enum StoreChange: Sendable, Equatable {
    /// A receipt became pending (submitted, returned, put back for a retry).
    case workAvailable
    /// A receipt reached completed or failed.
    case finished
}

extension ChangeAnnouncing {
    public var announcesChanges: Bool { false }
    public func watchChanges(_ onChange: @escaping @Sendable (StoreChange) -> Void) async {}
}

/// A worker's hold on a receipt (or a webhook sender's on an event). Its `holder` is a process,
/// never a person: a receipt's owner is a user (`Ownership.owner`).
public struct Lease: Sendable, Equatable {
    /// Names the worker: `host:pid:instance` (see `WorkerIdentity`).
    public var holder: String
    public var now: Date
    public var expiresAt: Date

    public init(holder: String, now: Date = Date(), duration: TimeInterval) {
        self.holder = holder
        self.now = now
        self.expiresAt = now.addingTimeInterval(duration)
    }
}

/// A receipt a worker holds, with where its bytes are.
public struct ClaimedJob: Sendable {
    public var receipt: Receipt
    /// The stored copy of the image (or nil: read `receipt.filePath`).
    public var imagePath: String?

    public init(receipt: Receipt, imagePath: String?) {
        self.receipt = receipt
        self.imagePath = imagePath
    }
}

public enum ClaimAttempt: Sendable {
    case claimed(ClaimedJob)
    /// Completed or failed already.
    case finished(Receipt)
    /// Pending but not due before this time (a retry's backoff).
    case notDue(Receipt, until: Date)
    /// Processing, leased to someone until this time.
    case leased(Receipt, until: Date?)
    case notFound
}

/// What a worker produced for one receipt.
public struct CompletedWork: Sendable {
    public var analysis: ReceiptAnalysis
    public var ocrText: String
    /// The drafted expense (its `possibleDuplicateOf` is set by the store).
    public var expense: Expense

    public init(analysis: ReceiptAnalysis, ocrText: String, expense: Expense) {
        self.analysis = analysis
        self.ocrText = ocrText
        self.expense = expense
    }
}

/// Which receipts to list. Newest first (by when they were stored), a page at a time: `limit`
/// receipts after the receipt `after` (the last of the page before). The store answers it with its
/// indexes, whatever the number of receipts.
public struct ReceiptQuery: Sendable {
    public var status: OCRStatus?
    /// Only the receipts uploaded for this end user of a backend.
    public var externalUser: String?
    /// Only this user's receipts (of those the scope may see).
    public var owner: String?
    /// Only the receipts whose expense is flagged for review (true), or the others (false: no
    /// expense yet, or one not flagged).
    public var needsReview: Bool?
    /// Submitted at or after / before.
    public var submittedFrom: Date?
    public var submittedBefore: Date?
    /// The receipts after this one in the listing's order. `.notFound` when it is not in the listing
    /// (deleted, not in the scope, or not matching the filters).
    public var after: UUID?
    public var limit: Int?

    public init(status: OCRStatus? = nil, externalUser: String? = nil, owner: String? = nil, needsReview: Bool? = nil,
                submittedFrom: Date? = nil, submittedBefore: Date? = nil, after: UUID? = nil, limit: Int? = nil) {
        self.status = status
        self.externalUser = externalUser
        self.owner = owner
        self.needsReview = needsReview
        self.submittedFrom = submittedFrom
        self.submittedBefore = submittedBefore
        self.after = after
        self.limit = limit
    }
}

/// Which expenses to list. Ordered by date (those without one last), then by when they last
/// changed; a page at a time as `ReceiptQuery` (`after`: an expense's id).
public struct ExpenseQuery: Sendable {
    /// Receipt dates from and to, both inclusive.
    public var from: CalendarDate?
    public var to: CalendarDate?
    /// Category name, case-insensitive.
    public var category: String?
    public var status: ExpenseStatus?
    public var needsReview: Bool?
    /// Only the expenses of receipts uploaded for this end user of a backend.
    public var externalUser: String?
    /// The expenses after this one in the listing's order (`.notFound` when it is not in it).
    public var after: UUID?
    public var limit: Int?

    public init(from: CalendarDate? = nil, to: CalendarDate? = nil, category: String? = nil,
                status: ExpenseStatus? = nil, needsReview: Bool? = nil, externalUser: String? = nil, after: UUID? = nil,
                limit: Int? = nil) {
        self.externalUser = externalUser
        self.from = from
        self.to = to
        self.category = category
        self.status = status
        self.needsReview = needsReview
        self.after = after
        self.limit = limit
    }
}

/// An expense as the export lists it: with its receipt's file, its owner and its corrections.
public struct ExpenseListing: Sendable {
    public var expense: Expense
    public var receiptFile: String
    public var owner: String
    /// What the analyzer had drafted for each field a person corrected (an empty object when none).
    public var corrections: JSONValue

    public init(expense: Expense, receiptFile: String, owner: String, corrections: JSONValue) {
        self.expense = expense
        self.receiptFile = receiptFile
        self.owner = owner
        self.corrections = corrections
    }
}

/// Expense totals, summed by the store: one row per currency, category and month (exact sums).
/// Expenses without an amount, and draft expenses flagged as a possible duplicate of another
/// (the same purchase twice until a person says otherwise), are not in them.
public struct ExpenseTotals: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        public var currency: String?
        public var category: String
        /// `YYYY-MM`; nil for expenses without a date.
        public var month: String?
        public var count: Int
        public var total: Decimal

        public init(currency: String?, category: String, month: String?, count: Int, total: Decimal) {
            self.currency = currency
            self.category = category
            self.month = month
            self.count = count
            self.total = total
        }
    }

    public var rows: [Row]
    /// Draft expenses left out as possible duplicates.
    public var possibleDuplicates: Int

    public init(rows: [Row], possibleDuplicates: Int) {
        self.rows = rows
        self.possibleDuplicates = possibleDuplicates
    }
}

/// How many receipts are in each of the inbox's states: flagged for review, failed, being read
/// (pending or processing), done (completed, not flagged, not confirmed), confirmed. Each is
/// counted up to `cap` (a count of `cap` means at least that many): an inbox says "10,000+".
public struct InboxCounts: Sendable, Equatable {
    public var review: Int
    public var failed: Int
    public var reading: Int
    public var done: Int
    public var confirmed: Int
    public var cap: Int

    public init(review: Int, failed: Int, reading: Int, done: Int, confirmed: Int, cap: Int) {
        self.review = review
        self.failed = failed
        self.reading = reading
        self.done = done
        self.confirmed = confirmed
        self.cap = cap
    }

    /// `{"review": 3, …, "cap": 10000}` in the inbox's order (a count equal to `cap`: at least that many).
    public var json: JSONValue {
        .object([("review", .int(review)), ("failed", .int(failed)), ("reading", .int(reading)), ("done", .int(done)),
                 ("confirmed", .int(confirmed)), ("cap", .int(cap))])
    }
}
