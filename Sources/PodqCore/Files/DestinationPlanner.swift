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
}
