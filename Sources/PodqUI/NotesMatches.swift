/// The episodes whose show notes match a search: what the store's full-text index (SQLite FTS5)
/// answered for `needle`, read in the background while the search is typed. The Episodes view's
/// search matches a row whose title or podcast contains the text, or whose id is here.
public struct NotesMatches: Sendable, Equatable {
    /// The search these are the matches of (a result for an older text is not used).
    public var needle: String
    /// The episodes' ids, ascending.
    public private(set) var ids: [Int64]
    /// False while the store is still indexing the notes of episodes stored before its index: more
    /// may match later.
    public var isComplete: Bool

    public init(needle: String, ids: [Int64], isComplete: Bool = true) {
        self.needle = needle
        self.ids = ids.sorted()
        self.isComplete = isComplete
    }

    /// True when episode `id` is one of them (a binary search: this runs for each row a search passes).
    public func contains(_ id: Int64) -> Bool {
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < ids.count && ids[low] == id
    }
}
