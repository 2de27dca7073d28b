import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqHTTP
import PodqSession

/// `podq download [--jobs N] [--per-host N] [--download-dir DIR] [<url>...]`: headless downloads.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Run the queue headless (adding any URLs given) until nothing is left to do.",
        discussion: """
            On a terminal it shows live progress lines; otherwise it prints one line per event \
            (started, resumed, completed, failed, retrying). Exit codes: 0 all completed, 1 some failed, \
            2 bad usage, 3 another podq runs the queue, 4 a bad config, 5 an unusable queue database, \
            130 interrupted (the queue and the partial files are kept and resume on the next run).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: [.short, .long], help: "How many downloads run at once (1-64; default: the config's simultaneous-downloads, 3).")
    var jobs: Int?

    @Option(
        name: .long, help: ArgumentHelp("How many downloads from one host run at once (1-64; default: the config's per-host-downloads, 2).", valueName: "n"))
    var perHost: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How many connections one large download may use when its server takes ranges (1-16; 1: one each; default: the config's connections-per-download, 4).",
            valueName: "n"))
    var connections: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The speed limit all downloads share: bytes a second, or with K or M (1000, 1000²: 500K, 2M); 0 for none (default: the config's rate-limit).",
            valueName: "rate")
    )
    var limitRate: String?

    @Option(
        name: .long, help: ArgumentHelp("Where new files go (default: the config's download-folder, $PODQ_HOME/downloads, else ~/Podcasts).", valueName: "dir"),
        completion: .directory)
    var downloadDir: String?

    @Option(name: .long, help: ArgumentHelp("Seconds without a byte before an attempt is abandoned (default: the config's, 30).", valueName: "seconds"))
    var stallTimeout: Double?

    @Flag(name: .long, help: "One JSON object per line for each event, progress every second, and a summary (COMMANDS.md).")
    var json = false

    @Argument(help: "http:// or https:// URLs to add to the queue before running it.")
    var urls: [String] = []

    func validate() throws {
        try GlobalOptions.path(downloadDir, "--download-dir")
        if let jobs, !(1...64).contains(jobs) { throw ValidationError("--jobs must be between 1 and 64, not \(jobs).") }
        if let perHost, !(1...64).contains(perHost) { throw ValidationError("--per-host must be between 1 and 64, not \(perHost).") }
        if let connections, !(1...16).contains(connections) { throw ValidationError("--connections takes a number from 1 to 16, not \(connections).") }
        if let limitRate, !RateLimiter.parse(limitRate).valid {
            throw ValidationError("--limit-rate takes a rate of at least 10K, such as 500K or 2M (or 0 for none), not \(limitRate).")
        }
        if let stallTimeout, !(stallTimeout > 0) { throw ValidationError("--stall-timeout must be more than 0 seconds.") }
        _ = try URLArguments.parse(urls)
    }

    func run() async throws {
        // The run's lines from the start: a wait for another program's lock while opening is said among them.
        let reporter = DownloadRunner.reporter(json: json)
        let context = try QueueContext.open(global, downloadDir: downloadDir, lockNotes: { reporter.note($0) })
        let items = try URLArguments.parse(urls).map { DownloadItem(url: $0, title: nil) }
        let code = try await DownloadRunner(
            context: context, jobs: jobs, perHost: perHost, connections: connections, stallTimeout: stallTimeout,
            rateLimit: limitRate.map { RateLimiter.parse($0).bytesPerSecond }, json: json, reporter: reporter
        ).run(adding: items)
        if code != ExitCodes.success { throw ExitCode(code) }
    }
}

/// Checks URL arguments: http or https with a host.
enum URLArguments {
    static func parse(_ texts: [String]) throws -> [URL] {
        try texts.map { given in
            // `example.org/ep.mp3` is https, as a browser reads it.
            let text = FeedSource.schemelessURL(given) ?? given
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host != nil
            else {
                throw ValidationError("'\(SafeText.clean(given))' is not an http:// or https:// URL." + DownloadError.schemeHint(given))
            }
            return url
        }
    }
}
