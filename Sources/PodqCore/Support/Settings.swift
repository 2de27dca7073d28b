import FoundationEssentials
import Glibc

/// The settings in the config file (docs/CONFIG.md), with their defaults.
public struct Settings: Sendable, Equatable {
    /// Downloads that run at once (`simultaneous-downloads`, 1–64).
    public var simultaneousDownloads = 3
    /// Downloads from one host that run at once (`per-host-downloads`, 1–64), so that one server or
    /// CDN is not hammered. Counted by the host of the queued URL.
    public var perHostDownloads = 2
    /// Connections one download may use when its server allows ranges (`connections-per-download`,
    /// 1–16): a large file is fetched in segments at once. 1 turns segmented downloads off.
    public var connectionsPerDownload = 4
    /// Hosts (and their subdomains) that get one connection per download (`polite-hosts`).
    public var politeHosts: [String] = []
    /// The global speed limit in bytes a second, shared by the running downloads (`rate-limit`); nil for none.
    public var rateLimit: Int?
    /// Where files go (`download-folder`); nil for the default.
    public var downloadFolder: String?
    /// Where a feed episode's file goes inside the download folder (`file-name-template`).
    public var fileNameTemplate = FileNameTemplate.standard
    /// Attempts before a download is marked failed (`max-attempts`, 1–100).
    public var maxAttempts = 5
    /// The first retry's delay in seconds, doubled each time (`retry-delay`).
    public var retryDelay: Double = 2
    /// The longest delay between two attempts, in seconds (`retry-max-delay`).
    public var retryMaxDelay: Double = 300
    /// Seconds without a byte before an attempt is abandoned (`stall-timeout`).
    public var stallTimeout: Double = 30
    /// Seconds a server may take to send a complete head (status and headers) once it has the request (`response-timeout`).
    public var responseTimeout: Double = 30
    /// Seconds a feed, a web page or a sidecar may take to come whole, head and body (`fetch-timeout`):
    /// a server that trickles one never holds a refresh, a run or the queue's lock for longer.
    public var fetchTimeout: Double = 120
    /// Queue the new episodes of every podcast on refresh (`auto-queue`), not only of those added with `--auto`.
    public var autoQueue = false
    /// The TUI takes clicks and the wheel (`mouse`); false leaves the mouse to the terminal (selecting text).
    public var mouse = true
    /// The largest feed podq reads, in bytes (`feed-size-limit`).
    public var feedSizeLimit: Int64 = 50_000_000
    /// The size at which `podq.log` is rotated, in bytes (`log-size`, in MB); 0 for no log file.
    public var logSize: Int64 = 1_000_000
    /// The program that plays an episode (`player`): words split on spaces, the file's path added
    /// at the end or put where `%f` is; nil to pick the first of mpv, ffplay, vlc, xdg-open found.
    public var player: String?
    /// The `User-Agent` sent with every request (`user-agent`); nil for podq's own, which falls back
    /// to a browser-compatible form when a web firewall refuses it.
    public var userAgent: String?
    /// The proxy for every request (`proxy`), as curl's `-x`: it wins over `http_proxy` and the like;
    /// `no_proxy` still applies. Nil: the environment's.
    public var proxy: String?
    /// The command that prints a private feed's password (`password-command`), for podcasts with a
    /// user name and no password of their own: `%u` is the user name, `%h` the feed's host.
    public var passwordCommand: String?
    /// The command run for every finished download (`on-complete`): words split on spaces, the file's
    /// path added at the end or put where `%f` is; nil for none.
    public var onComplete: String?
    /// Seconds an `on-complete` command may run before it is stopped (`hook-timeout`).
    public var hookTimeout: Double = 60
    /// podq's own checksum of every file (`checksum`): XXH3-128 (the default: it costs a tenth of
    /// SHA-256's CPU) or SHA-256. A publisher's hash is checked with its own algorithm either way.
    public var checksum: DigestAlgorithm = .xxh3
    /// Offline-complete episodes (`sidecars`): transcript, chapters, image and a metadata `.json` beside
    /// each finished feed episode.
    public var sidecars = false
    /// The transcript types `sidecars` prefers, in order (`transcript-types`).
    public var transcriptTypes = ["text/vtt", "application/x-subrip", "application/srt", "application/json", "text/html", "text/plain"]
    /// Write an M3U playlist of each run's new downloads in the download folder (`playlist`).
    public var playlist = false
    /// The cleanup rules (`cleanup-days`, `keep-episodes`, `cleanup-unplayed`); off by default.
    public var cleanup = CleanupPolicy()
    /// Logged in to a sync server, `podq refresh` and `podq download` sync first and the TUI syncs on
    /// start and every ``syncInterval`` (`sync = auto`); false: only `podq sync` and the TUI's key (`sync = off`).
    public var syncAuto = true
    /// Seconds between the TUI's syncs (`sync-interval`, in minutes, 0 to 1440; 0: on start and on the key only).
    public var syncInterval: Double = 15 * 60
    /// The TUI's keys (`key-<action>`).
    public var keys = KeyBindings()
    /// Names with none of `<>:"\\|?*` (`windows-safe-names`): true always, false never, nil (`auto`) on
    /// a FAT, exFAT, NTFS or SMB download folder only.
    public var windowsSafeNames: Bool?

    /// The name rules for new files in `folder`.
    public func nameRules(for folder: String) -> FileNamer.Rules {
        switch windowsSafeNames {
        case true?: .windows
        case false?: .posix
        case nil: FileNamer.Rules.detect(for: folder)
        }
    }

    /// The directories `podq search` and the TUI's `a` ask, in order (`search-providers`); nil: iTunes
    /// and gpodder.net, and Podcast Index too when it has a key.
    public var searchProviders: [Directory]?
    /// Where each directory is asked (`search-itunes-url`, `search-gpodder-url`,
    /// `search-podcastindex-url`); a directory not here is asked at its public endpoint.
    public var searchEndpoints: [Directory: String] = [:]
    /// Podcast Index's key and secret (`podcastindex-key`, `podcastindex-secret`).
    public var podcastIndexKey: String?
    public var podcastIndexSecret: String?

    /// The directories a search asks, and where.
    public var directorySources: [DirectorySearch.Source] {
        let directories = searchProviders ?? ([.itunes, .gpodder] + (podcastIndex == nil ? [] : [.podcastindex]))
        return directories.map { DirectorySearch.Source($0, endpoint: searchEndpoints[$0] ?? $0.defaultEndpoint) }
    }

    /// Podcast Index's login, when both halves are set.
    public var podcastIndex: Directory.Key? {
        guard let key = podcastIndexKey, let secret = podcastIndexSecret else { return nil }
        return Directory.Key(key: key, secret: secret)
    }

    public init() {}
}
