import ArgumentParser
import PodqCore
import PodqSession

/// `podq mark-downloaded <podcast|episode-id>...`: puts episodes in the ledger without downloading
/// them, so auto-queue never fetches them (issue 18, point 4).
struct MarkDownloadedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark-downloaded",
        abstract: "Record episodes as downloaded without downloading them: auto-queue will never fetch them.",
        discussion: """
            podq keeps a ledger of every feed episode it downloaded, by its enclosure URL and its GUID, and \
            auto-queue skips what the ledger has, even when the file and its queue row are gone, and even \
            when the episode shows up again in another subscription or as a rerun with a new GUID. This \
            adds episodes to it, e.g. those you already have from another podcast app. An episode is \
            e12 (or a bare 12, as `podq episodes` shows it); a podcast is p3, its title or its feed URL: \
            all of its episodes. `podq episodes --new` no longer lists them.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Episodes (e12, or a bare 12), or podcasts (p3, a title or a feed URL: all their episodes).", completion: PodcastCompletion.podcasts)
    var items: [String]

    func validate() throws {
        if items.isEmpty { throw ValidationError("Give at least one episode id or podcast.") }
    }

    func run() async throws {
        let context = try QueueContext.open(global)
        do {
            let ids = try await IdArguments.episodes(items, in: context.store)
            let added = try await context.store.library.markDownloaded(episodeIds: ids)
            let already = ids.count - added
            Console.out(
                "marked \(added) episode\(added == 1 ? "" : "s") as downloaded"
                    + (already > 0 ? " (\(already) already in the ledger)" : "") + ": auto-queue will not fetch them")
            context.log.info("marked downloaded", metadata: ["episodes": "\(added)"])
        } catch {
            throw CommandError(error)
        }
    }
}
