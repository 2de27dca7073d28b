import FoundationEssentials
import Glibc

/// The config's cleanup rules: `cleanup-days`, `keep-episodes` and `cleanup-unplayed`.
public struct CleanupPolicy: Sendable, Equatable {
    /// Remove episodes downloaded more than this many days ago; nil for no age rule.
    public var olderThanDays: Int?
    /// Keep only this many newest completed episodes per podcast; nil for no count rule.
    public var keepNewest: Int?
    /// The rules may delete episodes not yet played too (`cleanup-unplayed`); by default only played
    /// ones go, as in gPodder and AntennaPod: nothing is deleted before it was heard.
    public var unplayedToo: Bool

    public init(olderThanDays: Int? = nil, keepNewest: Int? = nil, unplayedToo: Bool = false) {
        self.olderThanDays = olderThanDays
        self.keepNewest = keepNewest
        self.unplayedToo = unplayedToo
    }

    /// True when a rule is set.
    public var isActive: Bool { olderThanDays != nil || keepNewest != nil }

    /// True when this rule or a podcast's own (`keep`, `size-budget`, `serial`) is set.
    public func isActive(with rules: [Int64: PodcastSettings]) -> Bool {
        isActive || rules.values.contains { $0.keep != nil || $0.sizeBudget != nil || $0.serial != nil }
    }
}

/// Removes the files (and queue rows) of completed feed episodes that the ``CleanupPolicy`` no longer
/// keeps. Only files inside the download folder are deleted; URLs queued by hand, partial files and
/// anything not completed are never touched.
public enum Cleanup {
    /// What a cleanup removed (or, for a dry run, would remove).
    public struct Report: Sendable, Equatable {
        public var removed: [DownloadRecord] = []
        public var bytes: Int64 = 0
        /// Files the rules select that are outside the download folder (the folder changed): kept.
        public var keptOutside: [String] = []
        /// Files the rules select whose name now holds another file than the one podq wrote: kept.
        public var keptNotPodqs: [String] = []
        /// Files the rules select whose name now holds a symbolic link: kept (podq deletes no link).
        public var keptLinks: [String] = []
        /// Episodes the rules would take were they played: kept because nobody played them yet
        /// (``CleanupPolicy/unplayedToo``).
        public var keptUnplayed = 0
        /// Set by an automatic cleanup whose rules changed since the last one: what they would delete,
        /// not deleted this time.
        public var heldBack = 0

        public init() {}
    }

    /// The candidates the rules remove: downloaded before the age limit; past the `keepNewest` most
    /// recently downloaded of their podcast (its own `keep` first); the oldest beyond its own
    /// `size-budget`; and in serial mode, the played ones. Of those, only the played ones unless
    /// `cleanup-unplayed` (the podcast's, else the config's) says otherwise.
    public static func select(
        _ candidates: [CleanupCandidate], policy: CleanupPolicy, rules: [Int64: PodcastSettings] = [:],
        now: Double
    ) -> [CleanupCandidate] {
        var chosen: [Int64: CleanupCandidate] = [:]
        if let days = policy.olderThanDays {
            let cutoff = now - Double(days) * 86_400
            for c in candidates where c.date < cutoff { chosen[c.download.id] = c }
        }
        for (podcast, group) in Dictionary(grouping: candidates, by: \.podcastId) {
            let own = rules[podcast] ?? PodcastSettings()
            let newestFirst = group.sorted { ($0.date, $0.download.id) > ($1.date, $1.download.id) }
            if let keep = own.keep ?? policy.keepNewest {
                for c in newestFirst.dropFirst(keep) { chosen[c.download.id] = c }
            }
            if let budget = own.sizeBudget {
                var total: Int64 = 0
                for c in newestFirst {
                    total += c.size
                    if total > budget { chosen[c.download.id] = c }
                }
            }
            if own.serial != nil {
                for c in group where c.played { chosen[c.download.id] = c }
            }
        }
        // Only played episodes, unless the podcast or the config opts in: an episode never heard stays,
        // whatever the rules say (it still counts toward keep and the size budget).
        return chosen.values.filter { c in c.played || (rules[c.podcastId]?.cleanupUnplayed ?? policy.unplayedToo) }
            .sorted { $0.download.id < $1.download.id }
    }

    /// The rules as one line: the config's and every podcast's own that bear on cleanup. The automatic
    /// cleanup compares it with the last one it applied: rules that changed are said before they delete.
    public static func signature(policy: CleanupPolicy, rules: [Int64: PodcastSettings]) -> String {
        var parts = ["days=\(policy.olderThanDays ?? 0)", "keep=\(policy.keepNewest ?? 0)", "unplayed=\(policy.unplayedToo)"]
        for (id, own) in rules.sorted(by: { $0.key < $1.key }) where own.keep != nil || own.sizeBudget != nil || own.serial != nil || own.cleanupUnplayed != nil
        {
            parts.append(
                "\(id):keep=\(own.keep ?? 0),budget=\(own.sizeBudget ?? 0),serial=\(own.serial ?? 0),unplayed=\(own.cleanupUnplayed.map(String.init) ?? "-")")
        }
        return parts.joined(separator: " ")
    }

    /// How many completed episodes the rules would delete if they were played (those kept only because
    /// nobody played them yet): what `podq set` and a dry run say beside what goes.
    public static func keptUnplayed(
        _ candidates: [CleanupCandidate], policy: CleanupPolicy, rules: [Int64: PodcastSettings] = [:],
        now: Double
    ) -> Int {
        var everything = policy
        everything.unplayedToo = true
        var opened = rules
        for key in opened.keys { opened[key]?.cleanupUnplayed = true }
        let all = select(candidates, policy: everything, rules: opened, now: now).count
        return all - select(candidates, policy: policy, rules: rules, now: now).count
    }

    /// True when `path` itself is a symbolic link.
    static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// Applies `policy`: deletes each selected file, then its row. A file already gone just loses
    /// its row. With `dryRun`, nothing changes and the report says what would go. Files are deleted
    /// through the ``DownloadFolder``: only what lies inside it, reached without a link (a podcast
    /// folder swapped for a link cannot lead a deletion outside).
    /// - Parameters:
    ///   - podcast: only this podcast's episodes (what `podq set` previews); nil for all.
    ///   - removingRows: false in a process that runs the queue: the caller removes the rows of
    ///     ``Report/removed`` through its runner, the one writer of rows there.
    public static func run(
        store: QueueStore, downloadFolder: String, policy: CleanupPolicy, now: Double = Date().timeIntervalSince1970,
        dryRun: Bool = false, podcast: Int64? = nil, removingRows: Bool = true
    ) async throws(StoreError) -> Report {
        var report = Report()
        let rules = try await store.library.podcastRules()
        guard policy.isActive(with: rules), let main = try? DownloadFolder(path: downloadFolder) else { return report }
        var own: [String: DownloadFolder] = [:]
        let candidates = try await store.queue.completedEpisodeDownloads().filter { podcast == nil || $0.podcastId == podcast }
        report.keptUnplayed = keptUnplayed(candidates, policy: policy, rules: rules, now: now)
        for c in select(candidates, policy: policy, rules: rules, now: now) {
            let path = c.download.destination
            // The download folder, or the podcast's own (`podq set <podcast> download-folder=`).
            var folder = main
            if (try? main.relativePath(of: path)) == nil, let ownPath = rules[c.podcastId]?.downloadFolder,
                let opened = own[ownPath] ?? (try? DownloadFolder(path: ownPath))
            {
                own[ownPath] = opened
                folder = opened
            }
            guard let relative = try? folder.relativePath(of: path) else {
                report.keptOutside.append(path)  // outside the folder
                continue
            }
            let identity = folder.identity(of: relative)
            if identity == nil, Self.isLink(path) {
                report.keptLinks.append(path)  // a link at the file's name: said as one, never followed
                continue
            }
            guard identity != nil || !FileManager.default.fileExists(atPath: path) else {
                report.keptOutside.append(path)  // reached only through a linked folder
                continue
            }
            // A dry run says what the real run would do: a file whose identity changed is kept by both.
            if dryRun, let identity, c.download.committedFile?.identity != identity {
                report.keptNotPodqs.append(path)
                continue
            }
            if !dryRun {
                // Only the file podq wrote there; another one (the user's own) is kept, and so is the row.
                guard (try? folder.removeFile(relative, recorded: c.download.committedFile?.identity)) == true else {
                    report.keptNotPodqs.append(path)
                    continue
                }
                if removingRows { try await store.queue.remove(id: c.download.id) }
                if let episode = c.download.episodeId { await store.sync.announceDeleted(episodeIds: [episode]) }
            }
            report.removed.append(c.download)
            report.bytes += identity?.size ?? 0
        }
        return report
    }
}
