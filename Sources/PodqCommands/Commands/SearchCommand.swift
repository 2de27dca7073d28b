import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession

/// `podq search <words…> [--json] [--limit N]`: find a show in the podcast directories (docs/COMMANDS.md).
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "Find podcasts by name in the directories (iTunes, gpodder.net, Podcast Index).",
        discussion: "Each show is listed once with its feed URL and the directories that know it; `podq add <feed-url>` subscribes. "
            + "The directories are asked at once (search-providers in the config); one that is down or slow is said and the others' "
            + "results still come. Exit code 1 when none could be asked.")
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print JSON (COMMANDS.md).") var json = false
    @Option(name: .long, help: ArgumentHelp("The most shows listed, 1 to 200.", valueName: "n")) var limit = 20
    @Argument(help: "What to look for: a show's name, its maker, a subject.") var words: [String]

    func validate() throws {
        guard (1...200).contains(limit) else { throw ValidationError("--limit takes a number from 1 to 200, not \(limit).") }
        guard !text.isEmpty else { throw ValidationError("Give the words to look for: podq search history of rome") }
    }

    var text: String { words.joined(separator: " ").trimmingWhitespace }

    func run() async throws {
        let context = try QueueContext.open(global)
        let answer = try await HTTPSession.with(settings: context.settings, logger: context.log) { transport in
            await DirectoryLookup.search(text, settings: context.settings, transport: transport, limit: limit)
        }
        context.log.info(
            "search", metadata: ["shows": "\(answer.shows.count)", "answered": "\(answer.answered.map(\.rawValue))", "failed": "\(answer.failures.count)"])
        if answer.answered.isEmpty {
            throw CommandError(
                "no directory could be searched: \(DirectoryLookup.failureLine(answer.failures)). Try again later; search-providers in the config chooses the directories.",
                code: ExitCodes.failure)
        }
        if !answer.failures.isEmpty {
            Console.error(
                "podq: \(DirectoryLookup.failureLine(answer.failures)); these results are \(answer.answered.map(\.name).joined(separator: " and "))'s.")
        }
        if json {
            Console.out(JSONValue.array(answer.shows.map(Self.json)).text)
            return
        }
        guard !answer.shows.isEmpty else {
            Console.out(
                "No podcast found for “\(SafeText.clean(text))” (asked \(answer.answered.map(\.name).joined(separator: ", "))). Try fewer or other words.")
            return
        }
        var out = Console.Buffered()
        let width = String(answer.shows.count).count
        for (index, show) in answer.shows.enumerated() {
            let number = String(repeating: " ", count: width - String(index + 1).count) + "\(index + 1)"
            out.line("\(number)  \(show.title)")
            let pad = String(repeating: " ", count: width + 2)
            let facts = Self.facts(show)
            if !facts.isEmpty { out.line(pad + facts) }
            out.line(pad + show.feedURL)
        }
        out.line("")
        out.line("Subscribe: podq add <feed URL>   (in the TUI: a, then the words)")
        out.flush()
    }

    /// "by The Maker · 120 episodes · latest 2026-11-20 · iTunes, gpodder.net".
    static func facts(_ show: DirectoryShow) -> String {
        var parts: [String] = []
        if !show.author.isEmpty { parts.append("by \(show.author)") }
        if let episodes = show.episodes { parts.append("\(episodes) episode\(episodes == 1 ? "" : "s")") }
        if let latest = show.latest { parts.append("latest \(FeedDate.day(latest))") }
        if let subscribers = show.subscribers, subscribers > 0 { parts.append("\(subscribers) on gpodder.net") }
        parts.append(show.sources.compactMap { Directory(rawValue: $0)?.name }.joined(separator: ", "))
        return parts.joined(separator: " · ")
    }

    static func json(_ show: DirectoryShow) -> JSONValue {
        .object([
            "title": .string(show.given?.title ?? show.title), "author": .string(show.given?.author ?? show.author), "feedUrl": .string(show.feedURL),
            "episodes": .optional(show.episodes), "sources": .array(show.sources.map(JSONValue.string)),
            "latest": .optional(show.latest.map { $0.ISO8601Format() }), "description": .string(show.description),
            "subscribers": .optional(show.subscribers),
        ])
    }
}
