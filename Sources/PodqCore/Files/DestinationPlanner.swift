import FoundationEssentials
import Glibc
import PodqBase
import PodqHTTP

/// Chooses the destination of a new download: a safe, unique name in the download folder.
public enum DestinationPlanner {
    /// The path for a bare URL (its last path segment) or `fileName` when given, not colliding with
    /// `reserved` (destinations already queued) nor with files on disk.
    public static func destination(
        for url: URL, fileName: String? = nil, in folder: String,
        reserved: Set<String>, rules: FileNamer.Rules = .posix
    ) throws(DownloadError) -> String {
        let name = fileName.map { FileNamer.safeName($0, rules: rules) } ?? FileNamer.name(forURL: url, rules: rules)
        return try FileNamer.uniquePath(in: folder, name: name.isEmpty ? "download" : name, reserved: reserved)
    }

    /// The path for a feed episode, as `template` places it (by default
    /// `<folder>/<podcast title>/<YYYY-MM-DD> <episode title>.<ext>`), the extension from the URL's
    /// path, else from the enclosure's type (else the download's Content-Type).
    public static func destination(
        forEpisode episode: EpisodeRecord, podcastTitle: String, in folder: String,
        template: FileNameTemplate = .standard,
        reserved: Set<String>, rules: FileNamer.Rules = .posix
    ) throws(DownloadError) -> String {
        let urlExt = URL(string: episode.url).map { LexicalPath.pathExtension(of: $0.path).lowercased() } ?? ""
        let ext =
            (!urlExt.isEmpty && urlExt.count <= 5 && urlExt.allSatisfy { $0.isLetter || $0.isNumber })
            ? urlExt
            : episode.type.flatMap(FileNamer.fileExtension(forContentType:)) ?? ""
        let values = FileNameTemplate.Values(
            podcast: podcastTitle, title: episode.title, ext: ext, guid: episode.guid, id: episode.id,
            season: episode.season, episode: episode.episodeNumber, published: episode.published)
        return try FileNamer.uniquePath(in: folder, name: template.path(for: values, rules: rules), reserved: reserved)
    }
}
