import FoundationEssentials
import Glibc
import Logging
import PodqBase
import PodqHTTP

/// What to download and where: the input of a ``DownloadOperation``.
public struct DownloadRequest: Sendable, Equatable {
    /// The URL to fetch (http or https).
    public var url: URL
    /// The final path; the partial file is `destination + ".part"`.
    public var destination: String
    /// The title shown to people (already cleaned of control characters).
    public var title: String
    /// The validators remembered from an earlier attempt, if any, to check a resume against.
    public var validators: ResourceValidators?
    /// The download folder the destination lies in: podq makes and enters every folder below it
    /// without following a link (``DownloadFolder``). Nil: the destination's own folder.
    public var folder: String?
    /// The podcast's login and `User-Agent`, for an episode of a podcast that has them.
    public var access: PodcastAccess?
    /// The saved map of a segmented partial: how far each segment is on disk.
    public var segments: SegmentMap?
    /// The publisher's digests of the file, from the feed (`podcast:integrity`, `media:hash`).
    public var publishedDigests: [PublishedDigest] = []
    /// The row holds a segment map that cannot be read (damaged, or not of the file's length): the
    /// partial may have holes, so it starts again from 0 rather than resume.
    public var segmentsUnreadable = false

    public init(
        url: URL, destination: String, title: String, validators: ResourceValidators? = nil, folder: String? = nil,
        access: PodcastAccess? = nil, segments: SegmentMap? = nil
    ) {
        self.segments = segments
        self.url = url
        self.destination = destination
        self.title = title
        self.validators = validators
        self.folder = folder
        self.access = access
    }

    /// The partial file next to the destination.
    public var partialPath: String { destination + ".part" }

    /// ``folder``, or the destination's own folder.
    public var folderPath: String { folder ?? LexicalPath.parent(of: destination) }
}

/// What the owner of a ``DownloadOperation`` (the queue runner) hears from it, in the order things
/// happen, on the operation's own task. Each is awaited before the operation goes on, so what it
/// saves is durable before the bytes it speaks of are written: a crash at any moment resumes exactly.
public struct DownloadHooks: Sendable {
    /// Awaited when something must be saved: another name claimed, a response accepted.
    public var save: @Sendable (DownloadOperation.Event) async -> Void
    /// Awaited before the partial file takes a final name: the file's identity and the path it is about
    /// to get, so that the row can tell this file from another one at that path after a crash.
    public var willCommit: @Sendable (FileIdentity, String) async -> Void

    public init(
        save: @escaping @Sendable (DownloadOperation.Event) async -> Void = { _ in },
        willCommit: @escaping @Sendable (FileIdentity, String) async -> Void = { _, _ in }
    ) {
        self.save = save
        self.willCommit = willCommit
    }
}
/// How a download behaves on the wire.
public struct DownloadConfiguration: Sendable {
    /// Redirects followed before giving up.
    public var maxRedirects: Int = 10
    /// Without a strong validator, a resume re-fetches this many bytes before the partial's end and
    /// compares them with what is on disk.
    public var overlapWindow: Int64 = 64 * 1024
    /// With no strong ETag and no Last-Modified, nothing the server sends can vouch for the partial's
    /// bytes: a partial smaller than this starts again from zero rather than resume (it costs little);
    /// a larger one resumes after its first and last `overlapWindow` bytes are compared.
    public var restartWithoutValidatorBelow: Int64 = 1 << 20
    /// The connections segmented downloads may open, shared by the queue's downloads; nil: one
    /// connection per download.
    public var connections: HostConnections?
    /// The speed limit the downloads share (`rate-limit`, the TUI's `<` `>`), handed to every request
    /// of the download and read under by its sink; nil for none (no lock per chunk).
    public var pacing: RateLimiter?
    /// The shortest segment: a file is split only into parts at least this long, and a free
    /// connection cuts a slow segment only when both halves would be.
    public var minimumSegment: Int64 = 2 << 20
    /// How long the first connection of a file that may be split is watched before more open.
    public var segmentProbe: Duration = .milliseconds(500)
    /// More connections open only when, at the first one's speed, the rest would take longer than
    /// this many seconds.
    public var segmentWhenLonger: Double = 2
    /// How often a segmented download syncs its file and saves its segment map.
    public var segmentSaveInterval: Duration = .seconds(1)
    /// podq's own checksum of every file (``Integrity/checksum``): XXH3-128, or SHA-256 with
    /// `checksum = sha256`.
    public var checksum: DigestAlgorithm = .xxh3
    /// Digests computed for every file beside the checksum and a published one: SHA-256 when an
    /// on-complete hook wants `PODQ_SHA256`.
    public var extraDigests: Set<DigestAlgorithm> = []
    /// Receives a debug line per request and response (the URL, the range asked, the status, the
    /// lengths); writes nothing by default.
    public var logger: Logger = .disabled

    public init(
        maxRedirects: Int = 10, overlapWindow: Int64 = 64 * 1024, restartWithoutValidatorBelow: Int64 = 1 << 20,
        logger: Logger = .disabled, connections: HostConnections? = nil
    ) {
        self.connections = connections
        self.maxRedirects = maxRedirects
        self.overlapWindow = overlapWindow
        self.restartWithoutValidatorBelow = restartWithoutValidatorBelow
        self.logger = logger
    }
}

/// The figures a progress bar needs, as one value.
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes of the file on disk, including any resumed prefix.
    public var downloadedLength: Int64
    /// The full length of the file, nil when the server did not say.
    public var expectedLength: Int64?
    /// What the file held when this transfer began (a resumed partial, a segmented download's
    /// written spans): bytes on disk, not bytes that came now. A speed counts only what came after it.
    public var resumedFrom: Int64 = 0

    public init(downloadedLength: Int64, expectedLength: Int64?, resumedFrom: Int64 = 0) {
        self.downloadedLength = downloadedLength
        self.expectedLength = expectedLength
        self.resumedFrom = resumedFrom
    }

    /// The bytes this transfer brought: what a speed is measured on.
    public var transferred: Int64 { max(0, downloadedLength - resumedFrom) }

    /// Between 0 and 1 when the length is known.
    public var fractionCompleted: Double? {
        guard let expectedLength, expectedLength > 0 else { return expectedLength == 0 ? 1 : nil }
        return min(1, Double(downloadedLength) / Double(expectedLength))
    }
}
