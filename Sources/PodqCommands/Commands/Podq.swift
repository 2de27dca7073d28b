import ArgumentParser
import PodqBase
import PodqCore
import PodqSession

/// The root command.
public struct Podq: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "podq",
        abstract: "A terminal download manager for podcast episodes.",
        discussion: "Queues downloads, runs several at once, and resumes every partial file after a quit, a crash or kill -9.\n\n"
            + ExitCodes.summary,
        version: PodqVersion.described,
        subcommands: [
            TUICommand.self, AddCommand.self, LoginCommand.self, FeedsCommand.self, RefreshCommand.self, EpisodesCommand.self, RemoveCommand.self,
            DownloadCommand.self, QueueCommand.self, PlayCommand.self, CleanupCommand.self, VerifyCommand.self, MarkDownloadedCommand.self, SetCommand.self,
            MarkPlayedCommand.self, SyncCommand.self, SearchCommand.self, GrepCommand.self, TranscriptCommand.self, ReindexCommand.self, ParseCommand.self,
            ImportCommand.self, ExportCommand.self, DemoCommand.self,
        ],
        defaultSubcommand: TUICommand.self
    )

    public init() {}
}
