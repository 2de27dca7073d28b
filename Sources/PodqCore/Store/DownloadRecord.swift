import FoundationEssentials
import Glibc
import PodqBase
import PodqSQLite

/// One row of the queue, as stored: a download with its state, progress, validators and retries.
/// The columns are documented in docs/STORE.md. Read from the store, it has its row's id; one being
/// added gets it as it is stored (``DownloadStore``'s adding).
public struct DownloadRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "download"

    public var id: Int64
    /// Queue order: smaller runs first.
    public var position: Int64
    public var url: String
    public var title: String
    public var podcast: String?
    /// The final path; the partial file is `destination + ".part"`.
    public var destination: String
    public var state: StoredState
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
    /// The download folder the destination lies in (podq enters nothing below it through a link);
    /// nil for rows from before it was kept: the destination's own folder.
    public var folder: String?
    /// Where the file was being committed, and what it was then (see ``committedFile``).
    public var commitPath: String?
    public var commitDevice: Int64?
    public var commitInode: Int64?
    public var commitSize: Int64?
    public var commitModified: Int64?
    /// The committed file's birth time, where its file system keeps one (``FileIdentity/born``).
    public var commitBorn: Int64?
    /// The segment map of a segmented partial (``SegmentMap/text``): how far each segment is on disk.
    public var segments: String?
    /// The publisher's digests of the file, from the feed (``PublishedDigest/stored(_:)``).
    public var publishedDigests: String?
    /// The server's digests of the file (``ResourceValidators/serverDigests``).
    public var serverDigests: String?
    /// podq's checksum of the completed file (``Integrity/checksum``): what `podq verify` checks.
    public var checksum: String?
    /// The completed file's SHA-256, when one was computed.
    public var sha256: String?
    /// What verified the file (``Integrity/verifiedBy``).
    public var verifiedBy: String?
    /// Why a completed file is unverified (``Integrity/problem``); nil when it is not.
    public var integrityProblem: String?
    /// The completed download this one replaces (`podq queue add --replace`): once this one completes,
    /// that file is deleted, this file takes its name, and that row goes.
    public var replaces: Int64?

    public init(
        id: Int64, position: Int64, url: String, title: String, podcast: String? = nil, destination: String, folder: String? = nil,
        now: Date = Date()
    ) {
        self.id = id
        self.position = position
        self.url = url
        self.title = title
        self.podcast = podcast
        self.destination = destination
        self.folder = folder
        self.state = .queued
        self.bytesReceived = 0
        self.attempts = 0
        self.createdAt = now.timeIntervalSince1970
        self.updatedAt = createdAt
    }

    /// The columns ``init(ordered:)`` reads, in its order.
    static let columns = [
        "id", "state", "position", "url", "title", "podcast", "destination", "bytesReceived", "bytesExpected", "etag", "lastModified", "totalLength",
        "finalURL", "attempts", "lastError", "retryAt", "createdAt", "updatedAt", "completedAt", "episodeId", "folder", "commitPath", "commitDevice",
        "commitInode", "commitSize", "commitModified", "commitBorn", "segments", "publishedDigests", "serverDigests", "checksum", "sha256", "verifiedBy",
        "integrityProblem", "replaces",
    ]
    /// ``columns`` for a SELECT.
    static let selection = columns.joined(separator: ", ")

    /// Reads a row by its columns' names (a record read by name, a join); a `state` this podq does not
    /// know is ``StoreError/unknownState(id:value:)``.
    public init(row: Row) throws {
        try self.init { row[Self.columns[$0]] }
    }

    /// Reads a row of ``selection`` by position: no look-up of 35 names (case-insensitively) in each
    /// row the runner reads, and each value read as its own type (no `DatabaseValue` between).
    /// ``DownloadRecordTests`` checks it reads what ``init(row:)`` reads.
    init(ordered row: Row) throws {
        id = try row.decode(atIndex: 0)
        let stateName: String = try row.decode(atIndex: 1)
        guard let state = StoredState(rawValue: stateName) else { throw StoreError.unknownState(id: id, value: stateName) }
        self.state = state
        position = try row.decode(atIndex: 2)
        url = try row.decode(atIndex: 3)
        title = try row.decode(atIndex: 4)
        podcast = try row.decode(atIndex: 5)
        destination = try row.decode(atIndex: 6)
        bytesReceived = try row.decode(atIndex: 7)
        bytesExpected = try row.decode(atIndex: 8)
        etag = try row.decode(atIndex: 9)
        lastModified = try row.decode(atIndex: 10)
        totalLength = try row.decode(atIndex: 11)
        finalURL = try row.decode(atIndex: 12)
        attempts = try row.decode(atIndex: 13)
        lastError = try row.decode(atIndex: 14)
        retryAt = try row.decode(atIndex: 15)
        createdAt = try row.decode(atIndex: 16)
        updatedAt = try row.decode(atIndex: 17)
        completedAt = try row.decode(atIndex: 18)
        episodeId = try row.decode(atIndex: 19)
        folder = try row.decode(atIndex: 20)
        commitPath = try row.decode(atIndex: 21)
        commitDevice = try row.decode(atIndex: 22)
        commitInode = try row.decode(atIndex: 23)
        commitSize = try row.decode(atIndex: 24)
        commitModified = try row.decode(atIndex: 25)
        commitBorn = try row.decode(atIndex: 26)
        segments = try row.decode(atIndex: 27)
        publishedDigests = try row.decode(atIndex: 28)
        serverDigests = try row.decode(atIndex: 29)
        checksum = try row.decode(atIndex: 30)
        sha256 = try row.decode(atIndex: 31)
        verifiedBy = try row.decode(atIndex: 32)
        integrityProblem = try row.decode(atIndex: 33)
        replaces = try row.decode(atIndex: 34)
    }

    private init(column: (Int) -> DatabaseValue) throws {
        func value<T: DatabaseValueConvertible>(_ index: Int) throws -> T {
            let stored = column(index)
            guard let value = T.fromDatabaseValue(stored) else {
                throw StoreError.database("download.\(Self.columns[index]) holds \(stored), not a \(T.self)")
            }
            return value
        }
        id = try value(0)
        let stateName: String = try value(1)
        guard let state = StoredState(rawValue: stateName) else { throw StoreError.unknownState(id: id, value: stateName) }
        self.state = state
        position = try value(2)
        url = try value(3)
        title = try value(4)
        podcast = try value(5)
        destination = try value(6)
        bytesReceived = try value(7)
        bytesExpected = try value(8)
        etag = try value(9)
        lastModified = try value(10)
        totalLength = try value(11)
        finalURL = try value(12)
        attempts = try value(13)
        lastError = try value(14)
        retryAt = try value(15)
        createdAt = try value(16)
        updatedAt = try value(17)
        completedAt = try value(18)
        episodeId = try value(19)
        folder = try value(20)
        commitPath = try value(21)
        commitDevice = try value(22)
        commitInode = try value(23)
        commitSize = try value(24)
        commitModified = try value(25)
        commitBorn = try value(26)
        segments = try value(27)
        publishedDigests = try value(28)
        serverDigests = try value(29)
        checksum = try value(30)
        sha256 = try value(31)
        verifiedBy = try value(32)
        integrityProblem = try value(33)
        replaces = try value(34)
    }

    /// The validators to check a resume against, when any were stored.
    public var validators: ResourceValidators? {
        get {
            if etag == nil && lastModified == nil && totalLength == nil && finalURL == nil { return nil }
            // The one `etag` column holds either kind: a weak one keeps its `W/`.
            let weak = etag?.hasPrefix("W/") == true
            return ResourceValidators(
                strongETag: weak ? nil : etag, weakETag: weak ? etag : nil, lastModified: lastModified,
                totalLength: totalLength, finalURL: finalURL, serverDigests: serverDigests)
        }
        set {
            serverDigests = newValue?.serverDigests
            etag = newValue?.strongETag ?? newValue?.weakETag
            lastModified = newValue?.lastModified
            totalLength = newValue?.totalLength
            finalURL = newValue?.finalURL
        }
    }

    /// The file podq was committing for this row: the path it was about to take and its identity,
    /// recorded before the rename. At start-up only a file with that identity at that path makes an
    /// unfinished row completed.
    public var committedFile: (path: String, identity: FileIdentity)? {
        get {
            guard let commitPath, let commitDevice, let commitInode, let commitSize, let commitModified else { return nil }
            return (
                commitPath,
                FileIdentity(
                    device: UInt64(bitPattern: commitDevice), inode: UInt64(bitPattern: commitInode),
                    size: commitSize, modified: commitModified, born: commitBorn)
            )
        }
        set {
            commitPath = newValue?.path
            commitDevice = newValue.map { Int64(bitPattern: $0.identity.device) }
            commitInode = newValue.map { Int64(bitPattern: $0.identity.inode) }
            commitSize = newValue?.identity.size
            commitModified = newValue?.identity.modified
            commitBorn = newValue?.identity.born
        }
    }

    /// The completed file's integrity as stored; nil before it completed (or for rows from before podq
    /// kept it).
    public var integrity: Integrity? {
        get {
            guard let checksum, let verifiedBy else { return nil }
            return Integrity(checksum: checksum, sha256: sha256, verifiedBy: verifiedBy, problem: integrityProblem)
        }
        set {
            checksum = newValue?.checksum
            sha256 = newValue?.sha256
            verifiedBy = newValue?.verifiedBy
            integrityProblem = newValue?.problem
        }
    }

    /// The saved segment map, when it is whole and fits the saved length (else none: the partial then
    /// starts again from zero rather than trust bytes no map vouches for).
    public var segmentMap: SegmentMap? {
        get { segments.flatMap { text in totalLength.flatMap { SegmentMap(text: text, total: $0) } } }
        set { segments = newValue?.text }
    }

    /// The partial file next to the destination.
    public var partialPath: String { destination + ".part" }

    /// ``folder``, or the destination's own folder for older rows.
    public var folderPath: String { folder ?? LexicalPath.parent(of: destination) }

    /// What a ``DownloadOperation`` needs to run this row.
    public func request(url: URL) -> DownloadRequest {
        var request = DownloadRequest(
            url: url, destination: destination, title: title, validators: validators, folder: folderPath,
            segments: segmentMap)
        request.segmentsUnreadable = segments != nil && request.segments == nil
        request.publishedDigests = PublishedDigest.parse(stored: publishedDigests)
        return request
    }
}

extension DownloadRecord {
    /// The row `id`, through a statement each connection prepares once: the runner reads a row in every
    /// change it makes, and preparing (with GRDB's authorizer, before PodqSQLite) was a seventh of a transfer's user time
    /// with 50 downloads running (docs/PERFORMANCE.md).
    static func row(_ db: Database, id: Int64) throws -> DownloadRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(selection) FROM download WHERE id = ?"), arguments: [id]).map(DownloadRecord.init(ordered:))
    }

    /// Every row in the queue's order, through a statement each connection prepares once.
    static func all(_ db: Database) throws -> [DownloadRecord] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT \(selection) FROM download ORDER BY position, id"), DownloadRecord.init(ordered:))
    }
}

extension DownloadRecord {
    /// Writes every column of the row `id` through a statement each connection prepares once (a
    /// record's `update` encodes it through `Encodable` on every call).
    /// - Throws: ``StoreError/noSuchDownload(_:)`` when there is no such row.
    func save(_ db: Database) throws {
        let statement = try db.cachedStatement(sql: Self.saveSQL)
        let values: [(any DatabaseValueConvertible)?] = [
            state.rawValue, position, url, title, podcast, destination, bytesReceived, bytesExpected, etag, lastModified, totalLength, finalURL, attempts,
            lastError, retryAt, createdAt, updatedAt, completedAt, episodeId, folder, commitPath, commitDevice, commitInode, commitSize, commitModified,
            commitBorn, segments, publishedDigests, serverDigests, checksum, sha256, verifiedBy, integrityProblem, replaces, id,
        ]
        try statement.execute(arguments: StatementArguments(values))
        if db.changesCount == 0 { throw StoreError.noSuchDownload(id) }
    }

    private static let saveSQL =
        "UPDATE download SET " + columns.dropFirst().map { "\($0) = ?" }.joined(separator: ", ") + " WHERE id = ?"
}
