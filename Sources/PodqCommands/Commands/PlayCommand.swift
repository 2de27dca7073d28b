import ArgumentParser
import Foundation
import PodqCore

/// `podq play <id>`: plays a completed download with the configured player.
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a completed download with the configured player.",
        discussion: """
            The player is the config's `player` (its words, with the file added at the end or put \
            where %f is), else the first of mpv, ffplay, vlc and xdg-open found on PATH. The id is the \
            one `podq queue` shows. With mpv, a feed episode starts where it was left (here, or on a phone \
            through podq sync), its position is stored when mpv quits, and at the end it is marked played; \
            another player is only started.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id, as `podq queue` shows it.")
    var id: Int64

    func run() throws {
        let context = try QueueContext.open(global)
        do {
            let file = try Player.file(of: id, in: context.store)
            let argv = try Player.command(for: file, configured: context.settings.player, configFile: context.paths.configFile)
            context.log.info("playing", metadata: ["id": "\(id)", "command": "\(argv.joined(separator: " "))"])
            let listening = Listening(store: context.store, home: context.paths.home)
            let (status, line) = try listening.play(argv, episode: listening.episode(ofDownload: id)) { try Player.run($0) }
            guard status == 0 else { throw PlayerError.failed(command: argv[0], status: status) }
            if let line { Console.out("#\(id): \(line)") }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(error)
        }
    }
}
