import Foundation
import PodqCore
import PodqTerminal
import PodqUI

/// Carrying out what the keys ask (``TUIAction``), each with a line on the message line.
extension TUISession {
    func perform(_ action: TUIAction) {
        do {
            switch action {
            case .perform(let event, let id):
                try runner.perform(event, id: id)
                say("\(event.verb) #\(id)" + (event == .cancel ? " (its partial file is deleted)" : event == .pause ? " (its partial file is kept)" : ""))
            case .startNext(let id):
                try runner.startNext(id: id)
                say("#\(id) starts next")
            case .move(let id, let offset):
                if try !runner.move(id: id, by: offset) { say("#\(id) is already \(offset < 0 ? "first" : "last")") }
            case .changeLimit(let offset):
                changeLimit(by: offset)
            case .changeRate(let faster):
                changeRate(faster: faster)
            case .pauseAll(let pause):
                let count = try runner.setAllPaused(pause)
                if !pause { inbox.setNotice(nil) }
                say(pause ? "paused \(count) download\(count == 1 ? "" : "s"); P resumes them" : "resumed \(count) download\(count == 1 ? "" : "s")")
            case .remove(let id, let deletingFile):
                try runner.remove(id: id, deletingFile: deletingFile)
                library.markStale()
                say("removed #\(id)" + (deletingFile ? " and deleted its file" : ""))
            case .queueEpisode(let id):
                let made = try EpisodeQueueing(context: context).queue([id])
                library.markStale()
                runner.signal()
                if let row = made.first {
                    say("queued #\(row.id ?? 0) \(row.title)")
                } else {
                    say("that episode is already in the queue (Downloads view: 1)")
                }
            case .addFeed(let url):
                say("adding \(SafeText.clean(url))…")
                background { refresher in try await refresher.subscribe(url, autoQueue: false) }
            case .refreshFeeds:
                let podcasts = try context.store.podcasts()
                say("refreshing \(podcasts.count) feed\(podcasts.count == 1 ? "" : "s")…")
                background { refresher in
                    var lines: [String] = []
                    var failed = 0
                    for p in podcasts {
                        let outcome = await refresher.refresh(p)
                        if outcome.failed { failed += 1 }
                        lines.append(outcome.line)
                    }
                    if failed > 0 { throw CommandError(lines.joined(separator: " · "), code: ExitCodes.failure) }
                    return "refreshed: " + lines.joined(separator: " · ")
                }
            case .removePodcast(let id):
                try context.store.removePodcast(id: id)
                library.markStale()
                say("unsubscribed; downloaded files are kept")
            case .play:
                break  // needs the screen: the loop calls play(_:on:)
            case .quit:
                break
            }
        } catch {
            say((error as? LocalizedError)?.errorDescription ?? (error as? CommandError)?.message ?? String(describing: error), isError: true)
        }
    }

    /// `+` / `-`: the runner's limit now, and the config file for the next start.
    private func changeLimit(by offset: Int) {
        let value = min(64, max(1, runner.maxConcurrent + offset))
        guard value != runner.maxConcurrent else {
            say("the limit is already \(value)")
            return
        }
        runner.setMaxConcurrent(value)
        do {
            try ConfigFile(path: context.paths.configFile).set("simultaneous-downloads", to: String(value))
            say("\(value) downloads at once (saved in \(context.paths.configFile))")
        } catch {
            say("\(value) downloads at once; not saved: \(error.localizedDescription)", isError: true)
        }
    }

    /// `<` / `>`: halve or double the shared speed limit now, and keep it in the config. `<` with no
    /// limit starts from half the current speed; `>` past 1 GiB/s lifts the limit.
    private func changeRate(faster: Bool) {
        let current = rateLimiter.bytesPerSecond
        let next: Int?
        if faster {
            guard let current else { return say("there is no speed limit; < sets one") }
            next = current >= 512 * 1024 * 1024 ? nil : current * 2
        } else {
            let base = current ?? max(Int(model.snapshot().reduce(0) { $0 + $1.speed }), RateLimiter.slowest * 2)
            next = max(RateLimiter.slowest, base / 2)
        }
        rateLimiter.bytesPerSecond = next
        let text = next.map { "speed limit " + Format.bytes(Int64($0)) + "/s" } ?? "no speed limit"
        do {
            try ConfigFile(path: context.paths.configFile).set("rate-limit", to: next.map(String.init) ?? "0")
            say("\(text) (saved in \(context.paths.configFile))")
        } catch {
            say("\(text); not saved: \(error.localizedDescription)", isError: true)
        }
    }

    private func say(_ text: String, isError: Bool = false) {
        state.message = .init(SafeText.clean(text), isError: isError)
    }

    /// Runs feed work off the main actor; its line arrives through the inbox.
    private func background(_ work: @escaping @Sendable (FeedRefresh) async throws -> String) {
        let refresher = FeedRefresh(context: context, transport: transport)
        let inbox = self.inbox, library = self.library, runner = self.runner
        Task.detached {
            do {
                inbox.post(try await work(refresher))
            } catch let error as CommandError {
                inbox.post(error.message, isError: true)
            } catch {
                inbox.post(error.localizedDescription, isError: true)
            }
            library.markStale()
            runner.signal()
        }
    }

    /// `o`: plays a completed download, giving the terminal to the player until it exits.
    @MainActor
    func play(_ id: Int64, on screen: CursesScreen) {
        do {
            let file = try Player.file(of: id, in: context.store)
            let argv = try Player.command(for: file, configured: context.settings.player, configFile: context.paths.configFile)
            context.log.info("playing", metadata: ["id": "\(id)", "command": "\(argv.joined(separator: " "))"])
            let status = try screen.handOver { try Player.run(argv) }
            say(status == 0 ? "played #\(id) with \(argv[0])" : PlayerError.failed(command: argv[0], status: status).localizedDescription,
                isError: status != 0)
        } catch {
            say((error as? LocalizedError)?.errorDescription ?? String(describing: error), isError: true)
        }
    }
}
