import Foundation

/// Chooses the destination of a new download: a safe, unique name in the download folder.
public enum DestinationPlanner {
    /// The path for a bare URL (its last path segment) or `fileName` when given, not colliding with
    /// `reserved` (destinations already queued) nor with files on disk.
    public static func destination(for url: URL, fileName: String? = nil, in folder: String,
                                   reserved: Set<String>) throws(DownloadError) -> String {
        let name = fileName.map { FileNamer.safeName($0) } ?? FileNamer.name(forURL: url)
        return try FileNamer.uniquePath(in: folder, name: name.isEmpty ? "download" : name, reserved: reserved)
    }

    /// The path for a feed episode: `<folder>/<podcast title>/<YYYY-MM-DD> <episode title>.<ext>`, the
    /// extension from the URL's path, else from the enclosure's type (else the download's Content-Type).
    public static func destination(forEpisode episode: EpisodeRecord, podcastTitle: String, in folder: String,
                                   reserved: Set<String>) throws(DownloadError) -> String {
        let show = FileNamer.safeName(podcastTitle, maxBytes: 120)
        let date = episode.published.map { FeedDate.day(Date(timeIntervalSince1970: $0)) + " " } ?? ""
        let urlExt = URL(string: episode.url).map { ($0.path as NSString).pathExtension.lowercased() } ?? ""
        let ext = (!urlExt.isEmpty && urlExt.count <= 5 && urlExt.allSatisfy { $0.isLetter || $0.isNumber }) ? urlExt
            : episode.type.flatMap(FileNamer.fileExtension(forContentType:)) ?? ""
        let suffix = ext.isEmpty ? "" : "." + ext
        var stem = FileNamer.safeName(date + episode.title, maxBytes: FileNamer.maxNameBytes - FileNamer.reservedBytes - suffix.utf8.count)
        if stem.isEmpty { stem = "episode" }
        return try FileNamer.uniquePath(in: folder, name: (show.isEmpty ? "Podcast" : show) + "/" + stem + suffix, reserved: reserved)
    }
}
