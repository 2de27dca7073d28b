import FoundationEssentials
import Glibc
import PodqBase
import PodqCore

/// One thing to put on the queue, as a command hands it over.
package struct DownloadItem: Sendable, Equatable {
    package var url: URL
    /// The title to show; the file name when nil.
    package var title: String?
    /// The file name to use; the URL's last path segment when nil.
    package var fileName: String?
    package var podcast: String?

    package init(url: URL, title: String?, fileName: String? = nil, podcast: String? = nil) {
        self.url = url
        self.title = title
        self.fileName = fileName
        self.podcast = podcast
    }
}

/// Where new rows go: straight to the store, or, in a process that runs the queue (the TUI), through
/// its ``QueueRunner``, the one writer of rows there.
package enum QueueWriter: Sendable {
    case store(QueueStore)
    case runner(QueueRunner)

    /// Adds `items` in one transaction and returns the rows made.
    @discardableResult
    package func add(_ items: [NewDownload]) async throws -> [DownloadRecord] {
        guard !items.isEmpty else { return [] }
        switch self {
        case .store(let store): return try await store.queue.add(items)
        case .runner(let runner): return try await runner.add(items)
        }
    }
}

/// What new downloads are called and where they go: safe, unique names in the download folder.
package struct QueuePlanning {
    package let context: QueueContext

    package init(context: QueueContext) { self.context = context }

    /// `items` without the ones given again (`podq queue add URL URL`: one download, not two), in the
    /// order given, and the repeats apart for the command to say.
    package static func distinct<Item, Key: Hashable>(_ items: [Item], by key: (Item) -> Key) -> (kept: [Item], repeated: [Item]) {
        var seen = Set<Key>()
        var kept: [Item] = []
        var repeated: [Item] = []
        for item in items {
            if seen.insert(key(item)).inserted { kept.append(item) } else { repeated.append(item) }
        }
        return (kept, repeated)
    }

    /// The rows to add for `items`; a URL already waiting in the queue is skipped (returned apart).
    package func downloads(for items: [DownloadItem]) async throws -> (new: [NewDownload], skipped: [DownloadRecord]) {
        do {
            let existing = try await context.store.queue.downloads()
            var reserved = Set(existing.map(\.destination))
            var new: [NewDownload] = []
            var skipped: [DownloadRecord] = []
            for item in Self.distinct(items, by: \.url.absoluteString).kept {
                if let same = existing.first(where: { $0.url == item.url.absoluteString && $0.state != .completed && $0.state != .cancelled }) {
                    skipped.append(same)
                    continue
                }
                let folder = context.paths.downloadFolder
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                let path = try DestinationPlanner.destination(
                    for: item.url, fileName: item.fileName, in: folder, reserved: reserved, rules: context.settings.nameRules(for: folder))
                reserved.insert(path)
                let title = item.title.map(SafeText.clean) ?? LexicalPath.lastComponent(of: path)
                new.append(
                    NewDownload(
                        url: item.url.absoluteString, title: title, podcast: item.podcast, destination: path,
                        folder: Self.folder(of: path, in: folder)))
            }
            return (new, skipped)
        } catch {
            throw CommandError(error)
        }
    }

    /// A download added by its URL, fetched again (`queue add --again d7`, or `--replace d7`: the new file
    /// then takes the old one's name): its URL, title and folder, under a free name until it completes.
    package func again(_ row: DownloadRecord, replace: Bool) async throws -> NewDownload {
        guard row.state == .completed, let url = URL(string: row.url) else {
            throw CommandError(
                "\(ItemKind.download.label(row.id)) is \(row.state.rawValue): --again and --replace fetch a completed download anew", code: ExitCodes.usage
            )
        }
        do {
            let reserved = try await context.store.queue.destinations()
            let path = try DestinationPlanner.destination(
                for: url, fileName: LexicalPath.lastComponent(of: row.destination), in: row.folderPath, reserved: reserved,
                rules: context.settings.nameRules(for: row.folderPath))
            return NewDownload(
                url: row.url, title: row.title, podcast: row.podcast, destination: path, folder: row.folderPath,
                bytesExpected: row.bytesExpected, replaces: replace ? row.id : nil)
        } catch {
            throw CommandError(error)
        }
    }

    /// The rows to add for feed episodes, with their product names; an episode already queued (and not
    /// cancelled) is skipped.
    package func downloads(forEpisodes episodeIds: [Int64]) async throws -> [NewDownload] {
        try await plan(forEpisodes: episodeIds).new
    }

    /// The rows to add for feed episodes, and the rows of those already queued or downloaded (which
    /// are not added again: the caller says so).
    /// - Parameter again: a completed one is downloaded again (`queue add --again`), beside the old file,
    ///   or, with `replace`, to take its place once it is complete (`--replace`).
    package func plan(forEpisodes episodeIds: [Int64], again: Bool = false, replace: Bool = false) async throws -> (
        new: [NewDownload], skipped: [DownloadRecord]
    ) {
        do {
            var reserved = try await context.store.queue.destinations()
            var new: [NewDownload] = []
            var skipped: [DownloadRecord] = []
            for id in Self.distinct(episodeIds, by: \.self).kept {
                let (episode, podcast) = try await context.store.library.episode(id: id)
                var replaces: Int64?
                if let downloadId = episode.downloadId, let existing = try await context.store.queue.download(id: downloadId), existing.state != .cancelled {
                    guard (again || replace) && existing.state == .completed else {
                        skipped.append(existing)
                        continue
                    }
                    if replace { replaces = downloadId }
                }
                // The podcast's own folder and template (`podq set`), unless --download-dir was given.
                let rules = podcast.rules
                let folder = (context.downloadDirGiven ? nil : rules.downloadFolder) ?? context.paths.downloadFolder
                let template = rules.fileNameTemplate.flatMap { try? FileNameTemplate($0) } ?? context.settings.fileNameTemplate
                let path = try DestinationPlanner.destination(
                    forEpisode: episode, podcastTitle: podcast.title, in: folder,
                    template: template, reserved: reserved, rules: context.settings.nameRules(for: folder))
                reserved.insert(path)
                new.append(
                    NewDownload(
                        url: episode.url, title: "\(podcast.title) — \(episode.title)", podcast: podcast.title,
                        destination: path, folder: Self.folder(of: path, in: folder), episodeId: id,
                        bytesExpected: episode.length, replaces: replaces))
            }
            return (new, skipped)
        } catch {
            throw CommandError(error)
        }
    }

    /// The download folder as the row keeps it: the one `path` was planned in, resolved as
    /// ``FileNamer/contained(_:in:)`` resolved it.
    package static func folder(of path: String, in folder: String) -> String {
        URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
