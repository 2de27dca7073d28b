import ArgumentParser
import Foundation
import PodqCore

/// `podq parse <feed-file|url> --json`: parse a feed and print it; stores nothing.
struct ParseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Parse a feed (a file or an http(s) URL) and print it; stores nothing.",
        discussion: "Items without an enclosure are not episodes and are left out (docs/FEEDS.md)."
    )

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print JSON (docs/COMMANDS.md).") var json = false
    @Argument(help: "A feed file, or the URL of a feed or of a website that links to one.", completion: .file()) var source: String

    func run() async throws {
        let feed: Feed
        do {
            // The config's proxy, User-Agent, timeouts and feed size limit, as for `podq add`; nothing is stored.
            let settings = try ConfigFile(path: PodqPaths(home: global.home, downloadDir: nil).configFile).load()
            let loaded = try await HTTPSession.with(settings: settings) { transport in
                // The same reading as `podq add`: a website's feed, a podcast app's link, every page.
                try await FeedSource.load(source, transport: transport, sizeLimit: settings.feedSizeLimit, allPages: true, keepNotes: false)
            }
            guard let loaded else { throw CommandError("the server answered 304 Not Modified to a plain GET", code: ExitCodes.failure) }
            feed = loaded.feed
            for note in loaded.notes { Console.error("podq: \(note)") }
        } catch {
            throw CommandError(error)
        }
        if json {
            Console.out(FeedJSON.encode(feed))
        } else {
            Console.out("\(feed.title) — \(Counted.of(feed.episodes.count, "episode"))")
            if !feed.repairs.isEmpty { Console.out("read with repairs: \(feed.repairs.summary)") }
            for e in feed.episodes {
                let date = e.published.map(FeedDate.day) ?? "          "
                Console.out("\(date)  \(e.title)")
            }
        }
    }
}

/// The JSON of `podq parse --json` (docs/COMMANDS.md).
enum FeedJSON {
    static func encode(_ feed: Feed) -> String {
        JSONValue.object([
            "title": .string(feed.title),
            "link": .optional(feed.link),
            "description": .optional(feed.description),
            "repairs": .optional(feed.repairs.isEmpty ? nil : feed.repairs.summary),
            "episodes": .array(
                feed.episodes.map { e in
                    .object([
                        "guid": .optional(e.guid),
                        "title": .string(e.title),
                        "link": .optional(e.link),
                        "published": .optional(e.published.map { Int64($0.timeIntervalSince1970.rounded(.down)) }),
                        "duration": .optional(e.duration),
                        "enclosures": .array(
                            e.enclosures.map {
                                .object(["url": .string($0.url), "type": .optional($0.type), "length": .optional($0.length)])
                            }),
                    ])
                }),
        ]).text
    }

}
