import FoundationEssentials
import Glibc
import PodqBase
import PodqCore

extension QueueSession {
    /// Which cap a ``Command/setLimit(_:)`` or ``Command/setPerHost(_:)`` changed.
    package enum Cap: Sendable, Equatable {
        case downloads, perHost
    }

    /// What a ``Command`` did, as values a front end can act on (the TUI shows a podcast it subscribed
    /// to); ``line`` words it, the one place these lines are written.
    package enum Outcome: Sendable {
        case performed(DownloadEvent, id: Int64)
        case performedMany(DownloadEvent, count: Int)
        case startsNext(id: Int64)
        case moved
        /// Already first (or last): it cannot move further.
        case cannotMove(id: Int64, first: Bool)
        case pausedAll(Int, paused: Bool)
        case removed(id: Int64, deletedFile: Bool)
        case removedMany(Int, deletedFiles: Bool)
        /// Rows made from URLs.
        case added([DownloadRecord])
        /// Rows made for `asked` episodes; `skipped`: those already in the queue.
        case queued([DownloadRecord], skipped: [DownloadRecord], asked: Int)
        case markedPlayed([Int64], Bool)
        case subscribed(FeedRefresh.Outcome)
        case alreadySubscribed(PodcastRecord)
        case unsubscribed
        case refreshed([FeedRefresh.Outcome])
        /// A podcast's downloaded files asked about at the server: `changed` of `checked` differ there.
        case checkedUpstream(PodcastRecord, checked: Int, changed: Int)
        case directory(words: String, DirectorySearch.Answer)
        /// A cap now `value`; `savedIn`: the config file it was kept in.
        case limit(Cap, Int, savedIn: String?)
        /// The speed limit now (nil: none); `changed` false: there was none to raise.
        case rate(Int?, changed: Bool, savedIn: String?)
        case synced(SyncRun.Report)
        /// A sync on a timer without an account: nothing was done.
        case noSyncAccount
        /// What was heard of download `id`'s episode was stored: said (nil: nothing heard to keep).
        case recordedListening(download: Int64, String?)

        /// True when it did not all work (a feed of a refresh failed): the line is said as an error.
        package var failed: Bool {
            if case .refreshed(let outcomes) = self { return outcomes.contains(where: \.failed) }
            return false
        }

        /// The line to say, or nil when there is nothing to say. Pure: it reads only the outcome.
        package var line: String? {
            switch self {
            case .performed(let event, let id):
                return "\(event.verb) \(ItemKind.download.label(id))"
                    + (event == .cancel ? " (its partial file is deleted)" : event == .pause ? " (its partial file is kept)" : "")
            case .performedMany(let event, let count):
                return "\(event.verb) \(Counted.of(count, "download"))"
                    + (event == .cancel ? " (partial files deleted)" : event == .pause ? " (partial files kept)" : "")
            case .startsNext(let id):
                return "\(ItemKind.download.label(id)) starts next"
            case .moved:
                return nil
            case .cannotMove(let id, let first):
                return "\(ItemKind.download.label(id)) is already \(first ? "first" : "last")"
            case .pausedAll(let count, let paused):
                return paused ? "paused \(Counted.of(count, "download")); P resumes them" : "resumed \(Counted.of(count, "download"))"
            case .removed(let id, let deletedFile):
                return "removed \(ItemKind.download.label(id))" + (deletedFile ? " and deleted its file" : "")
            case .removedMany(let count, let deletedFiles):
                return "removed \(Counted.of(count, "row"))" + (deletedFiles ? " and deleted their completed files" : "; files kept")
            case .added(let rows):
                return "queued \(Counted.of(rows.count, "download"))"
            case .queued(let made, let skipped, let asked):
                if asked == 0 { return "nothing new to queue" }
                if asked == 1 {
                    if let row = made.first { return "queued \(row.title) as \(ItemKind.download.label(row.id))" }
                    guard let existing = skipped.first else { return "that episode is already in the queue (Downloads view: 1)" }
                    return existing.state == .completed
                        ? "already downloaded as \(ItemKind.download.label(existing.id)): \(existing.destination)"
                        : "already in the queue as \(ItemKind.download.label(existing.id)) (\(existing.state.rawValue))"
                }
                return "queued \(Counted.of(made.count, "episode"))" + (skipped.isEmpty ? "" : "; \(skipped.count) already in the queue")
            case .markedPlayed(let ids, let played):
                return "marked \(ids.count == 1 ? ItemKind.episode.label(ids[0]) : "\(ids.count) episodes") \(played ? "played" : "not played")"
            case .subscribed(let outcome):
                return outcome.line
            case .alreadySubscribed(let podcast):
                return "already subscribed to \(SafeText.clean(podcast.title)) (\(ItemKind.podcast.label(podcast.id)))"
            case .unsubscribed:
                return "unsubscribed; downloaded files are kept"
            case .refreshed(let outcomes):
                return Self.refreshSummary(outcomes)
            case .checkedUpstream(let podcast, let checked, let changed):
                return "\(SafeText.clean(podcast.title)): \(Counted.of(checked, "downloaded file")) checked with the server, \(changed) changed upstream"
                    + (changed > 0 ? " (podq episodes --updated)" : "")
            case .directory(_, let answer):
                guard !answer.failures.isEmpty else { return nil }
                let failures = DirectoryLookup.failureLine(answer.failures)
                return answer.answered.isEmpty ? "No directory could be searched: \(failures)" : failures
            case .limit(let cap, let value, let savedIn):
                let what = cap == .downloads ? "\(Counted.of(value, "download")) at once" : "\(Counted.of(value, "download")) at once from one host"
                return what + (savedIn.map { " (saved in \($0))" } ?? "")
            case .rate(let value, let changed, let savedIn):
                guard changed else { return "there is no speed limit" }
                return (value.map { "speed limit " + Format.bytes(Int64($0)) + "/s" } ?? "no speed limit") + (savedIn.map { " (saved in \($0))" } ?? "")
            case .synced(let report):
                return report.line.replacingEvery("\n", with: "; ")
            case .noSyncAccount:
                return nil
            case .recordedListening(let id, let said):
                return said.map { "\(ItemKind.download.label(id)): \($0)" }
            }
        }

        /// What a refresh of every feed did, in one message: every feed with new episodes, every failure
        /// and every note (a move, repairs), and how many had nothing new.
        static func refreshSummary(_ outcomes: [FeedRefresh.Outcome]) -> String {
            let told = outcomes.filter { $0.failed || $0.newCount > 0 || $0.line.contains(";") }
            let quiet = outcomes.count - told.count
            let new = outcomes.reduce(0) { $0 + $1.newCount }
            var head = "refreshed \(outcomes.count) feed\(outcomes.count == 1 ? "" : "s"): \(new) new episode\(new == 1 ? "" : "s")"
            if quiet > 0 { head += ", \(quiet) with nothing new" }
            return ([head] + told.map(\.line)).joined(separator: " · ")
        }
    }
}
