import ArgumentParser
import Foundation
import PodqCore

/// `podq demo`: serves the bundled demo podcast on 127.0.0.1 and downloads it, with no internet.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve a bundled demo podcast on 127.0.0.1 and download its episodes (no internet needed).",
        discussion: "The files land in a fresh temporary folder unless --download-dir is given."
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: [.short, .long], help: "How many downloads run at once.")
    var jobs: Int = 3

    @Option(name: .long, help: ArgumentHelp("Where the episodes go (default: a new temporary folder).", valueName: "dir"))
    var downloadDir: String?

    @Option(name: .long, help: ArgumentHelp("How fast the demo server sends each episode.", valueName: "bytes"))
    var bytesPerSecond: Int?

    func run() async throws {
        var podcast = try DemoPodcast.load()
        if let bytesPerSecond { podcast.bytesPerSecond = max(1000, bytesPerSecond) }
        let server = try await podcast.serve()
        let scratch = (NSTemporaryDirectory() as NSString).appendingPathComponent("podq-demo-\(UUID().uuidString.prefix(8))")
        let home = global.home ?? scratch + "/home"
        let folder = downloadDir ?? scratch
        Console.out("Serving \"\(podcast.title)\" at \(server.url("/feed.xml").absoluteString)")
        Console.out("Downloading \(podcast.episodes.count) episodes, \(jobs) at a time, into \(folder)")
        let context = try QueueContext.open(home: home, downloadDir: folder)
        let items = podcast.episodes.map {
            DownloadItem(url: server.url("/episodes/\($0.file)"), title: "\(podcast.title) — \($0.title)", fileName: $0.file,
                         podcast: podcast.title)
        }
        let code = try await DownloadRunner(context: context, jobs: jobs).run(adding: items)
        await server.stop()
        if code == ExitCodes.success { Console.out("Done. The episodes are in \(folder)") }
        if code != ExitCodes.success { throw ExitCode(code) }
    }
}
