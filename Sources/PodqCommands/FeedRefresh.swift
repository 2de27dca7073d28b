import Foundation
import Logging
import PodqCore

/// Subscribing and refreshing, shared by `podq add`, `podq refresh` and the TUI's `a` and `u`.
struct FeedRefresh {
    let context: QueueContext
    let transport: any HTTPTransport

    /// What refreshing one podcast did, as a line for the user.
    struct Outcome: Sendable {
        var line: String
        var failed: Bool
    }

    /// Fetches `source` (a URL or a file) and subscribes to it.
    /// - Returns: the line to show.
    /// - Throws: ``CommandError`` with the exit code `podq add` uses.
    func subscribe(_ source: String, autoQueue: Bool) async throws -> String {
        let loaded: FeedSource.Loaded?
        let chain = URLChain()
        do {
            loaded = try await FeedSource.load(source, transport: transport, sizeLimit: context.settings.feedSizeLimit, trace: chain)
        } catch {
            logFailure("subscribe failed", source: source, chain: chain, error: error)
            throw CommandError(error.localizedDescription, code: ParseCommand.code(for: error))
        }
        guard let loaded else { throw CommandError("the server answered 304 to a plain GET", code: ExitCodes.failure) }
        do {
            let (podcast, episodes) = try context.store.addPodcast(url: loaded.location, feed: loaded.feed, etag: loaded.etag,
                                                                   lastModified: loaded.lastModified, autoQueue: autoQueue)
            context.log.info("subscribed", metadata: ["podcast": "\(podcast.id ?? 0)", "url": "\(loaded.location)", "episodes": "\(episodes.count)"])
            var line = "added podcast #\(podcast.id ?? 0) \(podcast.title): \(episodes.count) episodes"
            if loaded.feed.itemsWithoutEnclosure > 0 { line += " (\(loaded.feed.itemsWithoutEnclosure) items without media skipped)" }
            return line + (autoQueue ? "; new episodes will be queued on refresh" : "")
        } catch {
            throw CommandError(error)
        }
    }

    /// Re-fetches one feed with conditional GET, stores its new episodes, and queues them when the
    /// podcast (or the config) says so. A failure is saved on the podcast and returned, not thrown.
    func refresh(_ p: PodcastRecord) async -> Outcome {
        guard let id = p.id else { return Outcome(line: p.title, failed: false) }
        let chain = URLChain()
        do {
            guard let loaded = try await FeedSource.load(p.url, transport: transport, etag: p.etag, lastModified: p.lastModified,
                                                            sizeLimit: context.settings.feedSizeLimit, trace: chain) else {
                context.log.info("feed not modified", metadata: ["podcast": "\(id)", "url": "\(p.url)"])
                try context.store.updatePodcast(id: id) { $0.lastRefresh = Date().timeIntervalSince1970; $0.error = nil }
                return Outcome(line: "\(p.title): not modified", failed: false)
            }
            let new = try context.store.refreshPodcast(id: id, url: loaded.location, feed: loaded.feed, etag: loaded.etag,
                                                       lastModified: loaded.lastModified)
            var line = "\(loaded.feed.title.isEmpty ? p.title : loaded.feed.title): \(new.count) new"
            if loaded.location != p.url { line += "; the feed moved to \(loaded.location)" }
            if p.autoQueue || context.settings.autoQueue, !new.isEmpty {
                let queued = try EpisodeQueueing(context: context).queue(new.compactMap(\.id))
                line += ", \(queued.count) queued"
            }
            context.log.info("feed refreshed", metadata: ["podcast": "\(id)", "url": "\(p.url)", "new": "\(new.count)"])
            return Outcome(line: line, failed: false)
        } catch {
            logFailure("refresh failed", source: p.url, chain: chain, error: error, podcast: id)
            let message = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
            _ = try? context.store.updatePodcast(id: id) { $0.error = message; $0.lastRefresh = Date().timeIntervalSince1970 }
            return Outcome(line: "\(p.title): \(message)", failed: true)
        }
    }

    /// Logs a feed that could not be read: the reason shown to the user, the error's case (the
    /// cause) and every URL the request went through.
    private func logFailure(_ what: String, source: String, chain: URLChain, error: any Error, podcast: Int64? = nil) {
        var metadata: Logger.Metadata = [
            "url": "\(source)",
            "reason": "\((error as? LocalizedError)?.errorDescription ?? String(describing: error))",
            "cause": "\(String(describing: error))",
        ]
        if chain.urls.count > 1 { metadata["chain"] = "\(chain.description)" }
        if let podcast { metadata["podcast"] = "\(podcast)" }
        context.log.error("\(what)", metadata: metadata)
    }
}
