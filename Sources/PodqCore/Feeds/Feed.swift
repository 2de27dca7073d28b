import FoundationEssentials
import Glibc

/// A parsed feed: the podcast and its episodes in document order.
public struct Feed: Sendable, Equatable {
    public var title: String
    public var link: String?
    public var description: String?
    public var author: String?
    public var imageURL: String?
    /// Items with at least one enclosure, in document order (see docs/FEEDS.md).
    public var episodes: [FeedEpisode]
    /// Items without any enclosure, which are not episodes.
    public var itemsWithoutEnclosure: Int
    /// What was mended to read the feed (empty for a clean feed).
    public var repairs = FeedRepairs()
    /// Where the publisher says the feed moved (`itunes:new-feed-url`), resolved; nil when it did not.
    public var newFeedURL: String?
    /// The next page of a paged feed (RFC 5005: `atom:link rel="next"`), resolved; nil on the last page.
    public var nextPage: String?

    public init(
        title: String = "", link: String? = nil, description: String? = nil, author: String? = nil,
        imageURL: String? = nil, episodes: [FeedEpisode] = [], itemsWithoutEnclosure: Int = 0
    ) {
        self.title = title
        self.link = link
        self.description = description
        self.author = author
        self.imageURL = imageURL
        self.episodes = episodes
        self.itemsWithoutEnclosure = itemsWithoutEnclosure
    }
}

/// One episode: an item of the feed with an enclosure.
public struct FeedEpisode: Sendable, Equatable {
    /// The item's GUID (or Atom id); nil when the feed gives none.
    public var guid: String?
    public var title: String
    public var link: String?
    public var description: String?
    public var published: Date?
    /// Seconds.
    public var duration: Int?
    public var episodeNumber: Int?
    public var season: Int?
    public var author: String?
    public var imageURL: String?
    /// The media files, in document order (``preferredEnclosure`` is the one podq downloads).
    public var enclosures: [Enclosure]
    /// Its transcripts (`podcast:transcript`), in document order.
    public var transcripts: [Transcript] = []
    /// Its chapters file (`podcast:chapters`, JSON), resolved; nil when it has none.
    public var chaptersURL: String?

    /// The enclosure podq downloads: the first audio one (by its type, or by its file's extension when
    /// it has no type), else the first.
    public var preferredEnclosure: Enclosure? {
        enclosures.first(where: \.isAudio) ?? enclosures.first
    }

    public init(
        guid: String? = nil, title: String = "", link: String? = nil, description: String? = nil,
        published: Date? = nil, duration: Int? = nil, episodeNumber: Int? = nil, season: Int? = nil,
        author: String? = nil, imageURL: String? = nil, enclosures: [Enclosure] = []
    ) {
        self.guid = guid
        self.title = title
        self.link = link
        self.description = description
        self.published = published
        self.duration = duration
        self.episodeNumber = episodeNumber
        self.season = season
        self.author = author
        self.imageURL = imageURL
        self.enclosures = enclosures
    }
}

/// A transcript of an episode (`podcast:transcript`).
public struct Transcript: Sendable, Equatable, Codable {
    /// Absolute (resolved against the feed's URL).
    public var url: String
    /// Its media type (`text/vtt`, `application/x-subrip`, `application/json`, `text/html`, `text/plain`).
    public var type: String
    public var language: String?

    public init(url: String, type: String, language: String? = nil) {
        self.url = url
        self.type = type
        self.language = language
    }
}

/// A media file of an episode.
public struct Enclosure: Sendable, Equatable {
    /// Absolute (resolved against the feed's URL).
    public var url: String
    public var type: String?
    /// Bytes, when the feed gives a positive number.
    public var length: Int64?
    /// The publisher's hashes of the file (`podcast:integrity`, `media:hash`).
    public var digests: [PublishedDigest] = []

    public init(url: String, type: String? = nil, length: Int64? = nil, digests: [PublishedDigest] = []) {
        self.url = url
        self.type = type
        self.length = length
        self.digests = digests
    }

    /// True for an `audio/…` type, or, with no type (or a generic one), an audio file's extension.
    public var isAudio: Bool {
        let lowered = type?.lowercased() ?? ""
        if lowered.hasPrefix("audio/") { return true }
        if !lowered.isEmpty && lowered != "application/octet-stream" && lowered != "binary/octet-stream" { return false }
        let path = URLComponents(string: url)?.path.lowercased() ?? ""
        return Self.audioExtensions.contains { path.hasSuffix("." + $0) }
    }

    private static let audioExtensions = ["mp3", "m4a", "aac", "ogg", "oga", "opus", "flac", "wav", "mka", "m4b"]
}
