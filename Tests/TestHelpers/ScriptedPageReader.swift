import Foundation
import ReceiptModel
import Synchronization

/// A `PageReader` whose further passes a test scripts: `read` calls `answer` while the budget lasts.
final class ScriptedPageReader: PageReader {
    private let answer: @Sendable (OCRPass) async throws -> OCRResult?
    private let dictionary: (@Sendable ([String]) async throws -> Set<String>)?
    private let maxPasses: Int
    private let counts = Mutex((taken: 1, read: 1))

    /// - Parameter maxPasses: passes in all, the first (already read) included.
    init(maxPasses: Int = 100, dictionary: (@Sendable ([String]) async throws -> Set<String>)? = nil,
         _ answer: @escaping @Sendable (OCRPass) async throws -> OCRResult?) {
        self.answer = answer
        self.dictionary = dictionary
        self.maxPasses = maxPasses
    }

    var passesLeft: Int { counts.withLock { maxPasses - $0.taken } }
    var passesRead: Int { counts.withLock { $0.read } }

    func read(_ pass: OCRPass) async throws -> OCRResult? {
        let allowed = counts.withLock { c in
            guard c.taken < maxPasses else { return false }
            c.taken += 1
            return true
        }
        guard allowed, let result = try await answer(pass) else { return nil }
        counts.withLock { $0.read += 1 }
        return result
    }

    func dictionaryWords(among words: [String]) async throws -> Set<String> {
        try await dictionary?(words) ?? []
    }
}
