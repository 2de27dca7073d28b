import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession

/// `podq parse <feed-file|url> --json`: parse a feed and print it; stores nothing.
struct ParseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Parse a feed (a file or an http(s) URL) and print it; stores nothing.",
        discussion: "Items without an enclosure are not episodes and are left out (FEEDS.md)."
    )

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print JSON (COMMANDS.md).") var json = false
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

/// The JSON of `podq parse --json` (docs/COMMANDS.md): the keys sorted, as ``JSONValue`` writes them,
/// written straight into bytes (a feed of 5,000 episodes would otherwise build 15,000 dictionaries and
/// sort their keys; `FeedJSONTests` checks the two agree).
enum FeedJSON {
    @_optimize(speed)
    static func encode(_ feed: Feed) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(1024 + feed.episodes.count * 320)
        out.append(contentsOf: #"{"description":"#.utf8)
        string(feed.description, &out)
        out.append(contentsOf: #","episodes":["#.utf8)
        for (i, e) in feed.episodes.enumerated() {
            out.append(contentsOf: (i == 0 ? #"{"duration":"# : #",{"duration":"#).utf8)
            number(e.duration.map(Int64.init), &out)
            out.append(contentsOf: #","enclosures":["#.utf8)
            for (j, enclosure) in e.enclosures.enumerated() {
                out.append(contentsOf: (j == 0 ? #"{"length":"# : #",{"length":"#).utf8)
                number(enclosure.length, &out)
                out.append(contentsOf: #","type":"#.utf8)
                string(enclosure.type, &out)
                out.append(contentsOf: #","url":"#.utf8)
                JSONValue.quote(enclosure.url, into: &out)
                out.append(UInt8(ascii: "}"))
            }
            out.append(contentsOf: #"],"guid":"#.utf8)
            string(e.guid, &out)
            out.append(contentsOf: #","link":"#.utf8)
            string(e.link, &out)
            out.append(contentsOf: #","published":"#.utf8)
            number(e.published.map { Int64.clamped($0.timeIntervalSince1970, .down) }, &out)
            out.append(contentsOf: #","title":"#.utf8)
            JSONValue.quote(e.title, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: #"],"link":"#.utf8)
        string(feed.link, &out)
        out.append(contentsOf: #","repairs":"#.utf8)
        string(feed.repairs.isEmpty ? nil : feed.repairs.summary, &out)
        out.append(contentsOf: #","title":"#.utf8)
        JSONValue.quote(feed.title, into: &out)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private static func string(_ text: String?, _ out: inout [UInt8]) {
        if let text { JSONValue.quote(text, into: &out) } else { out.append(contentsOf: "null".utf8) }
    }

    private static func number(_ n: Int64?, _ out: inout [UInt8]) {
        if let n { out.append(contentsOf: String(n).utf8) } else { out.append(contentsOf: "null".utf8) }
    }
}
