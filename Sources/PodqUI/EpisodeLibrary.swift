import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import Synchronization

/// Every episode the Episodes view can show, built once off the render path and never changed after:
/// one array per field and the titles in one UTF-8 buffer (a title with capitals or accents beyond
/// ASCII followed by its ``SearchFold`` copy), so a library of 100,000 episodes costs a few megabytes and a
/// filter letter is one scan of contiguous bytes. A frame turns only the rows on screen into ``EpisodeRow``s.
public final class EpisodeLibrary: Sendable {
    /// One episode as a reader hands it over (cleaned of control characters by the reader).
    public struct Entry: Sendable, Equatable {
        public var id: Int64
        public var podcastId: Int64
        public var title: String
        public var published: Double?
        public var duration: Int?
        public var length: Int64?
        /// Marked played by the user.
        public var played: Bool
        /// Where the listening stopped, in seconds (here or, through sync, on another device).
        public var position: Int?

        public init(
            id: Int64, podcastId: Int64, title: String, published: Double?, duration: Int?, length: Int64?, played: Bool = false, position: Int? = nil
        ) {
            self.played = played
            self.position = position
            self.id = id
            self.podcastId = podcastId
            self.title = title
            self.published = published
            self.duration = duration
            self.length = length
        }
    }

    /// Distinguishes libraries, for the caches keyed by one.
    public let version: Int
    /// The subscriptions, in the Podcasts view's order.
    public let podcasts: [PodcastRow]
    // One array per field (an episode is ~40 bytes plus its title): optional numbers use a sentinel
    // (NaN, -1). `text` holds episode p's bytes at starts[p]..<starts[p + 1]: its title, then, when
    // folding changes more than ASCII letters ("Ärger"), its ``SearchFold`` copy from folds[p] on.
    // Any other title is its own search key, folded a byte at a time as it is compared (``fold``):
    // a second copy of every title cost 4.7 MB at 100,000 episodes.
    private let ids: [Int64]
    private let podcastIds: [Int64]
    private let published: [Double]
    private let durations: [Int32]
    private let lengths: [Int64]
    private let played: [Bool]
    /// Seconds heard; -1 for none.
    private let positions: [Int32]
    private let starts: [UInt32]
    private let folds: [UInt32]
    private let text: [UInt8]
    /// The ids in ascending order with their positions: a binary search finds a row (a dictionary
    /// of 100,000 ids costs several times the memory).
    private let sortedIDs: [Int64]
    private let sortedPositions: [Int32]
    /// Each episode's place in the A-to-Z order of titles, worked out once here (off the render path):
    /// sorting by title is then a sort of integers (comparing the titles a byte at a time took a
    /// turn of the loop up to 46 ms at 100,000 episodes).
    private let titleRanks: [Int32]
    private let podcastTitles: [Int64: String]
    private let foldedPodcastTitles: [Int64: [UInt8]]
    private let episodeCounts: [Int64: Int]
    private let playedCounts: [Int64: Int]

    private static let versions = Atomic<Int>(0)

    /// - Parameters:
    ///   - podcasts: the subscriptions, in display order.
    ///   - entries: the episodes, in display order (newest first).
    ///   - podcastTitles: titles of podcasts not in `podcasts` (tests); the rows' titles win.
    public convenience init(podcasts: [PodcastRow] = [], entries: [Entry] = [], podcastTitles: [Int64: String] = [:]) {
        var builder = Builder(capacity: entries.count, titleBytes: entries.reduce(0) { $0 + $1.title.utf8.count })
        for entry in entries { builder.append(entry) }
        self.init(builder, podcasts: podcasts, podcastTitles: podcastTitles)
    }

    /// Collects the episodes one at a time, in display order, straight into the library's arrays: a
    /// reader that streams its rows never holds them all twice (reading 100,000 into an array of
    /// entries first peaked at 38 MB of heap).
    public struct Builder: Sendable {
        var ids: [Int64] = [], podcastIds: [Int64] = [], published: [Double] = [], durations: [Int32] = [], lengths: [Int64] = []
        var starts: [UInt32] = [], folds: [UInt32] = [], text: [UInt8] = []
        var counts: [Int64: Int] = [:]
        var playedCounts: [Int64: Int] = [:]
        var played: [Bool] = []
        var positions: [Int32] = []

        /// Room for `capacity` episodes whose titles take `titleBytes` of UTF-8 (a tenth more for the
        /// folded copies of titles beyond ASCII; past that the titles' buffer grows as they come).
        public init(capacity: Int, titleBytes: Int = 0) {
            played.reserveCapacity(capacity)
            positions.reserveCapacity(capacity)
            ids.reserveCapacity(capacity)
            podcastIds.reserveCapacity(capacity)
            published.reserveCapacity(capacity)
            durations.reserveCapacity(capacity)
            lengths.reserveCapacity(capacity)
            starts.reserveCapacity(capacity + 1)
            folds.reserveCapacity(capacity)
            text.reserveCapacity(titleBytes + titleBytes / 10 + 4096)
        }

        /// The number of episodes appended.
        public var count: Int { ids.count }

        /// Adds the next episode.
        public mutating func append(_ entry: Entry) {
            ids.append(entry.id)
            podcastIds.append(entry.podcastId)
            published.append(entry.published ?? .nan)
            durations.append(entry.duration.map { Int32(clamping: $0) } ?? -1)
            lengths.append(entry.length ?? -1)
            starts.append(UInt32(text.count))
            text.append(contentsOf: entry.title.utf8)
            let lowered = entry.title.utf8.allSatisfy({ $0 < 0x80 }) ? nil : SearchFold.fold(entry.title)
            if let lowered, !lowered.utf8.elementsEqual(entry.title.utf8) {
                folds.append(UInt32(text.count))
                text.append(contentsOf: lowered.utf8)
            } else {
                // ASCII, or folded already (Chinese, Japanese): the title is its own key.
                folds.append(starts[starts.count - 1])
            }
            counts[entry.podcastId, default: 0] += 1
            played.append(entry.played)
            positions.append(entry.position.map { Int32(clamping: $0) } ?? -1)
            if entry.played { playedCounts[entry.podcastId, default: 0] += 1 }
        }
    }

    /// The library of what `builder` collected.
    public init(_ builder: consuming Builder, podcasts: [PodcastRow] = [], podcastTitles: [Int64: String] = [:]) {
        version = Self.versions.add(1, ordering: .relaxed).newValue
        self.podcasts = podcasts
        var builder = builder
        builder.starts.append(UInt32(builder.text.count))
        let n = builder.ids.count
        let ids = builder.ids
        let order = ids.indices.sorted { ids[$0] < ids[$1] }
        sortedIDs = order.map { ids[$0] }
        sortedPositions = order.map { Int32($0) }
        let names = podcastTitles.merging(podcasts.map { ($0.id, $0.title) }, uniquingKeysWith: { _, row in row })
        self.ids = ids
        self.podcastIds = builder.podcastIds
        self.published = builder.published
        self.durations = builder.durations
        self.lengths = builder.lengths
        self.starts = builder.starts
        self.folds = builder.folds
        // The titles' guessed room, when it was far too much, given back (a copy of exactly their size).
        self.text =
            builder.text.capacity > builder.text.count + builder.text.count / 4 + 4096
            ? builder.text.withUnsafeBufferPointer { Array($0) } : builder.text
        self.podcastTitles = names
        self.foldedPodcastTitles = names.mapValues { Array(SearchFold.fold($0).utf8) }
        self.episodeCounts = builder.counts
        self.playedCounts = builder.playedCounts
        self.played = builder.played
        self.positions = builder.positions
        var ranks = [Int32](repeating: 0, count: n)
        for (rank, position) in Self.titleOrder(count: n, starts: starts, folds: folds, text: text).enumerated() {
            ranks[Int(position)] = Int32(rank)
        }
        titleRanks = ranks
    }

    /// The positions of `count` episodes in the A-to-Z order of their titles (case-folded bytes; ties
    /// by position).
    private static func titleOrder(count: Int, starts: [UInt32], folds: [UInt32], text: [UInt8]) -> [Int32] {
        text.withUnsafeBufferPointer { keys in
            (0..<Int32(count)).sorted { a, b in
                let ra = Int(folds[Int(a)])..<Int(starts[Int(a) + 1]), rb = Int(folds[Int(b)])..<Int(starts[Int(b) + 1])
                let common = min(ra.count, rb.count)
                var i = 0
                while i < common {
                    let x = fold(keys[ra.lowerBound + i]), y = fold(keys[rb.lowerBound + i])
                    if x != y { return x < y }
                    i += 1
                }
                return ra.count != rb.count ? ra.count < rb.count : a < b
            }
        }
    }

    /// A byte of a search key as compared: ASCII capitals lower-cased, every other byte as it is (the
    /// stored copy of a title that is not ASCII is folded already, so folding it again changes
    /// nothing).
    @inline(__always)
    private static func fold(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

    /// The bytes of episode `p`'s title in `text`.
    private func titleRange(_ p: Int) -> Range<Int> {
        Int(starts[p])..<(folds[p] == starts[p] ? Int(starts[p + 1]) : Int(folds[p]))
    }

    /// The bytes of episode `p`'s search key in `text` (compared through ``fold``).
    private func keyRange(_ p: Int) -> Range<Int> { Int(folds[p])..<Int(starts[p + 1]) }

    /// The number of episodes.
    public var count: Int { ids.count }

    /// The number of episodes of `podcast`.
    public func episodeCount(of podcast: Int64) -> Int { episodeCounts[podcast] ?? 0 }

    /// The number of episodes of `podcast` marked played.
    public func playedCount(of podcast: Int64) -> Int { playedCounts[podcast] ?? 0 }

    /// True when the episode at `position` was marked played (as of this library's read).
    public func isPlayed(at position: Int) -> Bool { played[position] }

    /// The id of the episode at `position`.
    public func id(at position: Int) -> Int64 { ids[position] }

    /// The position of episode `id`, or nil.
    public func position(of id: Int64) -> Int? {
        var low = 0, high = sortedIDs.count
        while low < high {
            let mid = (low + high) / 2
            if sortedIDs[mid] < id { low = mid + 1 } else { high = mid }
        }
        return low < sortedIDs.count && sortedIDs[low] == id ? Int(sortedPositions[low]) : nil
    }

    /// The podcast of the episode `id`.
    public func podcastId(of id: Int64) -> Int64? { position(of: id).map { podcastIds[$0] } }

    /// The row the Episodes view shows for the episode at `position`, in `state`.
    public func row(at position: Int, state: EpisodeState) -> EpisodeRow {
        let bytes = text[titleRange(position)]
        // Cleaned when stored; cleaned again here, for the rows on screen only, to guard old rows.
        let title = SafeText.clean(String(decoding: bytes, as: UTF8.self))
        let podcast = podcastIds[position]
        return EpisodeRow(
            id: ids[position], podcastId: podcast, podcast: podcastTitles[podcast] ?? "", title: title,
            published: published[position].isNaN ? nil : published[position],
            duration: durations[position] < 0 ? nil : Int(durations[position]),
            length: lengths[position] < 0 ? nil : lengths[position], state: state,
            heardTo: positions.indices.contains(position) && positions[position] > 0 ? Int(positions[position]) : nil)
    }

    /// The positions of the episodes of `podcast` (nil: all) whose podcast or title contains `needle`
    /// (case and accents ignored: ``SearchFold``), in order; only among `candidates` when given (the matches of a shorter needle).
    public func positions(podcast: Int64?, matching needle: String, among candidates: [Int32]? = nil) -> [Int32] {
        let matcher = matcher(needle)
        let folded = matcher.folded
        // The podcasts whose own title matches: all their episodes do.
        let podcastMatches = matcher.podcasts
        var out: [Int32] = []
        text.withUnsafeBufferPointer { keys in
            folded.withUnsafeBufferPointer { needle in
                func test(_ position: Int32) {
                    let p = Int(position)
                    let owner = podcastIds[p]
                    if let podcast, owner != podcast { return }
                    if needle.isEmpty || podcastMatches.contains(owner) || Self.contains(keys, keyRange(p), needle) {
                        out.append(position)
                    }
                }
                if let candidates {
                    for position in candidates { test(position) }
                } else {
                    out.reserveCapacity(needle.isEmpty && podcast == nil ? ids.count : 64)
                    for position in 0..<Int32(ids.count) { test(position) }
                }
            }
        }
        return out
    }

    /// The orders the Episodes view sorts by.
    public enum Order: String, Sendable, CaseIterable {
        case date, title, podcast, duration, size
    }

    /// `positions` sorted by `order`: the date newest first, the title and the podcast A to Z (the
    /// podcast's episodes newest first), the duration and the size largest first, unknown ones last;
    /// `reversed` turns the order round. Ties keep the library's order.
    public func sorted(_ positions: [Int32], by order: Order, reversed: Bool = false) -> [Int32] {
        var out: [Int32]
        switch order {
        case .date:
            out = positions.sorted()
        case .title:
            out = positions.sorted { titleRanks[Int($0)] < titleRanks[Int($1)] }
        case .podcast:
            let ranked = foldedPodcastTitles.sorted { $0.value.lexicographicallyPrecedes($1.value) }
            let rank = Dictionary(uniqueKeysWithValues: ranked.enumerated().map { ($0.element.key, $0.offset) })
            var byPosition = [Int](repeating: Int.max, count: ids.count)
            for p in positions { byPosition[Int(p)] = rank[podcastIds[Int(p)]] ?? Int.max }
            out = positions.sorted { byPosition[Int($0)] != byPosition[Int($1)] ? byPosition[Int($0)] < byPosition[Int($1)] : $0 < $1 }
        case .duration:
            out = positions.sorted { durations[Int($0)] != durations[Int($1)] ? durations[Int($0)] > durations[Int($1)] : $0 < $1 }
        case .size:
            out = positions.sorted { lengths[Int($0)] != lengths[Int($1)] ? lengths[Int($0)] > lengths[Int($1)] : $0 < $1 }
        }
        return reversed ? out.reversed() : out
    }

    /// Tells whether an episode's podcast or title contains a needle (case and accents ignored): made once
    /// per search, asked per row.
    public struct Matcher: Sendable {
        let folded: [UInt8]
        let podcasts: Set<Int64>

        /// True when the episode at `position` of `library` matches.
        public func matches(_ position: Int, in library: EpisodeLibrary) -> Bool {
            if folded.isEmpty || podcasts.contains(library.podcastIds[position]) { return true }
            return library.text.withUnsafeBufferPointer { keys in
                folded.withUnsafeBufferPointer { needle in
                    EpisodeLibrary.contains(keys, library.keyRange(position), needle)
                }
            }
        }
    }

    /// A ``Matcher`` for `needle`.
    public func matcher(_ needle: String) -> Matcher {
        let folded = Array(SearchFold.fold(needle).utf8)
        var podcasts: Set<Int64> = []
        if !folded.isEmpty {
            for (id, title) in foldedPodcastTitles
            where title.withUnsafeBufferPointer({ t in
                folded.withUnsafeBufferPointer { Self.contains(t, 0..<t.count, $0) }
            }) { podcasts.insert(id) }
        }
        return Matcher(folded: folded, podcasts: podcasts)
    }

    /// True when `haystack[range]`, folded, contains `needle` (folded already).
    private static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        let first = needle[0]
        // The first byte as it may stand in an ASCII title: "a" is "a" or "A".
        let capital = first &- 0x61 < 26 ? first & ~0x20 : first
        let end = range.upperBound - needle.count
        var i = range.lowerBound
        while i <= end {
            let byte = haystack[i]
            if byte == first || byte == capital {
                var j = 1
                while j < needle.count && fold(haystack[i + j]) == needle[j] { j += 1 }
                if j == needle.count { return true }
            }
            i += 1
        }
        return false
    }
}
