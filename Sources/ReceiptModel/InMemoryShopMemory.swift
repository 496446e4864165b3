import Foundation
import Synchronization

/// One book's memory of shops held in memory: what `receipts eval --replay` teaches as it confirms
/// each receipt, and the reference the stores' tables follow (`ShopMemoryStore`): a lesson names
/// its shop by the person's name for it (a new name, a new shop), its keys point at that shop, and
/// forgetting a receipt takes back its lesson and keys.
public final class InMemoryShopMemory: ShopMemory, Sendable {
    private struct State {
        var shops: [UUID: (name: String, createdAt: Int)] = [:]
        /// Receipt → its lesson and the shop it taught.
        var lessons: [UUID: (lesson: ShopLesson, shop: UUID, order: Int)] = [:]
        var counter = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Teaches a confirmed receipt's lesson (replacing what the receipt taught before); returns the
    /// shop it taught.
    @discardableResult
    public func teach(_ lesson: ShopLesson) -> UUID {
        state.withLock { state in
            state.lessons[lesson.receiptId] = nil
            Self.dropEmptyShops(&state)
            let key = ShopLesson.nameKey(lesson.vendorName)
            let id = state.shops.first { ShopLesson.nameKey($0.value.name) == key }?.key ?? UUID()
            if state.shops[id] == nil {
                state.counter += 1
                state.shops[id] = (lesson.vendorName, state.counter)
            }
            state.counter += 1
            state.lessons[lesson.receiptId] = (lesson, id, state.counter)
            return id
        }
    }

    /// Takes back what a receipt taught.
    public func forget(receiptId: UUID) {
        state.withLock { state in
            state.lessons[receiptId] = nil
            Self.dropEmptyShops(&state)
        }
    }

    /// Renames a shop: its later receipts carry the new name.
    public func rename(_ id: UUID, to name: String) {
        state.withLock { state in state.shops[id]?.name = ShopLesson.cleaned(name) }
    }

    private static func dropEmptyShops(_ state: inout State) {
        let used = Set(state.lessons.values.map(\.shop))
        state.shops = state.shops.filter { used.contains($0.key) }
    }

    /// How many keys it remembers (a key taught by several receipts counts once per shop).
    public var keyCount: Int {
        state.withLock { state in Set(state.lessons.values.flatMap { entry in entry.lesson.keys.map { [$0.kind.rawValue, $0.value, entry.shop.uuidString] } }).count }
    }

    public func recall(_ keys: [ShopKey]) async throws -> ShopRecall {
        state.withLock { state in
            let wanted = Set(keys)
            var pairs: [(key: ShopKey, shop: UUID)] = []
            for entry in state.lessons.values {
                for key in entry.lesson.keys where wanted.contains(key) { pairs.append((key, entry.shop)) }
            }
            var shops: [UUID: RememberedShop] = [:]
            for id in Set(pairs.map(\.shop)) {
                let lessons = state.lessons.values.filter { $0.shop == id }.sorted { $0.order > $1.order }.map(\.lesson)
                shops[id] = RememberedShop.profile(id: id, name: state.shops[id]?.name ?? "", confirmations: lessons.count, lessons: lessons)
            }
            return ShopRecall(pairs: pairs, shops: shops)
        }
    }
}
