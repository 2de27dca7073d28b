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

    @Flag(name: .long, help: "Print JSON (docs/COMMANDS.md).") var json = false
    @Argument(help: "A feed file, or the http:// or https:// URL of a feed.") var source: String

    func run() async throws {
        let feed: Feed
        if let url = URL(string: source), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            let transport = AsyncHTTPTransport()
            defer { Task { await transport.shutdown() } }
            do {
                guard case .fetched(let file, let finalURL, _, _, _) = try await FeedFetcher(transport: transport).fetch(url) else {
                    throw CommandError("the server answered 304 Not Modified to a plain GET", code: ExitCodes.failure)
                }
                defer { unlink(file) }
                feed = try FeedParser.parse(file: file, baseURL: finalURL, keepNotes: false)
            } catch let error as FeedError {
                throw CommandError(error.localizedDescription, code: Self.code(for: error))
            }
            await transport.shutdown()
        } else {
            do {
                feed = try FeedParser.parse(file: source, keepNotes: false)
            } catch {
                throw CommandError(error.localizedDescription, code: Self.code(for: error))
            }
        }
        if json {
            Console.out(FeedJSON.encode(feed))
        } else {
            Console.out("\(feed.title) — \(feed.episodes.count) episodes")
            for e in feed.episodes {
                let date = e.published.map { FeedJSON.day($0) } ?? "          "
                Console.out("\(date)  \(e.title)")
            }
        }
    }

    static func code(for error: FeedError) -> Int32 {
        if case .fetch = error { return ExitCodes.failure }
        return ExitCodes.usage
    }
}

/// The JSON of `podq parse --json` (product.md).
enum FeedJSON {
    static func encode(_ feed: Feed) -> String {
        JSONValue.object([
            "title": .string(feed.title),
            "link": .optional(feed.link),
            "description": .optional(feed.description),
            "episodes": .array(feed.episodes.map { e in
                .object([
                    "guid": .optional(e.guid),
                    "title": .string(e.title),
                    "link": .optional(e.link),
                    "published": .optional(e.published.map { Int64($0.timeIntervalSince1970.rounded(.down)) }),
                    "duration": .optional(e.duration),
                    "enclosures": .array(e.enclosures.map {
                        .object(["url": .string($0.url), "type": .optional($0.type), "length": .optional($0.length)])
                    }),
                ])
            }),
        ]).text
    }

    /// `YYYY-MM-DD` in UTC.
    static func day(_ date: Date) -> String {
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        // Civil from days (Howard Hinnant).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return String(format: "%04d-%02d-%02d", y, m, d)
    }
}
