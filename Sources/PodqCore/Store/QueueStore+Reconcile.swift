import FoundationEssentials
import Glibc

extension QueueStore {
    /// What ``reconcile()`` changed.
    public struct Reconciliation: Sendable, Equatable {
        /// Downloads that were running when the last runner died, queued again.
        public var requeued: [Int64] = []
        /// Downloads whose file podq had committed (renamed just before a crash), marked completed.
        public var completed: [Int64] = []
        /// Partial files of cancelled downloads, deleted.
        public var deletedPartials: [String] = []
    }

    /// Makes the store agree with the disk, at start-up and under the ``HomeLock``: a download left
    /// `downloading` is queued again (its `.part` resumes), the partial of a cancelled download is
    /// deleted, and bytes received are read from the partial file.
    ///
    /// It adopts nothing it did not write: an unfinished row becomes completed only when the file at
    /// the path its commit recorded is the very file it recorded (device, inode, size and time); any
    /// other file there is somebody else's, and the download runs into a free name. Nothing else on
    /// disk is touched, and nothing is reached through a link.
    @discardableResult
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func reconcile() throws(StoreError) -> Reconciliation {
        var report = Reconciliation()
        var folders: [String: DownloadFolder?] = [:]
        for row in try queue.downloads() {
            let id = row.id
            guard row.state != .completed else { continue }
            if folders[row.folderPath] == nil { folders[row.folderPath] = try? DownloadFolder(path: row.folderPath) }
            guard let folder = folders[row.folderPath] ?? nil, let relative = try? folder.relativePath(of: row.destination) else {
                continue  // a folder that cannot be opened: the download says why when it runs
            }
            var info = stat()
            let hasPartial = lstat(row.partialPath, &info) == 0
            if row.state == .cancelled {
                if hasPartial && folder.removePartial(relative) { report.deletedPartials.append(row.partialPath) }
                continue
            }
            if let (path, identity) = row.committedFile, let committed = try? folder.relativePath(of: path),
                folder.identity(of: committed) == identity
            {
                // A commit by hard link (file systems without RENAME_NOREPLACE) may leave the partial's
                // name on the same file: only that name goes.
                if folder.identity(of: relative + ".part") == identity { folder.removePartial(relative) }
                try queue.update(id: id) {
                    $0.state = .completed
                    $0.destination = path
                    $0.bytesReceived = identity.size
                    $0.bytesExpected = $0.bytesExpected ?? identity.size
                    $0.lastError = nil
                    $0.completedAt = $0.completedAt ?? Date().timeIntervalSince1970
                }
                report.completed.append(id)
                continue
            }
            // A segmented partial has holes: its map says what it holds.
            let size = folder.partialSize(relative)
            // (A map that cannot be read counts nothing: that partial starts again from 0.)
            let partial = size == 0 ? 0 : row.segments == nil ? size : row.segmentMap?.downloaded ?? 0
            let wasRunning = row.state == .downloading
            if wasRunning { report.requeued.append(id) }
            if wasRunning || row.bytesReceived != partial || row.committedFile != nil {
                try queue.update(id: id) {
                    if wasRunning { $0.state = .queued }
                    $0.bytesReceived = partial
                    $0.committedFile = nil
                }
            }
        }
        return report
    }
}
