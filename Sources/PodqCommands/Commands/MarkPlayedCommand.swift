import ArgumentParser
import Foundation
import PodqCore

/// `podq mark-played [--undo] <episode-id|podcast>…`: what `m` does in the TUI, from scripts.
struct MarkPlayedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark-played", abstract: "Mark episodes (or every episode of a podcast) played, or with --undo not played.",
        discussion: "When podq is logged in to a sync server, each new mark is sent to it as a play to the end (podq sync).")
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Mark them not played.") var undo = false
    @Argument(help: "Episode ids (podq episodes lists them), or podcasts: an id, title or feed URL.", completion: PodcastCompletion.podcasts) var items:
        [String]

    func run() throws {
        let context = try QueueContext.open(global)
        var ids: [Int64] = []
        do {
            for item in items {
                if let id = Int64(item), (try? context.store.episode(id: id)) != nil {
                    ids.append(id)
                } else if Int64(item) != nil, (try? context.store.podcast(matching: item)) == nil {
                    throw CommandError("There is no episode #\(item); `podq episodes` lists them.", code: ExitCodes.usage)
                } else {
                    let podcast = try context.store.podcast(matching: item)
                    ids += try context.store.episodeIds(podcastId: podcast.id!)
                }
            }
            let changed = try context.store.setPlayed(episodeIds: ids, played: !undo)
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
