import FoundationEssentials
import Glibc
import PodqBase

/// Builds a ``Feed`` from the SAX events of ``FeedXMLReader``: an element stack, a text buffer, and
/// the feed being built.
final class FeedBuilder: FeedXMLHandler {
    let baseURL: URL?
    /// The builder is driven by one parse on one thread and never re-entered, so its hot fields skip
    /// the runtime's exclusivity checks (`swift_beginAccess` was 3.5% of `podq parse`).
    @exclusivity(unchecked) var feed = Feed()
    var sawRoot = false
    var isFeed = false
    var rootName = ""
    /// True once the RSS `channel` (or the Atom `feed` itself) was opened.
    var sawChannel = false
    /// The cap that stopped the parse, if one did.
    private(set) var limitReached: FeedError? { didSet { stopRequested = limitReached != nil } }
    /// Read after every event: a Bool of its own, not a copy of the optional error.
    private(set) var stopRequested = false

    @exclusivity(unchecked) private var stack: [FeedTag] = []
    /// The base URL of each open element: its `xml:base` resolved against its parent's, else the
    /// parent's; the feed's URL outside them all.
    @exclusivity(unchecked) private var bases: [URL?] = []
    /// The text of the open elements, as UTF-8 (a String is made only at an end tag). Each open
    /// element's text starts at its offset in `textStarts`; a leaf's text stays for its parent, so
    /// mixed content (`<title>a <b>x</b> c</title>`) reads "a x c". An element with children drops
    /// its text at its end: an item never holds more than its own fields.
    @exclusivity(unchecked) private var text: [UInt8] = []
    @exclusivity(unchecked) private var textStarts: [Int] = []
    @exclusivity(unchecked) private var hadChild: [Bool] = []
    @exclusivity(unchecked) private var item: FeedEpisode?
    /// `item != nil`, kept apart: comparing the optional with nil copied the whole episode (its
    /// strings retained and released) on every element of a feed.
    @exclusivity(unchecked) private var inItem = false
    @exclusivity(unchecked) private var itemIsAtom = false
    @exclusivity(unchecked) private var mediaFallback: [Enclosure] = []
    /// The item's published hashes (``Enclosure/digests``), matched to its enclosures when it ends.
    @exclusivity(unchecked) private var hashes = ItemHashes()
    /// Depth inside elements whose children must not fill channel fields (RSS `image`, `textInput`, Atom `source`).
    @exclusivity(unchecked) private var ignoredDepth = 0
    @exclusivity(unchecked) private var atomAuthorDepth = 0

    let keepNotes: Bool
    let limits: FeedLimits
    /// Text bytes the parse may still deliver (the file's size plus the expansion allowance).
    @exclusivity(unchecked) private var textBudget: Int64
    @exclusivity(unchecked) private var items = 0

    init(baseURL: URL?, keepNotes: Bool = true, limits: FeedLimits = .standard, textBudget: Int64 = .max) {
        self.baseURL = baseURL
        self.keepNotes = keepNotes
        self.limits = limits
        self.textBudget = textBudget
    }

    // MARK: Elements

    @_optimize(speed)
    func start(_ tag: FeedTag, ns: String, name: String, attributes: FeedXMLAttributes) {
        if !sawRoot {
            sawRoot = true
            rootName = name
            isFeed =
                (tag.ns == .none && tag.name == .rss) || (tag.ns == .atom && tag.name == .feed) || (tag.ns == .rdf && tag.name == .RDF)
                || (tag.ns == .none && tag.name == .feed)
            if tag.name == .feed { sawChannel = true }
        }
        if tag.name == .channel && tag.isRSS { sawChannel = true }
        stack.append(tag)
        if let base = attributes["base", namespace: FeedNamespace.xml] {
            bases.append(
                URL(
                    string: PercentEncoding.encode(base.trimmingASCIIWhitespace, allowing: Self.urlCharacters),
                    relativeTo: currentBase)?.absoluteURL ?? currentBase)
        } else {
            bases.append(currentBase)
        }
        if !hadChild.isEmpty { hadChild[hadChild.count - 1] = true }
        textStarts.append(text.count)
        hadChild.append(false)
        let isRSS = tag.isRSS
        let isAtom = tag.isAtom

        if (isRSS && tag.name == .item) || (isAtom && tag.name == .entry) {
            items += 1
            if items > limits.items {
                limitReached = .tooManyItems(limit: limits.items)
                return
            }
            // An item opened inside another happens only in a broken feed read with recovery
            // (a tag left open): the first one ends here.
            finishItem()
            item = FeedEpisode()
            inItem = true
            itemIsAtom = isAtom
            mediaFallback = []
            hashes = ItemHashes()
            return
        }
        if (isRSS && (tag.name == .image || tag.name == .textinput || tag.name == .textInput)) || (isAtom && tag.name == .source) {
            ignoredDepth += 1
        }
        if isAtom && tag.name == .author { atomAuthorDepth += 1 }

        switch (tag.ns, tag.name) {
        case (.none, .enclosure):
            if let url = attributes["url"] { addEnclosure(url: url, type: attributes["type"], length: attributes["length"]) }
        case (.atom, .link):
            handleAtomLink(attributes)
        case (.none, .link) where attributes["href"] != nil:
            handleAtomLink(attributes)
        case (.itunes, .image), (.googlePlay, .image):
            if let href = attributes["href"] ?? attributes["url"], let url = resolve(href) {
                if inItem { item?.imageURL = url } else if feed.imageURL == nil || tag.ns == .itunes { feed.imageURL = url }
            }
        case (.media, .content):
            if let url = attributes["url"], inItem, let resolved = resolve(url) {
                let medium = attributes["medium"]
                if medium == nil || medium == "audio" || medium == "video" {
                    mediaFallback.append(Enclosure(url: resolved, type: attributes["type"].map(SafeText.clean), length: Self.length(attributes["fileSize"])))
                }
                hashes.mediaContent = resolved
            }
        case (.media, .hash):
            hashes.mediaHashAlgorithm = attributes["algo"]
        case (.podcast, .alternateEnclosure):
            if inItem { hashes.alternate = ItemHashes.Alternate() }
        case (.podcast, .source):
            if hashes.alternate != nil, let uri = attributes["uri"], let resolved = resolve(uri) { hashes.alternate?.urls.append(resolved) }
        case (.podcast, .transcript):
            if inItem, let url = attributes["url"].flatMap(resolve), let type = attributes["type"] {
                item?.transcripts.append(Transcript(url: url, type: SafeText.clean(type).lowercased(), language: attributes["language"].map(SafeText.clean)))
            }
        case (.podcast, .chapters):
            if inItem, item?.chaptersURL == nil, let url = attributes["url"].flatMap(resolve) { item?.chaptersURL = url }
        case (.podcast, .integrity):
            if inItem, attributes["type"]?.lowercased() == "sri", let value = attributes["value"] {
                let digests = PublishedDigest.sri(value)
                if hashes.alternate != nil { hashes.alternate?.digests += digests } else { hashes.item += digests }
            }
        default:
            break
        }
    }

    @_optimize(speed)
    func end(_ tag: FeedTag, ns: String, name: String) {
        guard !stack.isEmpty else { return }
        stack.removeLast()
        // The element's own base still applies to its text: it goes once the element is handled.
        defer { bases.removeLast() }
        let start = textStarts.removeLast()
        let parent = hadChild.removeLast()
        if !parent && text.count - start > limits.fieldBytes {
            limitReached = .fieldTooLong(element: name, limit: limits.fieldBytes)
            text.removeSubrange(start...)
            return
        }
        let isRSS = tag.isRSS
        let isAtom = tag.isAtom
        // Items, entries and the channel are read field by field: their whole text is never needed.
        let isContainer =
            parent && ((isRSS && (tag.name == .item || tag.name == .channel || tag.name == .rss)) || (isAtom && (tag.name == .entry || tag.name == .feed)))
        // An item's notes, when they are not kept (`podq parse`), never become a String.
        let unusedNotes = !keepNotes && inItem && Self.isNotes(tag)
        let value =
            isContainer || unusedNotes || start == text.count
            ? ""
            : text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start...]), as: UTF8.self) }.trimmingASCIIWhitespace
        if parent { text.removeSubrange(start...) }

        if (isRSS && tag.name == .item) || (isAtom && tag.name == .entry) {
            finishItem()
            return
        }
        if (isRSS && (tag.name == .image || tag.name == .textinput || tag.name == .textInput)) || (isAtom && tag.name == .source) {
            ignoredDepth = max(0, ignoredDepth - 1)
            return
        }
        if isAtom && tag.name == .author {
            atomAuthorDepth = max(0, atomAuthorDepth - 1)
            return
        }
        guard ignoredDepth == 0 else { return }
        if inItem {
            endItemField(tag, value: value)
        } else {
            endChannelField(tag, value: value)
        }
    }

    /// The elements that carry an item's notes (``FeedEpisode/description``).
    private static func isNotes(_ tag: FeedTag) -> Bool {
        switch (tag.ns, tag.name) {
        case (.none, .description), (.rss1, .description), (.atom, .summary), (.itunes, .summary), (.content, .encoded), (.atom, .content): true
        default: false
        }
    }

    @_optimize(speed)
    private func endItemField(_ tag: FeedTag, value: String) {
        switch (tag.ns, tag.name) {
        case (.none, .title), (.rss1, .title), (.atom, .title):
            item?.title = SafeText.clean(value)
        case (.none, .link), (.rss1, .link):
            if item?.link == nil, !value.isEmpty { item?.link = resolve(value) }
        case (.none, .guid), (.atom, .id):
            if !value.isEmpty { item?.guid = SafeText.clean(value) }
        case (.none, .pubDate), (.dublinCore, .date), (.atom, .published):
            if let date = FeedDate.parse(value) { item?.published = date }
        case (.atom, .updated):
            if item?.published == nil, let date = FeedDate.parse(value) { item?.published = date }
        case (.none, .description), (.rss1, .description), (.atom, .summary), (.itunes, .summary):
            if keepNotes, item?.description == nil, !value.isEmpty { item?.description = SafeText.clean(value) }
        case (.content, .encoded), (.atom, .content):
            if keepNotes, !value.isEmpty { item?.description = SafeText.clean(value) }
        case (.itunes, .duration):
            item?.duration = FeedDate.duration(value)
        case (.itunes, .episode):
            item?.episodeNumber = Int(value)
        case (.itunes, .season):
            item?.season = Int(value)
        case (.itunes, .author), (.dublinCore, .creator), (.none, .author):
            if !value.isEmpty { item?.author = SafeText.clean(value) }
        case (.atom, .name) where atomAuthorDepth > 0:
            if !value.isEmpty { item?.author = SafeText.clean(value) }
        case (.media, .hash):
            if let digest = PublishedDigest.mediaHash(algo: hashes.mediaHashAlgorithm, value: value) {
                hashes.media.append((hashes.mediaContent, digest))
            }
        case (.media, .content):
            hashes.mediaContent = nil
        case (.podcast, .alternateEnclosure):
            if let alternate = hashes.alternate { hashes.alternates.append(alternate) }
            hashes.alternate = nil
        default:
            break
        }
    }

    @_optimize(speed)
    private func endChannelField(_ tag: FeedTag, value: String) {
        // Only direct children of the channel (RSS) or feed (Atom) describe the podcast.
        let parent = stack.last?.name
        guard parent == .channel || parent == .feed else {
            if tag.ns == .atom && tag.name == .name && atomAuthorDepth > 0, feed.author == nil { feed.author = SafeText.clean(value) }
            return
        }
        switch (tag.ns, tag.name) {
        case (.none, .title), (.rss1, .title), (.atom, .title):
            if feed.title.isEmpty { feed.title = SafeText.clean(value) }
        case (.none, .link), (.rss1, .link):
            if feed.link == nil, !value.isEmpty { feed.link = resolve(value) }
        case (.none, .description), (.rss1, .description), (.atom, .subtitle):
            if !value.isEmpty { feed.description = SafeText.clean(value) }
        case (.itunes, .summary):
            if feed.description == nil, !value.isEmpty { feed.description = SafeText.clean(value) }
        case (.itunes, .author), (.none, .managingEditor), (.dublinCore, .creator):
            if feed.author == nil, !value.isEmpty { feed.author = SafeText.clean(value) }
        case (.atom, .logo), (.atom, .icon):
            if feed.imageURL == nil { feed.imageURL = resolve(value) }
        case (.itunes, .newFeedURL):
            if feed.newFeedURL == nil, !value.isEmpty { feed.newFeedURL = resolve(value) }
        default:
            break
        }
    }

    private func handleAtomLink(_ attributes: FeedXMLAttributes) {
        guard let href = attributes["href"], let url = resolve(href) else { return }
        let rel = attributes["rel"] ?? "alternate"
        if rel == "enclosure" {
            if inItem { addEnclosure(url: href, type: attributes["type"], length: attributes["length"]) }
        } else if rel == "next" {
            if !inItem, ignoredDepth == 0, feed.nextPage == nil { feed.nextPage = url }
        } else if rel == "alternate" {
            if inItem {
                if item?.link == nil { item?.link = url }
            } else if ignoredDepth == 0, feed.link == nil {
                feed.link = url
            }
        }
    }

    private func addEnclosure(url: String, type: String?, length: String?) {
        guard inItem else { return }
        guard let resolved = resolve(url) else {
            if !url.trimmingASCIIWhitespace.isEmpty { feed.repairs.droppedEnclosures += 1 }
            return
        }
        item?.enclosures.append(Enclosure(url: resolved, type: type.map(SafeText.clean), length: Self.length(length)))
    }

    /// Ends the parse: an item still open (a broken feed read with recovery) is kept.
    func finish() {
        if limitReached == nil { finishItem() }
    }

    @_optimize(speed)
    private func finishItem() {
        guard var episode = item.take() else { return }
        item = nil
        inItem = false
        // Media RSS (`media:content`, in a `media:group` or not) when the item has no enclosure: every
        // file is kept, and ``FeedEpisode/preferredEnclosure`` picks the audio.
        if episode.enclosures.isEmpty { episode.enclosures = mediaFallback }
        if !hashes.isEmpty {
            for i in episode.enclosures.indices {
                episode.enclosures[i].digests = hashes.digests(for: episode.enclosures[i].url, only: episode.enclosures.count == 1)
            }
        }
        if episode.enclosures.isEmpty {
            feed.itemsWithoutEnclosure += 1
        } else {
            if episode.title.isEmpty { episode.title = Self.title(fromFileOf: episode.enclosures[0].url) }
            feed.episodes.append(episode)
        }
    }

    /// A title for an untitled episode: its enclosure's file name, decoded, without its extension
    /// ("My Episode_12" for `…/My%20Episode_12.mp3?x=1`).
    static func title(fromFileOf url: String) -> String {
        let path = URLComponents(string: url)?.percentEncodedPath ?? ""
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        var name = SafeText.clean(PercentEncoding.decode(last) ?? last)
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name.distance(from: dot, to: name.endIndex) <= 6 {
            name = String(name[..<dot])
        }
        return name.isEmpty ? "Untitled episode" : name
    }

    /// The base URL relative URLs resolve against here: the innermost `xml:base`, else the feed's URL.
    var currentBase: URL? { bases.last ?? baseURL }

    // MARK: Text

    @_optimize(speed)
    func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        textBudget -= Int64(bytes.count)
        if textBudget < 0 {
            limitReached = .expansionTooLarge(limit: limits.expansion)
            return
        }
        if !textStarts.isEmpty { text.append(contentsOf: bytes) }
    }
}
