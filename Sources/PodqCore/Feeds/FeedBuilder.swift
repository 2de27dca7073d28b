import Foundation

/// Builds a ``Feed`` from the SAX events of ``FeedXMLReader``: an element stack, a text buffer, and
/// the feed being built.
final class FeedBuilder: FeedXMLHandler {
    let baseURL: URL?
    var feed = Feed()
    var sawRoot = false
    var isFeed = false
    var rootName = ""
    /// True once the RSS `channel` (or the Atom `feed` itself) was opened.
    var sawChannel = false
    /// The cap that stopped the parse, if one did.
    private(set) var limitReached: FeedError?
    var stopRequested: Bool { limitReached != nil }

    private var stack: [(ns: String, name: String)] = []
    /// The base URL of each open element: its `xml:base` resolved against its parent's, else the
    /// parent's; the feed's URL outside them all.
    private var bases: [URL?] = []
    /// The text of the open elements, as UTF-8 (a String is made only at an end tag). Each open
    /// element's text starts at its offset in `textStarts`; a leaf's text stays for its parent, so
    /// mixed content (`<title>a <b>x</b> c</title>`) reads "a x c". An element with children drops
    /// its text at its end: an item never holds more than its own fields.
    private var text: [UInt8] = []
    private var textStarts: [Int] = []
    private var hadChild: [Bool] = []
    private var item: FeedEpisode?
    private var itemIsAtom = false
    private var mediaFallback: [Enclosure] = []
    /// The item's published hashes (``Enclosure/digests``), matched to its enclosures when it ends.
    private var hashes = ItemHashes()
    /// Depth inside elements whose children must not fill channel fields (RSS `image`, `textInput`, Atom `source`).
    private var ignoredDepth = 0
    private var atomAuthorDepth = 0

    let keepNotes: Bool
    let limits: FeedLimits
    /// Text bytes the parse may still deliver (the file's size plus the expansion allowance).
    private var textBudget: Int64
    private var items = 0

    init(baseURL: URL?, keepNotes: Bool = true, limits: FeedLimits = .standard, textBudget: Int64 = .max) {
        self.baseURL = baseURL
        self.keepNotes = keepNotes
        self.limits = limits
        self.textBudget = textBudget
    }

    // MARK: Elements

    @_optimize(speed)
    func start(ns: String, name: String, attributes: FeedXMLAttributes) {
        if !sawRoot {
            sawRoot = true
            rootName = name
            isFeed =
                (ns.isEmpty && name == "rss") || (ns == FeedNamespace.atom && name == "feed") || (ns == FeedNamespace.rdf && name == "RDF")
                || (ns.isEmpty && name == "feed")
            if name == "feed" { sawChannel = true }
        }
        if name == "channel" && (ns.isEmpty || ns == FeedNamespace.rss1) { sawChannel = true }
        stack.append((ns, name))
        if let base = attributes["base", namespace: FeedNamespace.xml] {
            bases.append(
                URL(
                    string: base.trimmingASCIIWhitespace.addingPercentEncoding(withAllowedCharacters: Self.urlCharacters) ?? base,
                    relativeTo: currentBase)?.absoluteURL ?? currentBase)
        } else {
            bases.append(currentBase)
        }
        if !hadChild.isEmpty { hadChild[hadChild.count - 1] = true }
        textStarts.append(text.count)
        hadChild.append(false)
        let isRSS = ns.isEmpty || ns == FeedNamespace.rss1
        let isAtom = ns == FeedNamespace.atom

        if (isRSS && name == "item") || (isAtom && name == "entry") {
            items += 1
            if items > limits.items {
                limitReached = .tooManyItems(limit: limits.items)
                return
            }
            // An item opened inside another happens only in a broken feed read with recovery
            // (a tag left open): the first one ends here.
            finishItem()
            item = FeedEpisode()
            itemIsAtom = isAtom
            mediaFallback = []
            hashes = ItemHashes()
            return
        }
        if (isRSS && (name == "image" || name == "textinput" || name == "textInput")) || (isAtom && name == "source") {
            ignoredDepth += 1
        }
        if isAtom && (name == "author") { atomAuthorDepth += 1 }

        switch (ns, name) {
        case ("", "enclosure"):
            if let url = attributes["url"] { addEnclosure(url: url, type: attributes["type"], length: attributes["length"]) }
        case (FeedNamespace.atom, "link"):
            handleAtomLink(attributes)
        case ("", "link") where attributes["href"] != nil:
            handleAtomLink(attributes)
        case (FeedNamespace.itunes, "image"), (FeedNamespace.googlePlay, "image"):
            if let href = attributes["href"] ?? attributes["url"], let url = resolve(href) {
                if item != nil { item?.imageURL = url } else if feed.imageURL == nil || ns == FeedNamespace.itunes { feed.imageURL = url }
            }
        case (FeedNamespace.media, "content"):
            if let url = attributes["url"], item != nil, let resolved = resolve(url) {
                let medium = attributes["medium"]
                if medium == nil || medium == "audio" || medium == "video" {
                    mediaFallback.append(Enclosure(url: resolved, type: attributes["type"].map(SafeText.clean), length: Self.length(attributes["fileSize"])))
                }
                hashes.mediaContent = resolved
            }
        case (FeedNamespace.media, "hash"):
            hashes.mediaHashAlgorithm = attributes["algo"]
        case (FeedNamespace.podcast, "alternateEnclosure"), (FeedNamespace.podcastDraft, "alternateEnclosure"):
            if item != nil { hashes.alternate = ItemHashes.Alternate() }
        case (FeedNamespace.podcast, "source"), (FeedNamespace.podcastDraft, "source"):
            if hashes.alternate != nil, let uri = attributes["uri"], let resolved = resolve(uri) { hashes.alternate?.urls.append(resolved) }
        case (FeedNamespace.podcast, "transcript"), (FeedNamespace.podcastDraft, "transcript"):
            if item != nil, let url = attributes["url"].flatMap(resolve), let type = attributes["type"] {
                item?.transcripts.append(Transcript(url: url, type: SafeText.clean(type).lowercased(), language: attributes["language"].map(SafeText.clean)))
            }
        case (FeedNamespace.podcast, "chapters"), (FeedNamespace.podcastDraft, "chapters"):
            if item != nil, item?.chaptersURL == nil, let url = attributes["url"].flatMap(resolve) { item?.chaptersURL = url }
        case (FeedNamespace.podcast, "integrity"), (FeedNamespace.podcastDraft, "integrity"):
            if item != nil, attributes["type"]?.lowercased() == "sri", let value = attributes["value"] {
                let digests = PublishedDigest.sri(value)
                if hashes.alternate != nil { hashes.alternate?.digests += digests } else { hashes.item += digests }
            }
        default:
            break
        }
    }

    @_optimize(speed)
    func end(ns: String, name: String) {
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
        let isRSS = ns.isEmpty || ns == FeedNamespace.rss1
        let isAtom = ns == FeedNamespace.atom
        // Items, entries and the channel are read field by field: their whole text is never needed.
        let isContainer = parent && ((isRSS && (name == "item" || name == "channel" || name == "rss")) || (isAtom && (name == "entry" || name == "feed")))
        let value =
            isContainer || start == text.count
            ? ""
            : text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start...]), as: UTF8.self) }.trimmingASCIIWhitespace
        if parent { text.removeSubrange(start...) }

        if (isRSS && name == "item") || (isAtom && name == "entry") {
            finishItem()
            return
        }
        if (isRSS && (name == "image" || name == "textinput" || name == "textInput")) || (isAtom && name == "source") {
            ignoredDepth = max(0, ignoredDepth - 1)
            return
        }
        if isAtom && name == "author" {
            atomAuthorDepth = max(0, atomAuthorDepth - 1)
            return
        }
        guard ignoredDepth == 0 else { return }
        if item != nil {
            endItemField(ns: ns, name: name, value: value)
        } else {
            endChannelField(ns: ns, name: name, value: value)
        }
    }

    @_optimize(speed)
    private func endItemField(ns: String, name: String, value: String) {
        switch (ns, name) {
        case ("", "title"), (FeedNamespace.rss1, "title"), (FeedNamespace.atom, "title"):
            item?.title = SafeText.clean(value)
        case ("", "link"), (FeedNamespace.rss1, "link"):
            if item?.link == nil, !value.isEmpty { item?.link = resolve(value) }
        case ("", "guid"), (FeedNamespace.atom, "id"):
            if !value.isEmpty { item?.guid = SafeText.clean(value) }
        case ("", "pubDate"), (FeedNamespace.dublinCore, "date"), (FeedNamespace.atom, "published"):
            if let date = FeedDate.parse(value) { item?.published = date }
        case (FeedNamespace.atom, "updated"):
            if item?.published == nil, let date = FeedDate.parse(value) { item?.published = date }
        case ("", "description"), (FeedNamespace.rss1, "description"), (FeedNamespace.atom, "summary"), (FeedNamespace.itunes, "summary"):
            if keepNotes, item?.description == nil, !value.isEmpty { item?.description = SafeText.clean(value) }
        case (FeedNamespace.content, "encoded"), (FeedNamespace.atom, "content"):
            if keepNotes, !value.isEmpty { item?.description = SafeText.clean(value) }
        case (FeedNamespace.itunes, "duration"):
            item?.duration = FeedDate.duration(value)
        case (FeedNamespace.itunes, "episode"):
            item?.episodeNumber = Int(value)
        case (FeedNamespace.itunes, "season"):
            item?.season = Int(value)
        case (FeedNamespace.itunes, "author"), (FeedNamespace.dublinCore, "creator"), ("", "author"):
            if !value.isEmpty { item?.author = SafeText.clean(value) }
        case (FeedNamespace.atom, "name") where atomAuthorDepth > 0:
            if !value.isEmpty { item?.author = SafeText.clean(value) }
        case (FeedNamespace.media, "hash"):
            if let digest = PublishedDigest.mediaHash(algo: hashes.mediaHashAlgorithm, value: value) {
                hashes.media.append((hashes.mediaContent, digest))
            }
        case (FeedNamespace.media, "content"):
            hashes.mediaContent = nil
        case (FeedNamespace.podcast, "alternateEnclosure"), (FeedNamespace.podcastDraft, "alternateEnclosure"):
            if let alternate = hashes.alternate { hashes.alternates.append(alternate) }
            hashes.alternate = nil
        default:
            break
        }
    }

    @_optimize(speed)
    private func endChannelField(ns: String, name: String, value: String) {
        // Only direct children of the channel (RSS) or feed (Atom) describe the podcast.
        let parent = stack.last?.name ?? ""
        guard parent == "channel" || parent == "feed" else {
            if ns == FeedNamespace.atom && name == "name" && atomAuthorDepth > 0, feed.author == nil { feed.author = SafeText.clean(value) }
            return
        }
        switch (ns, name) {
        case ("", "title"), (FeedNamespace.rss1, "title"), (FeedNamespace.atom, "title"):
            if feed.title.isEmpty { feed.title = SafeText.clean(value) }
        case ("", "link"), (FeedNamespace.rss1, "link"):
            if feed.link == nil, !value.isEmpty { feed.link = resolve(value) }
        case ("", "description"), (FeedNamespace.rss1, "description"), (FeedNamespace.atom, "subtitle"):
            if !value.isEmpty { feed.description = SafeText.clean(value) }
        case (FeedNamespace.itunes, "summary"):
            if feed.description == nil, !value.isEmpty { feed.description = SafeText.clean(value) }
        case (FeedNamespace.itunes, "author"), ("", "managingEditor"), (FeedNamespace.dublinCore, "creator"):
            if feed.author == nil, !value.isEmpty { feed.author = SafeText.clean(value) }
        case (FeedNamespace.atom, "logo"), (FeedNamespace.atom, "icon"):
            if feed.imageURL == nil { feed.imageURL = resolve(value) }
        case (FeedNamespace.itunes, "new-feed-url"):
            if feed.newFeedURL == nil, !value.isEmpty { feed.newFeedURL = resolve(value) }
        default:
            break
        }
    }

    private func handleAtomLink(_ attributes: FeedXMLAttributes) {
        guard let href = attributes["href"], let url = resolve(href) else { return }
        let rel = attributes["rel"] ?? "alternate"
        if rel == "enclosure" {
            if item != nil { addEnclosure(url: href, type: attributes["type"], length: attributes["length"]) }
        } else if rel == "next" {
            if item == nil, ignoredDepth == 0, feed.nextPage == nil { feed.nextPage = url }
        } else if rel == "alternate" {
            if item != nil {
                if item?.link == nil { item?.link = url }
            } else if ignoredDepth == 0, feed.link == nil {
                feed.link = url
            }
        }
    }

    private func addEnclosure(url: String, type: String?, length: String?) {
        guard item != nil else { return }
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
        guard var episode = item else { return }
        item = nil
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
        var name = SafeText.clean(last.removingPercentEncoding ?? last)
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
