import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession

/// `podq demo`: serves the bundled demo podcast on 127.0.0.1, subscribes to it in a temporary home,
/// queues its episodes and opens the TUI on them, with no internet.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve a bundled demo podcast on 127.0.0.1 and download its episodes in the TUI (no internet needed).",
        discussion:
            "Uses a fresh temporary home and folder, removed at the end, unless --home or --download-dir is given. Without a terminal (or with --headless) it downloads like `podq download`."
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: [.short, .long], help: "How many downloads run at once.")
    var jobs: Int = 3

    @Option(
        name: .long, help: ArgumentHelp("Where the episodes go (default: a temporary folder, removed at the end).", valueName: "dir"), completion: .directory)
    var downloadDir: String?

    @Option(name: .long, help: ArgumentHelp("How fast the demo server sends each episode.", valueName: "bytes"))
    var bytesPerSecond: Int?

    @Flag(name: .long, help: "Download with progress lines instead of opening the TUI.")
    var headless = false

    func validate() throws {
        try GlobalOptions.path(downloadDir, "--download-dir")
        if !(1...64).contains(jobs) { throw ValidationError("--jobs takes a number from 1 to 64.") }
    }

    func run() async throws {
        var podcast = try DemoPodcast.load()
        if let bytesPerSecond { podcast.bytesPerSecond = max(1000, bytesPerSecond) }
        let server = try await podcast.serve()
        let scratch = LexicalPath.join(LexicalPath.temporaryFolder, "podq-demo-\(UUID().uuidString.prefix(8))")
        let home = global.home ?? scratch + "/home"
        let folder = downloadDir ?? scratch + "/downloads"
        // Nothing is left in the temporary folder: what was not asked for by --home or --download-dir goes.
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let tui = !headless && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        let context = try QueueContext.open(home: home, downloadDir: folder, verbose: global.verbose, echoLog: !tui)
        let feed = server.url("/feed.xml").absoluteString
        if !tui { Console.out("Serving \"\(podcast.title)\" at \(feed)") }
        try await subscribeAndQueue(feed, context: context, quiet: tui)

        let code: Int32
        if tui {
            // Every episode comes from one host here: the per-host cap would hide the point of --jobs.
            code = try await TUISession.run(context: context, jobs: jobs, perHost: jobs, keepsPartials: downloadDir != nil)
        } else {
            Console.out("Downloading \(Counted.of(podcast.episodes.count, "episode")), \(jobs) at a time, into \(folder)")
            code = try await DownloadRunner(context: context, jobs: jobs, perHost: jobs).run(adding: [])
        }
        await server.stop()
        if code == ExitCodes.success || code == ExitCodes.interrupted {
            if downloadDir != nil {
                Console.out("The demo's episodes are in \(folder)/\(podcast.title)" + (global.home != nil ? " (home: \(home))." : "."))
            } else if code == ExitCodes.interrupted {
                // The runner's line says the partial files are kept: here they go with the folder.
                Console.out(
                    "The demo ran in a temporary folder, now removed with its partial files; give --home DIR and --download-dir DIR to resume a demo later.")
            } else {
                Console.out("The demo ran in a temporary folder, now removed; give --download-dir DIR (and --home DIR) to keep what it downloads.")
            }
        }
        if code != ExitCodes.success { throw ExitCode(code) }
    }

    /// Subscribes to the demo feed (once per home) and queues its episodes, oldest first.
    private func subscribeAndQueue(_ feed: String, context: QueueContext, quiet: Bool) async throws {
        let outcome = try await HTTPSession.with(settings: context.settings, logger: context.log) { transport in
            try await FeedRefresh(context: context, transport: transport).subscribe(feed, autoQueue: false)
        }
        if !quiet { Console.out(outcome.line) }
        do {
            let episodes = try await context.store.library.episodes().reversed().compactMap(\.episode.id)
            try await context.store.queue.add(QueuePlanning(context: context).downloads(forEpisodes: Array(episodes)))
        } catch {
            throw CommandError(error)
        }
    }
}
