import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import Synchronization

/// The config's `playlist = true` (issue 18, point 9): an extended M3U playlist (UTF-8, `.m3u8`) of
/// each run's new downloads, written in the download folder when the run ends (`podq download`, the TUI
/// at quit), in the order they completed. It is made as every file there is: claimed, written and
/// committed through the ``DownloadFolder`` (never over another file). Paths are relative to the
/// download folder, so the folder can be synced to a phone as it is; a podcast's own folder elsewhere
/// is written absolute.
package final class RunPlaylist: Sendable {
    private let context: QueueContext
    private let completed = Mutex<[(id: Int64, path: String)]>([])
    private let started = Date()

    /// Nil when the config does not ask for playlists.
    package init?(context: QueueContext) {
        guard context.settings.playlist else { return nil }
        self.context = context
    }

    /// Notes a download's completion.
    package func handle(_ event: QueueRunner.Event) {
        guard case .completed(let id, _, let path, _, _) = event else { return }
        completed.withLock { $0.append((id, path)) }
    }

    /// A file's line in the playlist: a relative path that starts with `#` would read as a comment (players
    /// skip it), so it is written `./#…`.
    package static func entry(_ path: String) -> String {
        path.hasPrefix("#") ? "./" + path : path
    }

    /// Writes the playlist when something completed; returns its path (nil: nothing to write, or it
    /// could not be written, which is logged).
    package func write() async -> String? {
        let entries = completed.withLock { $0 }
        guard !entries.isEmpty else { return nil }
        let root = context.paths.downloadFolder
        var text = "#EXTM3U\n"
        for (id, path) in entries {
            let row = try? await context.store.queue.download(id: id)
            var episode: (episode: EpisodeRecord, podcast: PodcastRecord)?
            if let id = row?.episodeId { episode = try? await context.store.library.episode(id: id) }
            let seconds = episode?.episode.duration ?? -1
            let title = episode.map { "\($0.podcast.title) - \($0.episode.title)" } ?? row?.title ?? LexicalPath.lastComponent(of: path)
            // One line each: a title from a feed never breaks the file.
            text += "#EXTINF:\(seconds),\(SafeText.clean(title).replacingEvery("\n", with: " "))\n"
            let prefix = root.hasSuffix("/") ? root : root + "/"
            text += Self.entry(path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path) + "\n"
        }
        let name = "podq \(LocalTime.text(started, format: "%Y-%m-%d %H%M")).m3u8"
        do {
            let path = try await DownloadFolder(path: root).writeFile(name, bytes: Array(text.utf8))
            context.log.info("playlist written", metadata: ["file": "\(path)", "entries": "\(entries.count)"])
            return path
        } catch {
            context.log.error("playlist not written", metadata: ["reason": "\(error)"])
            return nil
        }
    }
}
