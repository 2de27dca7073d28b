import Foundation

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

    public init(title: String = "", link: String? = nil, description: String? = nil, author: String? = nil,
                imageURL: String? = nil, episodes: [FeedEpisode] = [], itemsWithoutEnclosure: Int = 0) {
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
    /// The media files; the first is the one podq downloads.
    public var enclosures: [Enclosure]

    public init(guid: String? = nil, title: String = "", link: String? = nil, description: String? = nil,
                published: Date? = nil, duration: Int? = nil, episodeNumber: Int? = nil, season: Int? = nil,
                author: String? = nil, imageURL: String? = nil, enclosures: [Enclosure] = []) {
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

/// A media file of an episode.
public struct Enclosure: Sendable, Equatable {
    /// Absolute (resolved against the feed's URL).
    public var url: String
    public var type: String?
    /// Bytes, when the feed gives a positive number.
    public var length: Int64?

    public init(url: String, type: String? = nil, length: Int64? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }
}
