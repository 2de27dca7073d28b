import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession

/// `podq grep <words>…`: where, in which episode and at what second, the words were said: a search of
/// every transcript in the store (``LibraryStore/searchTranscripts(_:podcastId:limit:)``).
struct GrepCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grep",
        abstract: "Find where words were said: search the transcripts of every episode.",
        discussion: """
            The words are found as a phrase, in their order, case and accents ignored, the last one also \
            as the beginning of a word ("climate chan" finds "climate change"). The best hits by relevance \
            (bm25) are shown, newest episode first, each with its time (h:mm:ss): `podq play e12 --at 0:12:34` \
            plays from there. Transcripts come from the sidecars of downloaded episodes (sidecars = true; \
            `podq reindex` reads those already on disk) and from `podq transcript e12`, which fetches one from \
            the feed. Exit status 1 when nothing matches.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "Only this podcast's episodes (p3, a title or a feed URL).", completion: PodcastCompletion.podcasts)
    var podcast: String?
    @Option(name: .long, help: "The most hits shown, the best by relevance.") var limit = 50
    @Flag(name: .long, help: "Print the hits as JSON, one array.") var json = false
    @Argument(help: "The words, in the order they were said.") var words: [String]

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit needs a number of hits above 0.") }
        guard words.contains(where: { $0.contains(where: { $0.isLetter || $0.isNumber }) }) else {
            throw ValidationError("Give the words to find: podq grep climate change.")
        }
    }

    func run() async throws {
        let context = try QueueContext.open(global)
        do {
            let podcastId = try await podcast.asyncMap { try await IdArguments.podcast($0, in: context.store).id }
            let hits = try await context.store.library.searchTranscripts(words.joined(separator: " "), podcastId: podcastId, limit: limit)
            if json {
                Console.out(JSONValue.array(hits.map(Self.json)).text)
            } else if hits.isEmpty {
                let indexed = try await context.store.library.transcriptInfos().count
                Console.error(
                    indexed == 0
                        ? "podq: no transcript is indexed yet: with sidecars = true downloads bring theirs; podq transcript e12 fetches one; podq reindex reads those already on disk"
                        : "podq: no transcript of the \(indexed) indexed says “\(SafeText.clean(words.joined(separator: " ")))”")
            } else {
                Console.out(Self.text(hits, marked: isatty(STDOUT_FILENO) == 1).joined(separator: "\n"))
            }
            if hits.isEmpty { throw ExitCode(1) }
        } catch let error as CommandError {
            throw error
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw CommandError(error)
        }
    }

    /// The hits as lines: an episode's heading, then its hits, indented, each with its time. The words
    /// found are in bold on a terminal, in [brackets] elsewhere.
    static func text(_ hits: [LibraryStore.TranscriptHit], marked terminal: Bool) -> [String] {
        var lines: [String] = []
        var episode: Int64?
        for hit in hits {
            if hit.episodeId != episode {
                episode = hit.episodeId
                let date = hit.published.map { ", " + LocalTime.text(Date(timeIntervalSince1970: $0), format: "%Y-%m-%d") } ?? ""
                lines.append("\(SafeText.terminal(hit.podcastTitle)) — \(SafeText.terminal(hit.episodeTitle)) (e\(hit.episodeId)\(date))")
            }
            let time = hit.start.map(CueTime.text) ?? "-:--:--"
            lines.append("  " + String(repeating: " ", count: max(0, 8 - time.count)) + time + "  " + mark(hit, terminal: terminal))
        }
        return lines
    }

    static func mark(_ hit: LibraryStore.TranscriptHit, terminal: Bool) -> String {
        let scalars = Array(SafeText.terminal(hit.text).unicodeScalars)
        guard scalars.count == hit.text.unicodeScalars.count else { return SafeText.terminal(hit.text) }
        let (open, close) = terminal ? ("\u{1B}[1m", "\u{1B}[22m") : ("[", "]")
        var out = String.UnicodeScalarView()
        var at = 0
        for range in hit.matches where range.lowerBound >= at && range.upperBound <= scalars.count {
            out.append(contentsOf: scalars[at..<range.lowerBound])
            out.append(contentsOf: open.unicodeScalars)
            out.append(contentsOf: scalars[range])
            out.append(contentsOf: close.unicodeScalars)
            at = range.upperBound
        }
        out.append(contentsOf: scalars[at...])
        return String(out)
    }

    static func json(_ hit: LibraryStore.TranscriptHit) -> JSONValue {
        .object([
            "episode": .int(hit.episodeId), "podcast": .int(hit.podcastId), "podcastTitle": .string(SafeText.clean(hit.podcastTitle)),
            "title": .string(SafeText.clean(hit.episodeTitle)),
            "published": hit.published.map { .string(Date(timeIntervalSince1970: $0).ISO8601Format()) } ?? .null,
            "start": hit.start.map(JSONValue.number) ?? .null, "time": .optional(hit.start.map(CueTime.text)), "text": .string(hit.text),
            "matches": .array(hit.matches.map { .object(["offset": .int(Int64($0.lowerBound)), "length": .int(Int64($0.count))]) }),
            "rank": .number(hit.rank),
        ])
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
