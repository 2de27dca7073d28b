import Synchronization

/// The rows the Episodes view shows, remembered between frames and keys: the list is made again only
/// when the library, the filter or the podcast shown changes, and a filter that grows by a letter
/// searches only the rows the shorter one kept. Its answers are what ``TUIState/visibleIDs(_:in:)``
/// computes without it; it only saves the work.
public final class RowListCache: Sendable {
    struct Key: Equatable {
        var library: Int
        var podcast: Int64?
        var needle: String
        var order: EpisodeLibrary.Order
        var reversed: Bool
    }

    struct Entry {
        var key: Key
        var positions: [Int32]
        var ids: [Int64]
    }

    private let last = Mutex<Entry?>(nil)
    /// The last list narrowed to one state: the key of the list it came from, the filter, the states' version.
    private let narrowed = Mutex<(base: Key, filter: TUIState.StateFilter, version: Int, ids: [Int64])?>(nil)

    /// The ids of `base` whose state passes `filter`, remembered while the states do not change.
    func episodeIDs(
        _ library: EpisodeLibrary, podcast: Int64?, needle: String, order: EpisodeLibrary.Order, reversed: Bool,
        filter: TUIState.StateFilter, statesVersion: Int, passes: (Int64) -> Bool
    ) -> [Int64] {
        let base = episodeIDs(library, podcast: podcast, needle: needle, order: order, reversed: reversed)
        let key = Key(library: library.version, podcast: podcast, needle: needle, order: order, reversed: reversed)
        if let hit = narrowed.withLock({ $0 }), hit.base == key, hit.filter == filter, hit.version == statesVersion { return hit.ids }
        let ids = base.filter(passes)
        narrowed.withLock { $0 = (key, filter, statesVersion, ids) }
        return ids
    }

    public init() {}

    /// The ids the Episodes view shows, in order.
    func episodeIDs(
        _ library: EpisodeLibrary, podcast: Int64?, needle: String, order: EpisodeLibrary.Order = .date,
        reversed: Bool = false
    ) -> [Int64] {
        let key = Key(library: library.version, podcast: podcast, needle: needle, order: order, reversed: reversed)
        let previous = last.withLock { $0 }
        if let previous, previous.key == key { return previous.ids }
        var candidates: [Int32]?
        if let previous, previous.key.library == key.library, previous.key.podcast == key.podcast, previous.key.order == order,
            previous.key.reversed == reversed, !previous.key.needle.isEmpty,
            SearchFold.fold(needle).hasPrefix(SearchFold.fold(previous.key.needle))
        {
            candidates = previous.positions
        }
        // Candidates are already in this order, and filtering keeps it.
        var positions = library.positions(podcast: podcast, matching: needle, among: candidates)
        if candidates == nil, order != .date || reversed { positions = library.sorted(positions, by: order, reversed: reversed) }
        let ids = positions.map { library.id(at: Int($0)) }
        last.withLock { $0 = Entry(key: key, positions: positions, ids: ids) }
        return ids
    }
}
