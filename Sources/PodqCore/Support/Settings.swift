import Foundation

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
    /// The TUI's keys (`key-<action>`).
    public var keys = KeyBindings()

    public init() {}

    /// Every key, with its description, for docs and error messages.
    public static let keys: [(key: String, help: String)] = [
        ("simultaneous-downloads", "downloads that run at once, 1 to 64 (default 3)"),
        ("per-host-downloads", "downloads from one host that run at once, 1 to 64 (default 2)"),
        (
            "connections-per-download",
            "connections one large download may use at once when its server allows ranges, 1 to 16; 1 turns segmented downloads off (default 4)"
        ),
        (
            "polite-hosts",
            "hosts that get one connection per download, separated by commas, e.g. \"feeds.example.com, cdn.example.org\" (default none; a host that answers 429 or 503 is added for the run)"
        ),
        ("rate-limit", "the speed limit all downloads share, like curl's --limit-rate: 500K, 2M, or 0 for none (default 0)"),
        ("download-folder", "where files go, a path (default: $PODQ_HOME/downloads, else ~/Podcasts)"),
        (
            "file-name-template",
            "where a feed episode's file goes inside the download folder: {podcast}, {title}, {ext}, {date} or {date:%Y-%m-%d %H%M}, {season}, {episode} or {episode:03}, {guid}, {id}; a / makes a folder (default \"{podcast}/{date:%Y-%m-%d} {title}.{ext}\")"
        ),
        ("max-attempts", "attempts before a download is marked failed, 1 to 100 (default 5)"),
        ("retry-delay", "seconds before the first retry, doubled each time, with jitter (default 2)"),
        ("retry-max-delay", "the longest wait between attempts in seconds (default 300)"),
        ("stall-timeout", "seconds without a byte before an attempt is abandoned (default 30)"),
        ("response-timeout", "seconds a server may take to send its answer's headers once it has the request (default 30)"),
        ("fetch-timeout", "seconds a feed, a web page, a transcript, chapters or an image may take to come whole, however its bytes trickle in (default 120)"),
        ("mouse", "false to leave the mouse to the terminal; true (default): a click selects a row or a view, the wheel scrolls"),
        ("auto-queue", "true to queue every podcast's new episodes on refresh (default false: only podcasts added with --auto)"),
        ("feed-size-limit", "the largest feed podq reads, in MB (default 50)"),
        (
            "checksum",
            "podq's own checksum of every downloaded file, which podq verify checks: xxh3 (default, nearly free) or sha256 (costs about 0.5 s of CPU a GB); a publisher's hash is checked with its own algorithm either way"
        ),
        (
            "sidecars",
            "true to keep each feed episode offline-complete: its transcript, chapters JSON, image and a metadata .json beside the file (default false)"
        ),
        (
            "transcript-types",
            "the transcript types sidecars prefers, in order, separated by commas (default \"text/vtt, application/x-subrip, application/srt, application/json, text/html, text/plain\")"
        ),
        ("playlist", "true to write an M3U playlist (podq <date> <time>.m3u8, UTF-8) of each run's new downloads in the download folder (default false)"),
        ("log-size", "the size in MB at which podq.log is rotated (3 old logs are kept), 0 for no log file (default 1)"),
        ("cleanup-days", "delete the files of played feed episodes downloaded more than N days ago, 0 for never (default 0)"),
        ("keep-episodes", "keep the files of only the N most recently downloaded episodes of each podcast, deleting older played ones, 0 for all (default 0)"),
        (
            "cleanup-unplayed",
            "true to let cleanup-days, keep-episodes and each podcast's keep and size-budget delete episodes not yet played too (default false: only played ones)"
        ),
        (
            "key-<action>",
            "a TUI key for an action, one character: key-cancel = C. Actions: " + KeyBindings.Action.allCases.map(\.rawValue).joined(separator: ", ")
        ),
        (
            "user-agent",
            "the User-Agent header podq sends (default: podq/<version> (+<project URL>), retried once as Mozilla/5.0 (compatible; podq/<version>) when a web firewall answers 403)"
        ),
        (
            "proxy",
            "the proxy for feeds and media, as curl's -x: http://host:port, http://user:pass@host:port or socks5://host:port (default: http_proxy, https_proxy, all_proxy and no_proxy from the environment)"
        ),
        (
            "password-command",
            "a command that prints a private feed's password, run by sh; %u is the user name, %h the host (e.g. \"pass show podcasts/%h\"); for podcasts added with --user and no password of their own"
        ),
        (
            "on-complete",
            "a command run for every finished download, directly (no shell): its words split on spaces, the file added at the end or put at %f; PODQ_FILE, PODQ_TITLE, PODQ_PODCAST, PODQ_URL and PODQ_ID in its environment; its status and output go to the log, and it never fails the download (default none)"
        ),
        ("hook-timeout", "seconds an on-complete command may run before it is stopped (default 60)"),
        ("player", "the program that plays an episode, the file added at the end or put at %f (default: the first of mpv, ffplay, vlc, xdg-open found)"),
    ]
}
