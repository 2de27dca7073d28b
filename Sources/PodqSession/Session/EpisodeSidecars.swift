import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqHTTP
import Synchronization

/// Offline-complete episodes (issue 18, point 8; `sidecars = true`, or a podcast's own `sidecars=on`):
/// beside each finished feed episode, its transcript (the first of `transcript-types` the feed offers),
/// its `podcast:chapters` JSON, its image, and a metadata sidecar `<file>.json` naming them. Fetched
/// once the file is committed, written through the ``DownloadFolder`` (claimed, committed, never over
/// another file). A sidecar that cannot be fetched is logged and left out: it never fails the download.
/// The file itself is never changed (no tags written into it: docs/DECISIONS.md).
package final class EpisodeSidecars: Sendable {
    /// The largest sidecar fetched: transcripts of long episodes and large cover images fit.
    package static let limit: Int64 = 20_000_000

    private let context: QueueContext
    private let transport: any HTTPTransport
    private let logins: PodcastLogin.Book
    private let running = Mutex<[UUID: Task<Void, Never>]>([:])

    /// Nil when neither the config nor any podcast asks for sidecars.
    package init?(context: QueueContext, transport: any HTTPTransport, logins: PodcastLogin.Book) {
        let podcasts = (try? context.store.library.podcastRules().values.contains { $0.sidecars == true }) ?? false
        guard context.settings.sidecars || podcasts else { return nil }
        self.context = context
        self.transport = transport
        self.logins = logins
    }

    /// Writes the sidecars of a completed download, then calls `then` (the on-complete hook, which
    /// so finds them in place).
    package func handle(_ event: QueueRunner.Event, then: @escaping @Sendable () -> Void) {
        guard case .completed(let id, _, let path, _, _) = event else { return then() }
        let key = UUID()
        running.withLock {
            $0[key] = Task { [self] in
                await write(id: id, path: path)
                then()
                _ = running.withLock { $0.removeValue(forKey: key) }
            }
        }
    }

    /// Waits for the sidecars being fetched.
    package func finish() async {
        while let next = running.withLock({ $0.popFirst()?.value }) { await next.value }
    }

    private func write(id: Int64, path: String) async {
        guard let row = try? await context.store.queue.download(id: id), let episodeId = row.episodeId,
            let (episode, podcast) = try? await context.store.library.episode(id: episodeId),
            podcast.rules.sidecars ?? context.settings.sidecars,
            let folder = try? DownloadFolder(path: row.folderPath), let relative = try? folder.relativePath(of: path)
        else { return }
        let base = LexicalPath.deletingExtension(of: relative)
        let access = await logins.access(for: row)
        var written: [String: String] = [:]
        @discardableResult
        func keep(_ kind: String, _ name: String, _ bytes: [UInt8]) async -> String? {
            do {
                let path = try await folder.writeFile(name, bytes: bytes)
                written[kind] = LexicalPath.lastComponent(of: path)
                return path
            } catch {
                context.log.error("sidecar not written", metadata: ["download": "\(id)", "kind": "\(kind)", "reason": "\(ErrorText.describe(error))"])
                return nil
            }
        }
        if let transcript = Self.preferred(episode.allTranscripts, order: context.settings.transcriptTypes),
            let bytes = await fetch(transcript.url, kind: "transcript", id: id, access: access),
            let path = await keep("transcript", base + "." + Self.fileExtension(transcriptType: transcript.type), bytes)
        {
            // Indexed as it arrives, for `podq grep`; one that cannot be read is kept on disk all the same.
            do {
                let document = try TranscriptReader.read(
                    bytes, format: TranscriptFormat(mimeType: transcript.type), duration: episode.duration.map(Double.init))
                try await context.store.library.saveTranscript(episodeId: episodeId, source: path, document: document, body: nil)
            } catch {
                context.log.error("transcript not indexed", metadata: ["download": "\(id)", "reason": "\(ErrorText.describe(error))"])
            }
        }
        if let url = episode.chaptersURL, let bytes = await fetch(url, kind: "chapters", id: id, access: access) {
            if JSONTree.parse(bytes) != nil {
                await keep("chapters", base + ".chapters.json", bytes)
            } else {
                context.log.error("sidecar not written", metadata: ["download": "\(id)", "kind": "chapters", "reason": "it is not JSON"])
            }
        }
        if let url = episode.imageURL ?? podcast.imageURL, let bytes = await fetch(url, kind: "image", id: id, access: access) {
            if let ext = Self.imageExtension(bytes) {
                await keep("image", base + "." + ext, bytes)
            } else {
                context.log.error(
                    "sidecar not written", metadata: ["download": "\(id)", "kind": "image", "reason": "it is not a JPEG, PNG, WebP or GIF image"])
            }
        }
        await keep("metadata", base + ".json", Array(Self.metadata(row: row, episode: episode, podcast: podcast, path: path, files: written).utf8))
        context.log.info("sidecars written", metadata: ["download": "\(id)", "files": "\(written.values.sorted().joined(separator: ", "))"])
    }

    private func fetch(_ url: String, kind: String, id: Int64, access: PodcastAccess?) async -> [UInt8]? {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? "") else { return nil }
        do {
            return try await SmallFetch.get(parsed, transport: transport, access: access, limit: Self.limit).bytes
        } catch {
            context.log.error(
                "sidecar not fetched",
                metadata: [
                    "download": "\(id)", "kind": "\(kind)", "url": "\(SafeText.redactingCredentials(url))",
                    "reason": "\(ErrorText.describe(error))",
                ])
            return nil
        }
    }

    /// The transcript to fetch: the first of `order`'s types the episode offers, else its first.
    package static func preferred(_ transcripts: [Transcript], order: [String]) -> Transcript? {
        for type in order { if let found = transcripts.first(where: { $0.type == type }) { return found } }
        return transcripts.first
    }

    package static func fileExtension(transcriptType type: String) -> String {
        switch type {
        case "text/vtt": "vtt"
        case "application/x-subrip", "application/srt", "text/srt": "srt"
        case "application/json": "transcript.json"
        case "text/html": "html"
        case "text/plain": "txt"
        default: "transcript"
        }
    }

    /// The extension an image's own first bytes call for; nil when they are no image podq keeps.
    package static func imageExtension(_ bytes: [UInt8]) -> String? {
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count && Array(bytes[offset..<offset + signature.count]) == signature
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "jpg" }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "webp" }
        if starts(Array("GIF8".utf8)) { return "gif" }
        return nil
    }

    /// The metadata sidecar: the episode as the feed gave it, the file as podq has it, and the
    /// sidecars' names. Every text cleaned; credentials never written.
    package static func metadata(row: DownloadRecord, episode: EpisodeRecord, podcast: PodcastRecord, path: String, files: [String: String]) -> String {
        func text(_ value: String?) -> JSONValue { value.map { .string(SafeText.redactingCredentials(SafeText.clean($0))) } ?? .null }
        let notes = ShowNotes.paragraphs(episode.description ?? "").joined(separator: "\n\n")
        return JSONValue.object([
            "podcast": .object(["title": text(podcast.title), "feed": text(podcast.url), "link": text(podcast.link), "author": text(podcast.author)]),
            "title": text(episode.title), "guid": text(episode.guid), "link": text(episode.link),
            "published": episode.published.map { .string(Date(timeIntervalSince1970: $0).ISO8601Format()) } ?? .null,
            "duration": .optional(episode.duration), "season": .optional(episode.season), "episode": .optional(episode.episodeNumber),
            "description": notes.isEmpty ? .null : .string(SafeText.clean(notes)),
            "enclosure": .object(["url": text(episode.url), "type": text(episode.type), "length": .optional(episode.length)]),
            "file": .string(LexicalPath.lastComponent(of: path)), "bytes": .optional(row.commitSize ?? row.bytesReceived),
            "checksum": text(row.checksum), "sha256": text(row.sha256), "verifiedBy": text(row.verifiedBy), "unverified": text(row.integrityProblem),
            "transcript": .optional(files["transcript"]), "chapters": .optional(files["chapters"]), "image": .optional(files["image"]),
        ]).text + "\n"
    }
}
