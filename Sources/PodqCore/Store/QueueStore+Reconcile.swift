import Foundation

extension QueueStore {
    /// What ``reconcile()`` changed.
    public struct Reconciliation: Sendable, Equatable {
        /// Downloads that were running when the last runner died, queued again.
        public var requeued: [Int64] = []
        /// Downloads whose final file was in place (renamed just before a crash), marked completed.
        public var completed: [Int64] = []
        /// Partial files of cancelled downloads, deleted.
        public var deletedPartials: [String] = []
    }

    /// Makes the store agree with the disk, at start-up and under the ``HomeLock``: a download left
    /// `downloading` is queued again (its `.part` resumes), a final file present means completed, the
    /// partial of a cancelled download is deleted, and bytes received are read from the partial file.
    /// Nothing else on disk is touched.
    @discardableResult
    public func reconcile() throws(StoreError) -> Reconciliation {
        var report = Reconciliation()
        let fm = FileManager.default
        let rows = try downloads()
        let claimed = Set(rows.map(\.destination))
        for row in rows {
            guard let id = row.id else { continue }
            let partial = DownloadOperation.fileSize(row.partialPath)
            let hasPartial = fm.fileExists(atPath: row.partialPath)
            switch row.state {
            case DownloadState.completed.name:
                continue
            case DownloadState.cancelled.name:
                if hasPartial {
                    unlink(row.partialPath)
                    report.deletedPartials.append(row.partialPath)
                }
            default:
                if !hasPartial, let final = Self.finalFile(of: row, claimed: claimed) {
                    let size = DownloadOperation.fileSize(final)
                    try update(id: id) {
                        $0.state = DownloadState.completed.name
                        $0.destination = final
                        $0.bytesReceived = size
                        $0.completedAt = $0.completedAt ?? Date().timeIntervalSince1970
                    }
                    report.completed.append(id)
                } else {
                    let wasRunning = row.state == DownloadState.downloading.name
                    if wasRunning { report.requeued.append(id) }
                    if wasRunning || row.bytesReceived != partial {
                        try update(id: id) {
                            if wasRunning { $0.state = DownloadState.queued.name }
                            $0.bytesReceived = partial
                        }
                    }
                }
            }
        }
        return report
    }

    /// The row's final file when it exists: the destination, or the destination with an extension
    /// from the Content-Type added (see ``DownloadOperation/finalPath``) that no other row claims.
    static func finalFile(of row: DownloadRecord, claimed: Set<String>) -> String? {
        let fm = FileManager.default
        if fm.fileExists(atPath: row.destination) { return row.destination }
        guard (row.destination as NSString).pathExtension.isEmpty else { return nil }
        let folder = (row.destination as NSString).deletingLastPathComponent
        let stem = (row.destination as NSString).lastPathComponent
        let names = (try? fm.contentsOfDirectory(atPath: folder)) ?? []
        let candidates = names.filter { name in
            name.hasPrefix(stem + ".") && FileNamer.knownExtensions.contains((name as NSString).pathExtension)
                && name.count == stem.count + 1 + (name as NSString).pathExtension.count
        }.map { (folder as NSString).appendingPathComponent($0) }.filter { !claimed.contains($0) }
        return candidates.count == 1 ? candidates[0] : nil
    }
}
