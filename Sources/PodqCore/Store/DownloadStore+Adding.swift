import FoundationEssentials
import Glibc
import PodqSQLite

/// A download to put on the queue: a URL (perhaps a feed episode's enclosure) and where it goes.
public struct NewDownload: Sendable, Equatable {
    public var url: String
    /// Shown to people; cleaned of control characters by whoever makes it.
    public var title: String
    public var podcast: String?
    /// The final path, inside `folder`.
    public var destination: String
    /// The download folder the destination lies in.
    public var folder: String?
    /// The episode it is made from: the episode is linked to the new row.
    public var episodeId: Int64?
    /// The feed's stated length, shown until the server tells the real one.
    public var bytesExpected: Int64?
    /// The completed download it replaces once it completes (`queue add --replace`).
    public var replaces: Int64?

    public init(
        url: String, title: String, podcast: String? = nil, destination: String, folder: String? = nil,
        episodeId: Int64? = nil, bytesExpected: Int64? = nil, replaces: Int64? = nil
    ) {
        self.replaces = replaces
        self.url = url
        self.title = title
        self.podcast = podcast
        self.destination = destination
        self.folder = folder
        self.episodeId = episodeId
        self.bytesExpected = bytesExpected
    }
}

extension DownloadStore {
    /// Appends queued downloads in one transaction and returns them with their ids.
    /// - Throws: ``StoreError/noSuchEpisode(_:)`` for an episode that is gone.
    @discardableResult
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func add(_ items: [NewDownload]) throws(StoreError) -> [DownloadRecord] {
        try write { db in try Self.add(items, db: db) }
    }

    /// ``add(_:)`` without blocking a thread (the queue runner's).
    @discardableResult
    public func add(_ items: [NewDownload]) async throws(StoreError) -> [DownloadRecord] {
        try await writeAsync { db in try Self.add(items, db: db) }
    }

    /// Appends one queued download and returns it with its id.
    @discardableResult
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func add(url: String, title: String, podcast: String? = nil, destination: String, folder: String? = nil) throws(StoreError)
        -> DownloadRecord
    {
        try add([NewDownload(url: url, title: title, podcast: podcast, destination: destination, folder: folder)])[0]
    }

    static func add(_ items: [NewDownload], db: Database) throws -> [DownloadRecord] {
        var last = try Int64.fetchOne(db, sql: "SELECT MAX(position) FROM download") ?? 0
        return try items.map { item in
            var episode: EpisodeRecord?
            if let id = item.episodeId {
                guard let found = try EpisodeRecord.fetchOne(db, key: id) else { throw StoreError.noSuchEpisode(id) }
                episode = found
            }
            last += 1
            var record = DownloadRecord(
                id: 0, position: last, url: item.url, title: item.title, podcast: item.podcast,
                destination: item.destination, folder: item.folder)
            record.episodeId = item.episodeId
            record.bytesExpected = item.bytesExpected
            record.replaces = item.replaces
            // The publisher's hashes are of the episode's own file.
            if let episode, episode.url == item.url { record.publishedDigests = episode.digests }
            record.id = try Unsaved(record).add(to: db)
            if var episode {
                episode.downloadId = record.id
                episode.upstreamChange = nil
                try episode.update(db)
            }
            return record
        }
    }
}
