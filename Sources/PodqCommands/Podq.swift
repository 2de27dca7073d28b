import ArgumentParser
import PodqCore

/// The root command.
public struct Podq: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "podq",
        abstract: "A terminal download manager for podcast episodes.",
        discussion: "Queues downloads, runs several at once, and resumes every partial file after a quit, a crash or kill -9.",
        version: PodqVersion.current,
        subcommands: [DownloadCommand.self, QueueCommand.self, ParseCommand.self, DemoCommand.self]
    )

    public init() {}
}
