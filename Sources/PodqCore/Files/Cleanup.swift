import Foundation

/// The config's cleanup rules: `cleanup-days` and `keep-episodes`.
public struct CleanupPolicy: Sendable, Equatable {
    /// Remove episodes downloaded more than this many days ago; nil for no age rule.
    public var olderThanDays: Int?
    /// Keep only this many newest completed episodes per podcast; nil for no count rule.
    public var keepNewest: Int?

    public init(olderThanDays: Int? = nil, keepNewest: Int? = nil) {
        self.olderThanDays = olderThanDays
        self.keepNewest = keepNewest
    }

    /// True when a rule is set.
    public var isActive: Bool { olderThanDays != nil || keepNewest != nil }
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

        public init() {}
    }

    /// The candidates the rules remove: downloaded before the age limit, or past the `keepNewest` most
    /// recently downloaded of their podcast.
    public static func select(_ candidates: [CleanupCandidate], policy: CleanupPolicy, now: Double) -> [CleanupCandidate] {
        var chosen: [Int64: CleanupCandidate] = [:]
        if let days = policy.olderThanDays {
            let cutoff = now - Double(days) * 86_400
            for c in candidates where c.date < cutoff { chosen[c.download.id ?? 0] = c }
        }
        if let keep = policy.keepNewest {
            for (_, group) in Dictionary(grouping: candidates, by: \.podcastId) {
                let newestFirst = group.sorted { ($0.date, $0.download.id ?? 0) > ($1.date, $1.download.id ?? 0) }
                for c in newestFirst.dropFirst(keep) { chosen[c.download.id ?? 0] = c }
            }
        }
        return chosen.values.sorted { ($0.download.id ?? 0) < ($1.download.id ?? 0) }
    }

    /// Applies `policy`: deletes each selected file, then its row. A file already gone just loses
    /// its row. With `dryRun`, nothing changes and the report says what would go.
    public static func run(store: QueueStore, downloadFolder: String, policy: CleanupPolicy, now: Double = Date().timeIntervalSince1970,
                           dryRun: Bool = false) throws(StoreError) -> Report {
        var report = Report()
        guard policy.isActive else { return report }
        let folder = resolved(downloadFolder) + "/"
        for c in select(try store.completedEpisodeDownloads(), policy: policy, now: now) {
            // The real folder of the file (a podcast folder swapped for a symlink cannot lead outside).
            let standard = URL(fileURLWithPath: c.download.destination).standardizedFileURL.path
            let path = resolved((standard as NSString).deletingLastPathComponent) + "/" + (standard as NSString).lastPathComponent
            guard path.hasPrefix(folder) else {
                report.keptOutside.append(path)
                continue
            }
            var info = stat()
            let size = lstat(path, &info) == 0 ? Int64(info.st_size) : 0
            if !dryRun {
                if unlink(path) != 0 && errno != ENOENT { continue }  // could not delete: keep the row
                if let id = c.download.id { try store.remove(id: id) }
            }
            report.removed.append(c.download)
            report.bytes += size
        }
        return report
    }

    /// `path` with every symlink resolved; itself when it does not exist.
    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(decoding: UnsafeRawBufferPointer(start: real, count: strlen(real)), as: UTF8.self)
    }
}
