import FoundationEssentials
import PodqBase
import PodqCore
import PodqSession
import PodqUI

/// Reads what the Transcript pane shows (issue 46), off the main actor: an episode's cues, or the hits
/// of a search of every transcript under a heading an episode. Every text is cleaned before it reaches
/// the pane; what could not be read is the pane's note, in the words `podq transcript` says it.
struct TUITranscriptReader {
    let session: QueueSession
    /// The most hits a search lists (the best by relevance).
    static let hitLimit = 200

    /// The transcript of row `id` of `view`: an episode, or a download's episode.
    func transcript(view: TUIView, id: Int64) async -> TranscriptPane.Answer {
        let kind = TranscriptPane.Kind.episode(view: view, id: id, title: "")
        do {
            let episodeId = view == .downloads ? try await session.episodeId(ofDownload: id) : id
            let loaded = try await session.transcript(episodeId: episodeId)
            let lines = loaded.cues.map { TranscriptPane.Line(episodeId: episodeId, start: $0.start, text: SafeText.clean($0.text)) }
            let timed = loaded.cues.contains { $0.start != nil } ? "" : " (it has no times: Enter plays from where it was left)"
            let from = SafeText.clean(SafeText.redactingCredentials(loaded.source))
            let notes = loaded.notes.map { " · " + SafeText.clean($0) }.joined()
            guard !lines.isEmpty else { return .init(kind: kind, lines: [], note: "The transcript (\(from)) has no words.") }
            return .init(kind: kind, lines: lines, note: "\(QueueSession.count(lines.count, "line")) from \(from)\(timed)\(notes)")
        } catch {
            return .init(kind: kind, lines: [], note: CommandError(error).message, failed: true)
        }
    }

    /// Where every transcript says `words`: the hits grouped by episode as the store ranked them
    /// (newest episode first), each episode under its heading.
    func search(_ words: String) async -> TranscriptPane.Answer {
        let kind = TranscriptPane.Kind.search(words: words)
        do {
            let hits = try await session.searchTranscripts(words, limit: Self.hitLimit)
            guard !hits.isEmpty else {
                let indexed = try await session.transcriptCount()
                return .init(
                    kind: kind, lines: [],
                    note: indexed == 0
                        ? "No transcript is indexed yet: with sidecars = true downloads bring theirs; t on an episode fetches its transcript; podq reindex reads those already on disk."
                        : "No transcript of the \(indexed) indexed says “\(words)”. T searches again, Esc goes back.")
            }
            var lines: [TranscriptPane.Line] = []
            var episode: Int64?
            for hit in hits {
                if hit.episodeId != episode {
                    episode = hit.episodeId
                    let date = hit.published.map { ", " + LocalTime.text(Date(timeIntervalSince1970: $0), format: "%Y-%m-%d") } ?? ""
                    let heading = "\(SafeText.clean(hit.podcastTitle)) — \(SafeText.clean(hit.episodeTitle)) (\(ItemKind.episode.label(hit.episodeId))\(date))"
                    lines.append(.init(episodeId: hit.episodeId, start: nil, text: heading, isHeading: true))
                }
                let text = SafeText.clean(hit.text)
                // A mark stays only where cleaning kept the text as it was (the offsets are the store's).
                let marks = text.unicodeScalars.count == hit.text.unicodeScalars.count ? hit.matches : []
                lines.append(.init(episodeId: hit.episodeId, start: hit.start, text: text, marks: marks))
            }
            let episodes = Set(hits.map(\.episodeId)).count
            let more = hits.count == Self.hitLimit ? " (the best \(Self.hitLimit); podq grep --limit shows more)" : ""
            return .init(kind: kind, lines: lines, note: "\(QueueSession.count(hits.count, "hit")) in \(QueueSession.count(episodes, "episode"))\(more)")
        } catch {
            return .init(kind: kind, lines: [], note: "cannot search the transcripts: \(CommandError(error).message)", failed: true)
        }
    }
}
