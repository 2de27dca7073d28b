import ArgumentParser
import Foundation
import PodqCore

/// `podq download [--jobs N] [--download-dir DIR] [<url>...]`: headless downloads.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download URLs headless, several at once, then exit.",
        discussion: """
            On a terminal it shows live progress lines; otherwise it prints one line per event \
            (started, resumed, completed, failed). Exit codes: 0 all completed, 1 some failed, \
            2 bad usage, 130 interrupted (partial files are kept and resume on the next run).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: [.short, .long], help: "How many downloads run at once (1-64).")
    var jobs: Int = 3

    @Option(name: .long, help: ArgumentHelp("Where the files go (default: $PODQ_HOME/downloads, else ~/Podcasts).", valueName: "dir"))
    var downloadDir: String?

    @Option(name: .long, help: ArgumentHelp("Seconds without a byte before an attempt is abandoned.", valueName: "seconds"))
    var stallTimeout: Double = 30

    @Argument(help: "The http:// or https:// URLs to download.")
    var urls: [String] = []

    func validate() throws {
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 64, not \(jobs).") }
        guard stallTimeout > 0 else { throw ValidationError("--stall-timeout must be more than 0 seconds.") }
        for text in urls {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host != nil
            else {
                throw ValidationError("'\(SafeText.clean(text))' is not an http:// or https:// URL.")
            }
        }
    }

    func run() async throws {
        let paths = PodqPaths(home: global.home, downloadDir: downloadDir)
        let items = urls.compactMap { URL(string: $0) }.map { DownloadItem(url: $0, title: nil) }
        let runner = DownloadRunner(downloadFolder: paths.downloadFolder, jobs: jobs,
                                    stallTimeout: .milliseconds(Int(stallTimeout * 1000)))
        let code = try await runner.run(items)
        if code != ExitCodes.success { throw ExitCode(code) }
    }
}
