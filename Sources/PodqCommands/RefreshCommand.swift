import ArgumentParser
import Foundation
import PodqCore

/// `podq refresh [<podcast>]`: re-fetch feeds with conditional GET, add new episodes, queue them for
/// podcasts set to auto.
struct RefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "refresh", abstract: "Re-fetch feeds and add their new episodes.",
        discussion: "A 304 changes nothing; a permanent redirect updates the stored URL. Exit code 1 when a feed failed.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "A podcast: its id, title or feed URL (default: all).") var podcast: String?

    func run() async throws {
        let context = try QueueContext.open(global)
        let podcasts: [PodcastRecord]
        do {
            podcasts = try podcast.map { [try context.store.podcast(matching: $0)] } ?? context.store.podcasts()
        } catch { throw CommandError(error) }
        let transport = AsyncHTTPTransport()
        let refresher = FeedRefresh(context: context, transport: transport)
        var failed = 0
        for p in podcasts {
            let outcome = await refresher.refresh(p)
            if outcome.failed {
                failed += 1
                Console.error(outcome.line)
            } else {
                Console.out(outcome.line)
            }
        }
        await transport.shutdown()
        try CleanupRun(context: context).run()
        if failed > 0 { throw ExitCode(ExitCodes.failure) }
    }
}

/// Puts feed episodes on the queue with their product names.
struct EpisodeQueueing {
    let context: QueueContext

    /// Queues the episodes (skipping those already queued) and returns the download rows made.
    func queue(_ episodeIds: [Int64]) throws -> [DownloadRecord] {
        var reserved = try context.store.destinations()
        var made: [DownloadRecord] = []
        for id in episodeIds {
            let (episode, podcast) = try context.store.episode(id: id)
            if episode.downloadId != nil, let existing = try context.store.download(id: episode.downloadId!),
                existing.state != DownloadState.cancelled.name
            {
                continue
            }
            let path = try DestinationPlanner.destination(forEpisode: episode, podcastTitle: podcast.title,
                                                          in: context.paths.downloadFolder, reserved: reserved)
            reserved.insert(path)
            made.append(try context.store.addDownload(for: id, title: "\(podcast.title) — \(episode.title)", podcast: podcast.title, destination: path))
        }
        return made
    }
}
