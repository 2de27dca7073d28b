import Foundation
import GRDB

/// One row of the queue, as stored: a download with its state, progress, validators and retries.
/// The columns are documented in docs/STORE.md.
public struct DownloadRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "download"

    public var id: Int64?
    /// Queue order: smaller runs first.
    public var position: Int64
    public var url: String
    public var title: String
    public var podcast: String?
    /// The final path; the partial file is `destination + ".part"`.
    public var destination: String
    /// `queued`, `downloading`, `paused`, `cancelled`, `failed` or `completed`.
    public var state: String
    public var bytesReceived: Int64
    public var bytesExpected: Int64?
    public var etag: String?
    public var lastModified: String?
    public var totalLength: Int64?
    public var finalURL: String?
    /// Attempts made so far.
    public var attempts: Int
    public var lastError: String?
    /// Unix time before which a retry does not start; nil to start at once.
    public var retryAt: Double?
    public var createdAt: Double
    public var updatedAt: Double
    public var completedAt: Double?
    /// The episode it was made from, for feed episodes.
    public var episodeId: Int64?

    public init(position: Int64, url: String, title: String, podcast: String? = nil, destination: String, now: Date = Date()) {
        self.position = position
        self.url = url
        self.title = title
        self.podcast = podcast
        self.destination = destination
        self.state = DownloadState.queued.name
        self.bytesReceived = 0
        self.attempts = 0
        self.createdAt = now.timeIntervalSince1970
        self.updatedAt = createdAt
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The validators to check a resume against, when any were stored.
    public var validators: ResourceValidators? {
        get {
            if etag == nil && lastModified == nil && totalLength == nil && finalURL == nil { return nil }
            return ResourceValidators(strongETag: etag, lastModified: lastModified, totalLength: totalLength, finalURL: finalURL)
        }
        set {
            etag = newValue?.strongETag
            lastModified = newValue?.lastModified
            totalLength = newValue?.totalLength
            finalURL = newValue?.finalURL
        }
    }

    /// The partial file next to the destination.
    public var partialPath: String { destination + ".part" }
}
