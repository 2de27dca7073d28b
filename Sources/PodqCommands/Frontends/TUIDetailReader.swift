import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqHTTP
import PodqSession
import PodqUI

/// Reads what the detail pane shows of a download, an episode or a podcast: the store's whole row
/// and the show notes as plain text. Called off the main actor (a task beside the keys' work); every text is
/// cleaned and every URL has its login taken out before it reaches the pane.
struct TUIDetailReader {
    let reader: QueueSession.Reader
    /// The config's `auto-queue`, which a podcast without its own follows.
    var configAutoQueue: Bool { reader.configAutoQueue }

    func detail(view: TUIView, id: Int64) async throws -> Detail {
        switch view {
        case .downloads: try await download(id)
        case .episodes: try await episode(id)
        case .podcasts: try await podcast(id)
        }
    }

    private static func text(_ value: String?) -> String { value.map { SafeText.redactingCredentials(SafeText.clean($0)) } ?? "" }

    /// The hosts a URL goes through before the file's: its tracking prefixes (podtrac, chartable, OP3
    /// and the like, ``TrackingPrefix``), read from the URL itself, then the file's host. Empty when
    /// there is no prefix.
    static func via(_ url: String?) -> String {
        guard let url, var current = URL(string: url) else { return "" }
        var hosts = [current.host ?? url]
        while let inner = TrackingPrefix.innerURL(of: current), hosts.count < 10 {
            hosts.append(inner.host ?? inner.absoluteString)
            current = inner
        }
        return hosts.count > 1 ? text(hosts.joined(separator: " → ")) + " (the file)" : ""
    }

    private static func time(_ unixSeconds: Double?) -> String {
        guard let unixSeconds else { return "" }
        return LocalTime.text(Date(timeIntervalSince1970: unixSeconds), format: "%Y-%m-%d %H:%M")
    }

    private func download(_ id: Int64) async throws -> Detail {
        guard let r = try await reader.download(id: id) else { throw StoreError.noSuchDownload(id) }
        var fields: [Detail.Field] = [
            .init("State", r.state.rawValue + (r.retryAt != nil ? " (retrying soon)" : "")),
            .init("Podcast", Self.text(r.podcast)),
            .init("Progress", Format.amount(received: r.bytesReceived, expected: r.bytesExpected)),
            .init("File", Self.text(r.commitPath ?? (r.state == .completed ? r.destination : r.partialPath))),
            .init("URL", Self.text(r.url)),
            .init("Via", Self.via(r.url)),
            .init("Final URL", r.finalURL == r.url ? "" : Self.text(r.finalURL)),
            .init("Attempts", r.attempts > 0 ? String(r.attempts) : ""),
            .init("Added", Self.time(r.createdAt)),
            .init("Completed", Self.time(r.completedAt)),
            .init(r.state == .failed ? "Failure" : "Last error", Self.text(r.lastError)),
            .init("Verified", Self.verification(r)),
            .init("Checksum", Self.text(r.checksum)),
        ]
        if r.state == .completed { fields += Self.chapters(of: r) }
        var notes: [String] = []
        if let episodeId = r.episodeId, let found = try? await reader.episode(id: episodeId) {
            fields.insert(.init("Published", Self.time(found.episode.published)), at: 2)
            notes = ShowNotes.paragraphs(found.episode.description ?? "")
        }
        return Detail(view: .downloads, id: id, title: Self.text(r.title), fields: fields, notes: notes)
    }

    /// The chapters beside a completed file (its table of contents: `toc: false` ones left out), a line
    /// each: `2. 0:12:34 Title`, as `podq play --chapter N` counts them. Read off the main actor, as the
    /// rest of the pane.
    static func chapters(of r: DownloadRecord) -> [Detail.Field] {
        guard let listed = SidecarFiles.chapters(of: r)?.listed else { return [] }
        return chapterFields(listed)
    }

    private static func chapterFields(_ listed: [Chapter]) -> [Detail.Field] {
        listed.prefix(200).enumerated().map { i, chapter in
            .init(i == 0 ? "Chapters" : "", "\(i + 1). \(CueTime.text(chapter.start)) " + (chapter.title.isEmpty ? "(untitled)" : text(chapter.title)))
        }
    }

    /// What the pane says of an episode's chapters while they are fetched from its feed's link.
    static let readingChapters = "reading them from the feed's link…"

    /// True when `detail` waits for chapters from the feed's link (an episode not downloaded).
    static func awaitsChapters(_ detail: Detail) -> Bool {
        detail.fields.contains { $0.name == "Chapters" && $0.value == readingChapters }
    }

    /// `detail` with the chapters fetched (``QueueSession/linkedChapters(episodeId:)``), or why they
    /// could not be, in place of ``readingChapters``.
    static func filling(_ detail: Detail, chapters: Result<[Chapter], any Error>) -> Detail {
        var detail = detail
        guard let at = detail.fields.firstIndex(where: { $0.name == "Chapters" && $0.value == readingChapters }) else { return detail }
        let fields: [Detail.Field]
        switch chapters {
        case .success(let listed): fields = listed.isEmpty ? [.init("Chapters", "none listed")] : chapterFields(listed)
        case .failure(let error): fields = [.init("Chapters", text(CommandError(error).message))]
        }
        detail.fields.replaceSubrange(at...at, with: fields)
        return detail
    }

    /// What verified a completed file: `sri-sha256`, `length`… or `UNVERIFIED: <why>`.
    static func verification(_ r: DownloadRecord) -> String {
        if let problem = r.integrityProblem { return "UNVERIFIED: " + text(problem) }
        return text(r.verifiedBy)
    }

    private func episode(_ id: Int64) async throws -> Detail {
        let (e, p) = try await reader.episode(id: id)
        var fields: [Detail.Field] = [
            .init("Podcast", Self.text(p.title)),
            .init("Published", Self.time(e.published)),
            .init("Duration", e.duration.map { Format.duration($0) } ?? ""),
            .init("Listened", Self.listened(e)),
            .init("Size", e.length.map(Format.bytes) ?? ""),
            .init("Enclosure", Self.text(e.url) + (e.type.map { " (\(Self.text($0)))" } ?? "")),
            .init("Via", Self.via(e.url)),
            .init("Link", Self.text(e.link)),
            .init("GUID", Self.text(e.guid)),
        ]
        if let downloadId = e.downloadId, let r = try await reader.download(id: downloadId) {
            fields.append(.init("Download", "\(ItemKind.download.label(downloadId)) \(r.state.rawValue)"))
            fields.append(.init("File", Self.text(r.commitPath ?? r.destination)))
            if let error = r.lastError, !error.isEmpty { fields.append(.init(r.state == .failed ? "Failure" : "Last error", Self.text(error))) }
            fields.append(.init("Verified", Self.verification(r)))
            if r.state == .completed { fields += Self.chapters(of: r) }
        }
        // Not downloaded, or not yet: its chapters as the feed links them, fetched once the pane is shown.
        if e.chaptersURL != nil, !fields.contains(where: { $0.name == "Chapters" }) {
            fields.append(.init("Chapters", Self.readingChapters))
        }
        if let change = e.upstreamChange {
            fields.append(.init("Updated", Self.text(change) + " (podq queue add --again or --replace \(id))"))
        }
        return Detail(view: .episodes, id: id, title: Self.text(e.title), fields: fields, notes: ShowNotes.paragraphs(e.description ?? ""))
    }

    private func podcast(_ id: Int64) async throws -> Detail {
        let p = try await reader.podcast(id: id)
        let fields: [Detail.Field] =
            [
                .init("Feed", Self.text(p.url)),
                .init("Website", Self.text(p.link)),
                .init("Author", Self.text(p.author)),
                .init("Refreshed", Self.time(p.lastRefresh)),
                .init("Auto-queue", p.autoQueues(config: configAutoQueue) ? "on" : "off"),
                .init("Login", p.loginUser.map { "as " + Self.text($0) } ?? ""),
                .init("Last refresh", p.error.map { "failed: " + Self.text($0) } ?? ""),
                .init("Repairs", Self.text(p.repairs)),
            ] + p.settingPairs.filter { $0.key != "auto-queue" }.map { .init($0.key, Self.text($0.value)) }
        return Detail(view: .podcasts, id: id, title: Self.text(p.title), fields: fields, notes: ShowNotes.paragraphs(p.description ?? ""))
    }

    /// How far the episode was heard: `played`, `12:30 of 30:00` (here or on another device, through
    /// sync), or blank.
    static func listened(_ e: EpisodeRecord) -> String {
        if e.playedAt != nil { return "played" + (e.positionAt.map { " (\(time($0)))" } ?? "") }
        guard let position = e.position, position > 0 else { return "" }
        return Format.duration(position) + (e.duration.map { " of " + Format.duration($0) } ?? "")
            + (e.positionAt.map { " (\(time($0)))" } ?? "")
    }
}
