import FoundationEssentials
import Glibc
import NIOHTTP1
import PodqCore
import PodqHTTP

/// `podq refresh --check-files`: asks the server about each downloaded file of a podcast (one byte of
/// it: `Range: bytes=0-0`) and flags the episodes whose file changed there (issue 18, point 3, "changed
/// validators"): a length moved beyond ad noise, or a later `Last-Modified` with another length. Only
/// on request, since it costs a request a file; nothing is downloaded.
package struct UpstreamCheck {
    package let context: QueueContext
    package let transport: any HTTPTransport

    package init(context: QueueContext, transport: any HTTPTransport) {
        self.context = context
        self.transport = transport
    }

    /// Checks the completed downloads of `podcast`'s episodes; returns how many were checked and how
    /// many were found changed.
    package func check(_ podcast: PodcastRecord) async -> (checked: Int, changed: Int) {
        let id = podcast.id
        guard let listings = try? await context.store.library.episodes(podcastId: id) else { return (0, 0) }
        let access = try? await PodcastLogin.access(for: podcast, settings: context.settings)
        var checked = 0, changed = 0
        for listing in listings where listing.downloadState == StoredState.completed.rawValue && listing.episode.upstreamChange == nil {
            guard let downloadId = listing.episode.downloadId, let row = try? await context.store.queue.download(id: downloadId),
                let url = URL(string: row.url)
            else { continue }
            checked += 1
            guard let reason = await probe(url, row: row, access: access) else { continue }
            if await (try? context.store.library.markUpdatedUpstream(episodeId: listing.episode.id, reason: reason)) != nil {
                changed += 1
                context.log.notice("episode updated upstream", metadata: ["episode": "\(listing.episode.id)", "reason": "\(reason)"])
            }
        }
        return (checked, changed)
    }

    /// Why the server's file is no longer the one downloaded, or nil.
    private func probe(_ url: URL, row: DownloadRecord, access: PodcastAccess?) async -> String? {
        var headers = HTTPHeaders()
        headers.add(name: "Range", value: "bytes=0-0")
        headers.add(name: "Accept-Encoding", value: "identity")
        guard let result = try? await RedirectFollower(transport: transport).send(url: url, headers: headers, access: access) else { return nil }
        let response = result.response
        // The byte is not needed; a server that ignores ranges sends the whole file, and leaving after
        // its first piece ends the request.
        _ = try? await { for try await _ in response.body { break } }()
        let total: Int64? =
            switch response.status {
            case 206: response.headers.first(name: "Content-Range").flatMap(ContentRange.init)?.total
            case 200: response.headers.first(name: "Content-Length").flatMap(Int64.init)
            default: nil
            }
        return UpstreamChange.detect(
            stored: row.validators, size: row.commitSize ?? row.bytesReceived, total: total,
            lastModified: response.headers.first(name: "Last-Modified"))
    }
}
