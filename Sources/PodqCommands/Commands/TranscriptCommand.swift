import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession

/// `podq transcript <episode>`: an episode's transcript, a line per cue with its time; read from the
/// store, the sidecar beside its file, or fetched from its feed and kept (``TranscriptIndex``).
struct TranscriptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcript",
        abstract: "Print an episode's transcript, fetching it from the feed when podq has none.",
        discussion: """
            The transcript is the one podq has indexed, else the sidecar beside the downloaded file \
            (sidecars = true), else the feed's podcast:transcript link (the first of transcript-types it offers), \
            fetched under fetch-timeout, kept in the store and indexed: `podq grep` then finds its words. \
            Each line is a cue: its time (h:mm:ss) and what was said. VTT, SRT, Podcasting 2.0 JSON, HTML and \
            plain text are read; what was wrong with one is said on standard error.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Read the sidecar or fetch the transcript again, even when podq has it.") var refresh = false
    @Flag(name: .long, help: "Print it as JSON.") var json = false
    @Argument(help: ArgumentHelp("An episode (e12, or a bare 12, as podq episodes lists it; d7: a download's episode).", valueName: "episode"))
    var item: String

    func run() async throws {
        let context = try QueueContext.open(global)
        do {
            guard let reference = ItemReference(item) else {
                throw CommandError("'\(SafeText.clean(item))' is not an episode: give its id as `podq episodes` shows it (e12)", code: ExitCodes.usage)
            }
            let episodeId = try await IdArguments.episode(reference, in: context.store)
            let loaded = try await HTTPSession.with(settings: context.settings, logger: context.log) { transport in
                try await TranscriptIndex(context: context).transcript(episodeId: episodeId, transport: transport, refresh: refresh)
            }
            for note in loaded.notes { Console.error("podq: e\(episodeId): \(note)") }
            if json {
                Console.out(
                    JSONValue.object([
                        "episode": .int(episodeId), "source": .string(loaded.source), "format": .string(loaded.format.rawValue),
                        "notes": .array(loaded.notes.map(JSONValue.string)),
                        "cues": .array(
                            loaded.cues.map {
                                .object([
                                    "start": $0.start.map(JSONValue.number) ?? .null, "time": .optional($0.start.map(CueTime.text)), "text": .string($0.text),
                                ])
                            }),
                    ]).text)
            } else {
                Console.out(loaded.cues.map { ($0.start.map(CueTime.text) ?? "-:--:--") + "  " + SafeText.terminal($0.text) }.joined(separator: "\n"))
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(error)
        }
    }
}
