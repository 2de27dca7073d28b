import ArgumentParser
import FoundationEssentials
import Glibc
import PodqCore
import PodqSession

/// `podq mark-played [--undo] <episode-id|podcast>…`: what `m` does in the TUI, from scripts.
struct MarkPlayedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark-played", abstract: "Mark episodes (or every episode of a podcast) played, or with --undo not played.",
        discussion: "When podq is logged in to a sync server, each new mark is sent to it as a play to the end (podq sync).")
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Mark them not played.") var undo = false
    @Argument(
        help: "Episodes (e12, or a bare 12, as podq episodes lists them; d7: a download's episode), or podcasts (p3, a title or a feed URL).",
        completion: PodcastCompletion.podcasts)
    var items: [String]

    func run() async throws {
        let context = try QueueContext.open(global)
        do {
            let ids = try await IdArguments.episodes(items, in: context.store)
            let changed = try await context.store.library.setPlayed(episodeIds: ids, played: !undo)
            let already = ids.count - changed
            Console.out(
                "marked \(changed) episode\(changed == 1 ? "" : "s") \(undo ? "not played" : "played")"
                    + (already > 0 ? " (\(already) already \(undo ? "not played" : "played"))" : ""))
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(error)
        }
    }
}
