import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession

/// `podq play <id>`: plays a completed download with the configured player.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a completed download with the configured player.",
        discussion: """
            The player is the config's `player` (its words, with the file added at the end or put \
            where %f is), else the first of mpv, ffplay, vlc and xdg-open found on PATH. With mpv, a feed episode starts where it was left (here, or on a phone \
            through podq sync), its position is stored when mpv quits, and at the end it is marked played; \
            another player is only started. It takes a download (d7, or a bare 7, as `podq queue` shows it) or an \
            episode (e12, as `podq episodes` shows it: the episode's downloaded file). `--at 1:02:03` starts \
            there (mpv, ffplay and vlc), as `podq grep` prints a hit's time; `--chapter 3` at the third chapter. With \
            chapters beside the file (sidecars = true), mpv gets them as its chapter list.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("A download (d7, or a bare 7) or an episode (e12).", valueName: "download"))
    var item: String

    @Option(name: .long, help: ArgumentHelp("Start there (h:mm:ss, mm:ss or seconds), as podq grep prints it.", valueName: "time"))
    var at: String?

    @Option(name: .long, help: ArgumentHelp("Start at this chapter (1 is the first), from the chapters beside the file.", valueName: "n"))
    var chapter: Int?

    func validate() throws {
        if at != nil && chapter != nil { throw ValidationError("Give --at or --chapter, not both.") }
        if let chapter, chapter < 1 { throw ValidationError("--chapter counts from 1.") }
        if let at, CueTime.seconds(at.trimmingSpaces) == nil {
            throw ValidationError("--at needs a time: 1:02:03, 62:03 or 3723 (seconds); it was given '\(SafeText.clean(at))'.")
        }
    }

    func run() async throws {
        let context = try QueueContext.open(global)
        do {
            let id = try await IdArguments.download(item, in: context.store)
            let start = at.flatMap { CueTime.seconds($0.trimmingSpaces) }.map { Int($0.rounded(.down)) }
            let playback = try await Playback.prepare(download: id, context: context, at: start, chapter: chapter)
            let argv = playback.argv
            let played = try playback.run()
            let exit = played.exit
            var line = played.line
            if let listened = played.listened { line = try await playback.record(listened) }
            if let line { Console.out("\(ItemKind.download.label(id)): \(line)") }
            // Stopped by a signal (the terminal closed, SIGTERM): what was heard is kept; exit as every command does.
            if let signal = exit.signal {
                context.log.info("play stopped by a signal", metadata: ["id": "\(id)", "signal": "\(signal)"])
                throw ExitCode(ExitCodes.interrupted)
            }
            guard exit.status == 0 else { throw PlayerError.failed(command: argv[0], status: exit.status, reason: exit.reason) }
        } catch let error as CommandError {
            throw error
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw CommandError(error)
        }
    }
}
