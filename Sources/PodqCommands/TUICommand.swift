import ArgumentParser
import Foundation

/// `podq` / `podq tui`: the terminal UI on the queue and the subscriptions.
struct TUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tui",
        abstract: "The terminal UI (what `podq` with no command opens).",
        discussion: "Downloads, Episodes and Podcasts views with live progress; ? lists the keys. The queue runs while it is open; q stops the downloads with their partial files kept, and they resume on the next start."
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: [.short, .long], help: "How many downloads run at once (default: the config's simultaneous-downloads, else 3).")
    var jobs: Int?

    @Option(name: .long, help: ArgumentHelp("How many downloads from one host run at once (1-64; default: the config's per-host-downloads, 2).", valueName: "n"))
    var perHost: Int?

    func validate() throws {
        if let jobs, !(1...64).contains(jobs) { throw ValidationError("--jobs takes a number from 1 to 64.") }
        if let perHost, !(1...64).contains(perHost) { throw ValidationError("--per-host takes a number from 1 to 64.") }
    }

    func run() async throws {
        let context = try QueueContext.open(global, echoLog: false)
        let code = try await TUISession.run(context: context, jobs: jobs, perHost: perHost)
        if code != ExitCodes.success { throw ExitCode(code) }
    }
}
