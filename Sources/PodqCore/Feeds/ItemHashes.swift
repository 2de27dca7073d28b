/// The hashes an item publishes, gathered while it is read and matched to its enclosures when it
/// ends: `podcast:integrity` inside a `podcast:alternateEnclosure` (for its `podcast:source`
/// URLs) or directly in the item, and Media RSS `media:hash` inside a `media:content` (for its URL)
/// or directly in the item or a `media:group`.
struct ItemHashes {
    struct Alternate {
        var urls: [String] = []
        var digests: [PublishedDigest] = []
    }

    /// The `podcast:alternateEnclosure` being read, and those read.
    var alternate: Alternate?
    var alternates: [Alternate] = []
    /// `podcast:integrity` outside any alternate enclosure.
    var item: [PublishedDigest] = []
    /// `media:hash` values, with the `media:content` URL they were inside (nil: the item's).
    var media: [(url: String?, digest: PublishedDigest)] = []
    /// The `media:content` open now, and the `algo` of the `media:hash` open now.
    var mediaContent: String?
    var mediaHashAlgorithm: String?

    var isEmpty: Bool { alternates.isEmpty && item.isEmpty && media.isEmpty }

    /// The hashes of the file at `url`: those given for that very URL; else, when `only` (the item has
    /// one file) or none is tied to a URL, those given for the item.
    func digests(for url: String, only: Bool) -> [PublishedDigest] {
        var found = alternates.filter { $0.urls.contains(url) }.flatMap(\.digests) + media.filter { $0.url == url }.map(\.digest)
        if found.isEmpty && only {
            found = item + media.filter { $0.url == nil }.map(\.digest)
        }
        var unique: [PublishedDigest] = []
        for digest in found where !unique.contains(digest) { unique.append(digest) }
        return unique
    }
}
