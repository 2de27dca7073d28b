import ArgumentParser
import Foundation
import PodqCore

/// `podq import <file.opml>`: subscribe to every feed of an OPML file (nested outlines included).
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Subscribe to the feeds of an OPML file.",
        discussion: "A feed that cannot be fetched is still subscribed (with the error shown by `podq feeds`), so nothing is lost.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "An OPML file.") var file: String

    func run() async throws {
        let context = try QueueContext.open(global)
        let contents: OPML.Contents
        do { contents = try OPML.read(file: file) } catch { throw CommandError(error) }
        let outlines = contents.outlines
        if !contents.repairs.isEmpty { Console.error("read \(file) with repairs: \(contents.repairs.summary)") }
        if contents.skipped > 0 { Console.error("skipped \(contents.skipped) outlines whose xmlUrl is not an http(s) URL") }
        // The feeds subscribed to, read once: each outline is then one look-up, not a read of every
        // podcast (10,000 outlines took 256 s that way, and grew as the square).
        var known: Set<String>
        do { known = Set(try context.store.podcastURLs()) } catch { throw CommandError(error) }
        let added = try await HTTPSession.with(settings: context.settings, logger: context.log) { transport in
            let refresher = FeedRefresh(context: context, transport: transport)
            var added = 0
            for outline in outlines {
                guard known.insert(outline.url).inserted else {
                    Console.out("already subscribed: \(SafeText.clean(outline.url))")
                    continue
                }
                do {
                    let outcome = try await refresher.subscribe(outline.url, autoQueue: false, fallbackTitle: outline.title, keepOnFailure: true)
                    if outcome.failed { Console.error(outcome.line) } else { Console.out(outcome.line) }
                    added += 1
                } catch let error as CommandError {
                    // One outline that cannot be added (its feed, reached through a redirect, is one
                    // already subscribed to) does not stop the others.
                    Console.error("\(SafeText.clean(outline.url)): \(error.message)")
                }
            }
            return added
        }
        Console.out("\(added) of \(outlines.count) feeds imported")
    }
}

/// `podq export`: the subscriptions as OPML 2.0 on standard output.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Print the subscriptions as OPML 2.0.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        let context = try QueueContext.open(global)
        do { Console.out(OPML.write(try context.store.podcasts().map { ($0.title, $0.url, $0.link) })) } catch { throw CommandError(error) }
    }
}
