import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession
import PodqUI

/// `podq queue …`: look at and change the stored queue, also while a runner is running it.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Show or change the download queue.",
        discussion: "Changes are saved at once; a running `podq download` picks them up within a second.",
        subcommands: [
            QueueListCommand.self, QueueAddCommand.self, QueueStateCommand.Cancel.self, QueueStateCommand.Pause.self,
            QueueStateCommand.Resume.self, QueueStateCommand.Retry.self, QueueRemoveCommand.self,
        ],
        defaultSubcommand: QueueListCommand.self
    )
}

/// `podq queue [list] [--json]`.
struct QueueListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the queue in order.")

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print JSON: an array in queue order (see COMMANDS.md).")
    var json = false

    func run() async throws {
        let context = try QueueContext.open(global)
        let rows: [DownloadRecord]
        do { rows = try await context.store.queue.downloads() } catch { throw CommandError(error) }
        // A row left `downloading` by a podq that was killed (kill -9, a crash) runs nowhere: nobody
        // holds the queue's lock. It resumes on the next run.
        let running = HomeLock(home: context.paths.home).currentHolder() != nil
        if json {
            Console.out(QueueJSON.encode(rows, running: running))
            return
        }
        if rows.isEmpty {
            Console.out("The queue is empty. Add downloads with `podq queue add <url>`.")
            return
        }
        let idWidth = String(rows.map { $0.id }.max() ?? 0).count + 1
        for row in rows {
            let amount = Format.amount(received: row.bytesReceived, expected: row.bytesExpected)
            let interrupted = row.state == .downloading && !running
            let state = interrupted ? "interrupted" : row.state.rawValue
            var line = "\(EpisodesCommand.number(.download, row.id, width: idWidth))  \(DisplayWidth.pad(state, to: 11)) \(row.title)  \(amount)"
            if interrupted { line += "  (podq stopped under it; it resumes on the next podq download or in the TUI)" }
            if let error = row.lastError, row.state != .completed {
                line += row.state == .queued ? "  (retrying: \(error))" : "  (\(error))"
            }
            Console.out(line)
        }
    }
}

/// The JSON of `podq queue --json` (docs/COMMANDS.md): nulls written out, keys sorted.
enum QueueJSON {
    struct Item: Encodable {
        let row: DownloadRecord
        /// Whether a podq runs the queue now (holds its lock).
        var running = true
        enum Keys: String, CodingKey {
            case id, url, title, podcast, state, path, bytesReceived, bytesExpected, error, checksum, sha256, verifiedBy, unverified, running
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(row.id, forKey: .id)
            try c.encode(row.url, forKey: .url)
            try c.encode(row.title, forKey: .title)
            try c.encode(row.podcast, forKey: .podcast)
            try c.encode(row.state, forKey: .state)
            try c.encode(row.destination, forKey: .path)
            try c.encode(row.bytesReceived, forKey: .bytesReceived)
            try c.encode(row.bytesExpected, forKey: .bytesExpected)
            try c.encode(row.state == .completed ? nil : row.lastError, forKey: .error)
            // Integrity (docs/FILES.md): podq's checksum, what verified the file, and why it is not.
            try c.encode(row.checksum, forKey: .checksum)
            try c.encode(row.sha256, forKey: .sha256)
            try c.encode(row.verifiedBy, forKey: .verifiedBy)
            try c.encode(row.integrityProblem, forKey: .unverified)
            // True only for a download that is moving now: `downloading` left by a killed podq is not.
            try c.encode(row.state == .downloading && running, forKey: .running)
        }
    }

    static func encode(_ rows: [DownloadRecord], running: Bool = true) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(rows.map { Item(row: $0, running: running) })) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// `podq queue add <url|episode-id>... [--title T]`, `podq queue add --latest N <podcast>`.
struct QueueAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Put URLs or episodes on the queue.",
        discussion: """
            An episode (e12, or a bare 12, as `podq episodes` shows it; d7: the episode of download d7) is saved as \
            <download folder>/<podcast>/<YYYY-MM-DD> <title>.<ext> (file-name-template). A URL or an episode given twice is queued once.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("Where the files go (default: the config's download-folder).", valueName: "dir"), completion: .directory)
    var downloadDir: String?

    @Option(name: .long, help: "The title to show (one URL only; default: the file name).")
    var title: String?

    @Option(name: .long, help: ArgumentHelp("Queue the newest N episodes of the podcast named by the argument.", valueName: "N"))
    var latest: Int?

    @Flag(name: .long, help: "Download a completed episode (or a URL's download, d7) again, keeping the old file (an episode updated upstream).")
    var again = false

    @Flag(
        name: .long,
        help:
            "Download a completed episode (or a URL's download, d7) again; once complete, the new file takes the old one's name and the old file (also one podq verify found changed) is deleted."
    )
    var replace = false

    @Argument(
        help: "http:// or https:// URLs, or episodes (e12, or a bare 12; d7: a download's episode); with --latest, one podcast (p3, a title or a feed URL).")
    var items: [String]

    func validate() throws {
        try GlobalOptions.path(downloadDir, "--download-dir")
        if items.isEmpty { throw ValidationError("Give at least one URL or episode id.") }
        if let latest {
            guard latest > 0, items.count == 1 else { throw ValidationError("--latest N takes one podcast (p3, a title or a feed URL).") }
            return
        }
        if title != nil && items.count > 1 { throw ValidationError("--title goes with one URL only.") }
        if again && replace { throw ValidationError("--again keeps the old file, --replace deletes it: give one of them.") }
        _ = try URLArguments.parse(items.filter { ItemReference($0) == nil })
    }

    /// The line for an item not added again: where it already is.
    static func alreadyThere(_ row: DownloadRecord) -> String {
        row.state == .completed
            ? "\(Self.subject(row))already downloaded as \(ItemKind.download.label(row.id)): \(row.title) -> \(row.destination) (--again or --replace fetches it anew)"
            : "\(Self.subject(row))already queued as \(ItemKind.download.label(row.id)) (\(row.state.rawValue)): \(row.title)"
    }

    /// "e3: " for a feed episode's row (episodes and downloads are numbered apart: `e3`, `d1`).
    static func subject(_ row: DownloadRecord) -> String { row.episodeId.map { "\(ItemKind.episode.label($0)): " } ?? "" }

    /// The line for a row just added: `e3 → d1: Title -> path` (a URL's: `added d4: …`).
    static func added(_ row: DownloadRecord) -> String {
        (row.episodeId.map { "\(ItemKind.episode.label($0)) → " } ?? "added ") + "\(ItemKind.download.label(row.id)): \(row.title) -> \(row.destination)"
    }

    func run() async throws {
        let context = try QueueContext.open(global, downloadDir: downloadDir)
        do {
            var episodeIds: [Int64] = []
            var urlsAgain: [DownloadRecord] = []
            if latest == nil {
                for case let reference? in items.map(ItemReference.init) {
                    if reference.kind == .podcast {
                        throw CommandError("\(reference) is a podcast: `podq queue add --latest 5 \(reference)` queues its newest 5", code: ExitCodes.usage)
                    }
                    // A download added by its URL, fetched again.
                    if reference.kind == .download, let row = try await context.store.queue.download(id: reference.id), row.episodeId == nil {
                        guard again || replace else {
                            throw CommandError(
                                "\(reference) was added by its URL: it is no podcast's episode (`podq queue add --replace \(reference)` fetches it again in its place)",
                                code: ExitCodes.usage)
                        }
                        urlsAgain.append(row)
                        continue
                    }
                    await episodeIds.append(try IdArguments.episode(reference, in: context.store))
                }
            }
            if let latest {
                let podcast = try await IdArguments.podcast(items[0], in: context.store)
                episodeIds = try await context.store.library.episodeIds(podcastId: podcast.id, latest: latest)
            }
            let planning = QueuePlanning(context: context)
            let (fromEpisodes, already) = try await planning.plan(forEpisodes: episodeIds, again: again, replace: replace)
            for row in try await context.store.queue.add(fromEpisodes) { Console.out(Self.added(row)) }
            for row in already { Console.out(Self.alreadyThere(row)) }
            var fetchedAgain: [NewDownload] = []
            for row in QueuePlanning.distinct(urlsAgain, by: \.id).kept { fetchedAgain.append(try await planning.again(row, replace: replace)) }
            for row in try await context.store.queue.add(fetchedAgain) { Console.out(Self.added(row)) }
            let urls = latest == nil ? try URLArguments.parse(items.filter { ItemReference($0) == nil }) : []
            let (new, skipped) = try await planning.downloads(for: urls.map { DownloadItem(url: $0, title: title) })
            for row in try await context.store.queue.add(new) { Console.out(Self.added(row)) }
            for row in skipped { Console.out(Self.alreadyThere(row)) }
            // Given twice in one command: one download, and said.
            for id in Set(QueuePlanning.distinct(episodeIds, by: \.self).repeated).sorted() {
                Console.out("\(ItemKind.episode.label(id)) was given more than once: queued once")
            }
            for url in Set(QueuePlanning.distinct(urls, by: \.absoluteString).repeated.map(\.absoluteString)).sorted() {
                Console.out("\(SafeText.clean(url)) was given more than once: queued once")
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(error)
        }
    }
}

/// `podq queue remove <id>... [--delete-file]`.
struct QueueRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove downloads from the queue.",
        discussion: "An unfinished download's partial file is deleted; a completed file is kept unless --delete-file.")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Also delete the completed file.") var deleteFile = false
    @Argument(help: QueueStateCommand.idsHelp) var ids: [String]

    func run() async throws {
        let context = try QueueContext.open(global)
        let ids: [Int64]
        do { ids = try await IdArguments.downloads(self.ids, in: context.store) } catch let error as CommandError { throw error } catch {
            throw CommandError(error)
        }
        for id in ids {
            do {
                guard let row = try await context.store.queue.download(id: id) else { throw StoreError.noSuchDownload(id) }
                let folder = try DownloadFolder(path: row.folderPath)
                let relative = try folder.relativePath(of: row.destination)
                // The file first: when it cannot go (a link on the way), the row stays to say so.
                if deleteFile && row.state == .completed {
                    if try folder.removeFile(relative, recorded: row.committedFile?.identity) {
                        if let episode = row.episodeId { await context.store.sync.announceDeleted(episodeIds: [episode]) }
                    } else {
                        Console.error(
                            "\(ItemKind.download.label(id)): \(SafeText.clean(row.destination)) is not the file podq downloaded there (it was replaced or moved); it is kept"
                        )
                    }
                }
                try await context.store.queue.remove(id: id)
                // The partial goes unless a running runner holds it: that one cancels its transfer (and
                // deletes the partial) within a second.
                folder.removePartial(relative)
                Console.out("removed   \(ItemKind.download.label(id)) \(row.title)")
            } catch {
                throw CommandError(error)
            }
        }
    }
}
