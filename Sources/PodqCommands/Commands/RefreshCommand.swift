import ArgumentParser
import FoundationEssentials
import Glibc
import PodqCore
import PodqSession

/// `podq refresh [<podcast>]`: re-fetch feeds with conditional GET, add new episodes, queue them for
/// podcasts set to auto.
struct RefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh", abstract: "Re-fetch feeds and add their new episodes.",
        discussion: "A 304 changes nothing; a permanent redirect updates the stored URL. Exit code 1 when a feed failed.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "A podcast: its id, title or feed URL (default: all).", completion: PodcastCompletion.podcasts) var podcast: String?
    @Flag(name: .long, help: "Also ask the server about each downloaded file (one byte of it) and flag those that changed there.")
    var checkFiles = false

    func run() async throws {
        let context = try QueueContext.open(global)
        let podcasts: [PodcastRecord]
        do {
            if let podcast {
                podcasts = await [try IdArguments.podcast(podcast, in: context.store)]
            } else {
                podcasts = try await context.store.library.podcasts()
            }
        } catch { throw CommandError(error) }
        let failed = try await QueueSession.beside(context: context) { session in
            await SyncFirst.run(session)
            var failed = 0
            for p in podcasts {
                let id = p.id
                guard case .refreshed(let outcomes) = try await session.perform(.refresh(podcasts: [id])) else { continue }
                for outcome in outcomes {
                    if outcome.failed {
                        failed += 1
                        Console.error(outcome.line)
                    } else {
                        Console.out(outcome.line)
                    }
                }
                if checkFiles, let line = try await session.perform(.checkUpstream(podcast: id)).line { Console.out(line) }
            }
            return failed
        }
        try await CleanupRun(context: context).run()
        if failed > 0 { throw ExitCode(ExitCodes.failure) }
    }
}
