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
                feed = try FeedParser.parse(file: file, baseURL: finalURL)
            } catch let error as FeedError {
                throw CommandError(error.localizedDescription, code: Self.code(for: error))
            }
            await transport.shutdown()
        } else {
            do {
                feed = try FeedParser.parse(file: source)
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
        let object: [String: Any] = [
            "title": feed.title,
            "link": feed.link ?? NSNull(),
            "description": feed.description ?? NSNull(),
            "episodes": feed.episodes.map { e -> [String: Any] in
                [
                    "guid": e.guid ?? NSNull(),
                    "title": e.title,
                    "link": e.link ?? NSNull(),
                    "published": e.published.map { Int64($0.timeIntervalSince1970) } ?? NSNull(),
                    "duration": e.duration ?? NSNull(),
                    "enclosures": e.enclosures.map { ["url": $0.url, "type": $0.type ?? NSNull(), "length": $0.length ?? NSNull()] as [String: Any] },
                ]
            },
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
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
