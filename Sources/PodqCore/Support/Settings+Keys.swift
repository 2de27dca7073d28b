import FoundationEssentials
import Glibc

extension Settings {
    /// One key of the config file, as docs/CONFIG.md's table shows it (generated from here: `make docs`).
    public struct Key: Sendable {
        /// The key, as written in the file.
        public let name: String
        /// What an absent key means, in markdown.
        public let defaultValue: String
        /// What the key does and what values it takes, in markdown.
        public let meaning: String
    }

    /// Every key of the config file, in the order docs/CONFIG.md lists them; a key the reader
    /// knows and this leaves out fails DocsTests.
    public static let keys: [Key] = [
        Key(
            name: "sync", defaultValue: #"`auto`"#,
            meaning:
                #"logged in to a sync server (`podq sync login`, SYNC.md), `auto` makes `podq refresh` and `podq download` sync first (a sync that fails is said and changes nothing else) and the TUI sync when it starts and every `sync-interval` minutes, in the background; `off`: only `podq sync` and `y` in the TUI"#
        ),
        Key(
            name: "sync-interval", defaultValue: #"`15`"#,
            meaning: #"minutes between the TUI's syncs with `sync = auto`, 0 to 1440; `0`: when it starts and on `y` only"#),
        Key(
            name: "simultaneous-downloads", defaultValue: #"`3`"#,
            meaning: #"downloads that run at once, 1 to 64; `--jobs` overrides it for one run"#),
        Key(
            name: "rate-limit", defaultValue: #"`0` (none)"#,
            meaning:
                #"the speed limit all running downloads share, bytes a second, or with `K`/`M` (1000, 1000²: the units podq shows speeds in; `KiB`/`MiB` for 1024, 1024²): `500K`, `2M`; at least `10K`; `0` for none. `--limit-rate` overrides it for one run; `<`/`>` in the TUI halve or double it and save it here"#
        ),
        Key(
            name: "connections-per-download", defaultValue: #"`4`"#,
            meaning:
                #"connections one download may use at once when its server takes ranges, its digest is known before its bytes (the feed's hash, the server's `Repr-Digest`) and one connection would take more than 2 s, 1 to 16; 1 turns segmented downloads off; connections to one host stay under the larger of this and `per-host-downloads` (which `]`/`[` in the TUI change at once); `--connections` overrides it for one run (FILES.md, "Segmented downloads")"#
        ),
        Key(
            name: "polite-hosts", defaultValue: #"none"#,
            meaning:
                #"hosts, separated by commas, that get one connection per download (a host's subdomains too); a host that answers 429 or 503 is treated so for the rest of the run"#
        ),
        Key(
            name: "per-host-downloads", defaultValue: #"`2`"#,
            meaning:
                #"downloads from one host that run at once, 1 to 64, so that one server or CDN is not hammered (counted by the host of the episode's URL, before redirects); `--per-host` overrides it for one run"#
        ),
        Key(
            name: "download-folder", defaultValue: #"`$PODQ_HOME/downloads`, else `~/Podcasts`"#,
            meaning: #"where new files go; `--download-dir` overrides it"#),
        Key(
            name: "file-name-template", defaultValue: #"`{podcast}/{date:%Y-%m-%d} {title}.{ext}`"#,
            meaning:
                #"where a feed episode's file goes inside the download folder. Fields: `{podcast}`, `{title}`, `{ext}`, `{guid}`, `{id}` (podq's episode id), `{season}` and `{episode}` with an optional width (`{episode:03}` is `007`), `{date}` or `{date:FORMAT}` with `%Y %y %m %d %H %M %S %j %%` (the publication time, UTC). The template's own `/` make folders (an empty one is left out); a value never does: `AC/DC` is `AC_DC`, and every name is made safe and short as in FILES.md. The file name must have `{title}`, `{guid}`, `{id}`, `{episode}` or `{date}`. Checked when the config is read: a mistake stops podq with its line and what to write. A bare URL keeps its own name"#
        ),
        Key(
            name: "windows-safe-names", defaultValue: #"`auto`"#,
            meaning:
                #"`true`: file and folder names have none of `<>:"\|?*` (each becomes `_`), as Windows needs; `false`: only `/` is replaced, so "Talk: A Show" keeps its colon; `auto`: `true` when the download folder is on a FAT, exFAT, NTFS or SMB file system (a USB stick, a Windows partition, a NAS share), else `false`"#
        ),
        Key(
            name: "max-attempts", defaultValue: #"`5`"#,
            meaning: #"attempts before a download with temporary errors is marked `failed`, 1 to 100"#),
        Key(
            name: "retry-delay", defaultValue: #"`2`"#,
            meaning: #"seconds before the first retry; doubled each time, times a random 0.5–1.5"#),
        Key(
            name: "retry-max-delay", defaultValue: #"`300`"#,
            meaning: #"the longest wait between two attempts, in seconds (a server's `Retry-After` wins, up to an hour)"#),
        Key(
            name: "stall-timeout", defaultValue: #"`30`"#,
            meaning:
                #"seconds the body may go without a byte while podq waits for one (time spent writing or under the speed limit does not count) before an attempt is abandoned (the partial file is kept)"#
        ),
        Key(
            name: "response-timeout", defaultValue: #"`30`"#,
            meaning:
                #"seconds a server may take, from the request, to send a complete head (status line and headers), however its bytes trickle in. A head longer than 64 KiB is refused as soon as it passes that, whatever this says"#
        ),
        Key(
            name: "fetch-timeout", defaultValue: #"`120`"#,
            meaning:
                #"seconds a feed, a web page, a transcript, chapters, an image or a sync server's answer may take to come whole (head and body, every redirect on the way included), however its bytes trickle in: a slow server never holds a refresh, a run or the queue's lock longer. Media files have none (they resume)"#
        ),
        Key(
            name: "mouse", defaultValue: #"`true`"#,
            meaning:
                #"`false` leaves the mouse to the terminal (selecting text); `true`: in the TUI a click selects a row or opens a view, the wheel moves the selection"#
        ),
        Key(
            name: "auto-queue", defaultValue: #"`false`"#,
            meaning: #"`true`: `podq refresh` queues the new episodes of every podcast, not only of those added with `--auto`"#),
        Key(
            name: "feed-size-limit", defaultValue: #"`50`"#,
            meaning: #"the largest feed podq reads, in MB (1 to 2000)"#),
        Key(
            name: "log-size", defaultValue: #"`1`"#,
            meaning:
                #"the size in MB (0 to 100) at which `podq.log` in the home is rotated to `podq.log.1`; three old logs are kept, so the log never takes more than 4× this; `0` writes no log"#
        ),
        Key(
            name: "player", defaultValue: #"the first of `mpv`, `ffplay -nodisp -autoexit`, `vlc --play-and-exit`, `xdg-open` on `PATH`"#,
            meaning:
                #"the program `o` in the TUI and `podq play` run: its words split on spaces, the file's path added at the end, or put where `%f` is (`player = "mpv --no-video %f"`). Run directly, not through a shell. With mpv, the position is followed and stored, and when it fails its reason is shown. On a machine without a sound device mpv fails ("Could not open/initialize audio device"): start its sound server, or play the files elsewhere; `mpv --ao=null` plays silently (TROUBLESHOOTING.md, "Playing")"#
        ),
        Key(
            name: "user-agent", defaultValue: #"`podq/<version> (+<project URL>)`"#,
            meaning:
                #"the `User-Agent` header of every request (printable ASCII). Unset, podq sends its own and, when a web firewall answers 403 to it, retries once as `Mozilla/5.0 (compatible; podq/<version>)` and keeps that for the host for the run (FEEDS.md); set, it is sent as it is"#
        ),
        Key(
            name: "proxy", defaultValue: #"none: `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` from the environment"#,
            meaning:
                #"the proxy for feeds and media, as curl's `-x` (it wins over the variables; `no_proxy` still applies): `http://host:port`, `http://user:pass@host:port` or `socks5://host:port` (FEEDS.md, "Proxies")"#
        ),
        Key(
            name: "on-complete", defaultValue: #"none"#,
            meaning:
                #"a command run for every finished download (headless and in the TUI), directly, not through a shell: its words split on spaces (as `player`'s), the file's path added as the last argument or put where `%f` is (`on-complete = "beet import -q %f"`). Its environment adds `PODQ_FILE`, `PODQ_TITLE` (the episode's title), `PODQ_PODCAST`, `PODQ_URL`, `PODQ_ID` (the queue row), each cleaned of control characters, `PODQ_SHA256` (the file's SHA-256, computed as it streamed because a hook is set) and `PODQ_VERIFIED` (what verified the file, FILES.md "Integrity", or `unverified`). It runs after the file is committed and the row completed: its exit status and the first 16 KB of what it printed (however much that was) go to the log (`hook finished`, `hook failed`), and it never fails or changes the download. `podq download` waits for the hooks still running before it exits, the TUI at quit, and each says so (`waiting for 1 on-complete hook to finish`)"#
        ),
        Key(
            name: "sidecars", defaultValue: #"`false`"#,
            meaning:
                #"`true` keeps each feed episode offline-complete: once its file is committed, its transcript (`podcast:transcript`, the first of `transcript-types` the feed offers), its chapters (`podcast:chapters`, kept only when it is JSON), its image (the episode's, else the podcast's; kept only when it is a JPEG, PNG, WebP or GIF) and a metadata `<file>.json` are written beside it (FILES.md). Each is at most 20 MB; one that cannot be fetched is logged and left out, never failing the download. The `on-complete` hook runs after them. The file itself is never changed: no tags are written into it, so its checksum stays the publisher's"#
        ),
        Key(
            name: "transcript-types", defaultValue: #"`text/vtt, application/x-subrip, application/srt, application/json, text/html, text/plain`"#,
            meaning: #"the transcript types `sidecars` prefers, in order"#),
        Key(
            name: "playlist", defaultValue: #"`false`"#,
            meaning:
                #"`true` writes an M3U playlist of each run's new downloads in the download folder, `podq <date> <time>.m3u8` (UTF-8), when `podq download` ends or the TUI quits, if something completed (FILES.md)"#
        ),
        Key(
            name: "checksum", defaultValue: #"`xxh3`"#,
            meaning:
                #"podq's own checksum of every file, computed as it streams and checked by `podq verify`: `xxh3` (XXH3-128, nearly free) or `sha256` (about 0.5 s of CPU a GB). A publisher's or server's hash is checked with its own algorithm either way (FILES.md, "Integrity")"#
        ),
        Key(
            name: "hook-timeout", defaultValue: #"`60`"#,
            meaning:
                #"seconds an `on-complete` command may run; then it and everything it started (it runs in a session of its own) get SIGTERM, and SIGKILL 2 s later; the log says `hook timed out`"#
        ),
        Key(
            name: "password-command", defaultValue: #"none"#,
            meaning:
                #"a command that prints a private feed's password, run by `sh -c` when needed (`%u` the user name, `%h` the feed's host, each quoted): `password-command = "pass show podcasts/%h"`. For podcasts added with `--user` and no password of their own (FEEDS.md)"#
        ),
        Key(
            name: "cleanup-days", defaultValue: #"`0` (never)"#,
            meaning:
                #"delete the files of **played** feed episodes downloaded more than N days ago (0 to 36500). Counted from the download, not the publication date, so an old episode fetched today is not deleted at once"#
        ),
        Key(
            name: "keep-episodes", defaultValue: #"`0` (all)"#,
            meaning: #"keep the files of only the N most recently downloaded episodes of each podcast, deleting older **played** ones (0 to 100000)"#),
        Key(
            name: "cleanup-unplayed", defaultValue: #"`false`"#,
            meaning:
                #"`true` lets `cleanup-days`, `keep-episodes` and a podcast's `keep` and `size-budget` delete episodes not yet played too. By default, as in gPodder and AntennaPod, nothing is deleted before it was played (`m` in the TUI marks it). When these rules (or a podcast's) change, the next automatic cleanup (after `podq download`, `podq refresh`, in the TUI) deletes nothing and says what they would delete (`podq cleanup --dry-run` lists it); the run after applies them. `podq set` says it at once"#
        ),
        Key(
            name: "search-providers", defaultValue: #"`itunes gpodder`, and `podcastindex` when it has a key"#,
            meaning:
                #"the podcast directories `podq search` and the TUI's `a` ask, at once, separated by spaces: `itunes` (Apple's iTunes Search API), `gpodder` (gpodder.net), `podcastindex` (Podcast Index, with `podcastindex-key`)"#
        ),
        Key(
            name: "search-itunes-url", defaultValue: #"`https://itunes.apple.com/search`"#,
            meaning: #"where the iTunes Search API is asked (a mirror, a test server)"#),
        Key(
            name: "search-gpodder-url", defaultValue: #"`https://gpodder.net/search.json`"#,
            meaning: #"where gpodder.net's search is asked"#),
        Key(
            name: "search-podcastindex-url", defaultValue: #"`https://api.podcastindex.org/api/1.0/search/byterm`"#,
            meaning: #"where Podcast Index's search is asked"#),
        Key(
            name: "podcastindex-key", defaultValue: #"none"#,
            meaning:
                #"Podcast Index's API key and, in `podcastindex-secret`, its secret (free at https://api.podcastindex.org): with both, searches ask Podcast Index too. The secret is sent only as the SHA-1 Podcast Index asks for, never printed"#
        ),
        Key(
            name: "podcastindex-secret", defaultValue: #"none"#,
            meaning: #"Podcast Index's API secret, with `podcastindex-key`"#),
        Key(
            name: "key-<action>", defaultValue: #"see below"#,
            meaning: #"the TUI's letter for an action: one visible character"#),
    ]
}
