import ArgumentParser
import FoundationEssentials
import PodqBase
import PodqCore
import PodqSession

/// `podq reindex`: the transcripts already on disk (and those fetched before) read into the index
/// `podq grep` searches (``TranscriptIndex/reindex(say:)``).
struct ReindexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reindex",
        abstract: "Index the transcripts beside downloaded episodes, for podq grep.",
        discussion: """
            Reads the transcript sidecar of every completed download (written with sidecars = true, by this \
            podq or an older one) and the transcripts podq transcript fetched, into the store's index. \
            Downloads finished from now on are indexed as their sidecars arrive.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print what was done as JSON.") var json = false

    func run() async throws {
        let context = try QueueContext.open(global)
        do {
            let report = try await TranscriptIndex(context: context).reindex { Console.error("podq: \($0)") }
            if json {
                Console.out(
                    JSONValue.object([
                        "indexed": .int(Int64(report.indexed)), "cues": .int(Int64(report.cues)), "withoutTranscript": .int(Int64(report.without)),
                        "failed": .array(report.failed.map { .object(["episode": .int($0.episodeId), "reason": .string($0.reason)]) }),
                    ]).text)
            } else {
                Console.out(
                    "indexed \(report.indexed) transcript\(report.indexed == 1 ? "" : "s") (\(report.cues) cue\(report.cues == 1 ? "" : "s"))"
                        + (report.without > 0 ? "; \(report.without) downloaded episode\(report.without == 1 ? " has" : "s have") none beside it" : "")
                        + (report.failed.isEmpty ? "" : "; \(report.failed.count) could not be read (above)"))
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(error)
        }
    }
}
