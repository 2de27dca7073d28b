import ArgumentParser
import FoundationEssentials
import Glibc
import PodqSession

/// `podq` / `podq tui`: the terminal UI on the queue and the subscriptions.
struct TUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tui",
        abstract: "The terminal UI (what `podq` with no command opens).",
        discussion:
            "Downloads, Episodes and Podcasts views with live progress; ? lists the keys. The queue runs while it is open; q stops the downloads with their partial files kept, and they resume on the next start."
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: [.short, .long], help: "How many downloads run at once (default: the config's simultaneous-downloads, else 3).")
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

    func validate() throws {
        if let jobs, !(1...64).contains(jobs) { throw ValidationError("--jobs takes a number from 1 to 64.") }
        if let perHost, !(1...64).contains(perHost) { throw ValidationError("--per-host takes a number from 1 to 64.") }
        if let connections, !(1...16).contains(connections) { throw ValidationError("--connections takes a number from 1 to 16, not \(connections).") }
    }

    func run() async throws {
        let context = try QueueContext.open(global, echoLog: false)
        let code = try await TUISession.run(context: context, jobs: jobs, perHost: perHost, connections: connections)
        if code != ExitCodes.success { throw ExitCode(code) }
    }
}
