import Foundation
import PodqCore
import PodqTerminal
import PodqUI

/// Carrying out what the keys ask (``TUIAction``), each with a line on the message line.
///
/// The main actor never waits for the queue: a key's work goes to ``TUISession/commands`` and runs
/// off the main actor, one piece after another in the order of the keys, through the ``QueueRunner``
/// (the one writer of rows in this process); its line comes back through the ``TUIInbox``.
extension TUISession {
    func perform(_ action: TUIAction) {
        let runner = self.runner
        switch action {
        case .perform(let event, let id):
            act {
                try await runner.perform(event, id: id)
                return "\(event.verb) #\(id)" + (event == .cancel ? " (its partial file is deleted)" : event == .pause ? " (its partial file is kept)" : "")
            }
        case .startNext(let id):
            act {
                try await runner.startNext(id: id)
                return "#\(id) starts next"
            }
        case .move(let id, let offset):
            act { try await runner.move(id: id, by: offset) ? nil : "#\(id) is already \(offset < 0 ? "first" : "last")" }
        case .changeLimit(let offset):
            changeLimit(by: offset)
        case .changePerHost(let offset):
            changePerHost(by: offset)
        case .changeRate(let faster):
            changeRate(faster: faster)
        case .pauseAll(let pause):
            let inbox = self.inbox
            act {
                let count = try await runner.setAllPaused(pause)
                if !pause { inbox.setNotice(nil) }
                return pause ? "paused \(count) download\(count == 1 ? "" : "s"); P resumes them" : "resumed \(count) download\(count == 1 ? "" : "s")"
            }
        case .remove(let id, let deletingFile):
            act {
                try await runner.remove(id: id, deletingFile: deletingFile)
                return "removed #\(id)" + (deletingFile ? " and deleted its file" : "")
            }
        case .queueEpisode(let id):
            let planning = QueuePlanning(context: context)
            act {
                let (new, skipped) = try planning.plan(forEpisodes: [id])
                let made = try await runner.add(new)
                guard let row = made.first else {
                    guard let existing = skipped.first else { return "that episode is already in the queue (Downloads view: 1)" }
                    return existing.state == .completed ? "already downloaded as #\(existing.id ?? 0): \(existing.destination)"
                        : "already in the queue as #\(existing.id ?? 0) (\(existing.state.rawValue))"
                }
                return "queued #\(row.id ?? 0) \(row.title)"
            }
        case .queueEpisodes(let ids):
            let planning = QueuePlanning(context: context)
            bulk("queueing \(Self.count(ids.count, "episode"))…") {
                let (new, skipped) = try planning.plan(forEpisodes: ids)
                let made = try await runner.add(new)
                let already = skipped.isEmpty ? "" : "; \(skipped.count) already in the queue"
                return "queued \(Self.count(made.count, "episode"))" + already
            }
        case .queueFromPodcasts(let ids, let latest):
            let planning = QueuePlanning(context: context), store = context.store
            bulk("queueing from \(Self.count(ids.count, "podcast"))…") {
                var episodeIds: [Int64] = []
                for id in ids {
                    // Newest first: the latest `latest`, or every one never queued.
                    episodeIds += try store.episodeIds(podcastId: id, latest: latest, onlyNeverQueued: latest == nil)
                }
                guard !episodeIds.isEmpty else { return "nothing new to queue" }
                let (new, skipped) = try planning.plan(forEpisodes: episodeIds)
                let made = try await runner.add(new)
                return "queued \(Self.count(made.count, "episode"))" + (skipped.isEmpty ? "" : "; \(skipped.count) already in the queue")
            }
        case .setPlayed(let ids, let played):
            library.markPlayed(ids, played)
            let store = context.store, library = self.library
            let line = "marked \(ids.count == 1 ? "#\(ids[0])" : "\(ids.count) episodes") \(played ? "played" : "not played")"
            let work: @Sendable () async throws -> String? = {
                try store.setPlayed(episodeIds: ids, played: played)
                library.reload()
                return line
            }
            if ids.count == 1 { act(work) } else { bulk("marking \(ids.count) episodes \(played ? "played" : "not played")…", work) }
        case .performMany(let event, let ids):
            bulk("\(event.doing) \(Self.count(ids.count, "download"))…") {
                let refused = try await runner.perform(event, ids: ids)
                let done = ids.count - refused.count
                let line = "\(event.verb) \(Self.count(done, "download"))"
                    + (event == .cancel ? " (partial files deleted)" : event == .pause ? " (partial files kept)" : "")
                guard refused.isEmpty else {
                    let failures = refused.prefix(5).map { "#\($0.id): \(CommandError($0.error).message)" }
                        + (refused.count > 5 ? ["and \(refused.count - 5) more"] : [])
                    throw CommandError(line + "; " + failures.joined(separator: " · "), code: ExitCodes.failure)
                }
                return line
            }
        case .removeMany(let ids, let deletingFiles):
            bulk("removing \(Self.count(ids.count, "row"))…") {
                let removed = try await runner.remove(ids: ids, deletingFiles: deletingFiles)
                return "removed \(Self.count(removed, "row"))" + (deletingFiles ? " and deleted their completed files" : "; files kept")
            }
        case .loadDetail(let view, let id):
            // A read: beside the keys' work, never behind it (the loop keeps only the detail still open).
            let reader = TUIDetailReader(store: context.store, configAutoQueue: context.settings.autoQueue), inbox = self.inbox
            Task.detached {
                do {
                    inbox.post(detail: try reader.detail(view: view, id: id))
                } catch {
                    inbox.post(CommandError(error).message, isError: true)
                }
            }
        case .searchNotes(let needle):
            // Off the keys' worker too: a search typed during a long bulk action is answered at once.
            let store = context.store, inbox = self.inbox, number = inbox.nextNotesSearch()
            Task.detached {
                do {
                    let found = try await store.episodesMatchingNotes(needle)
                    inbox.post(notes: NotesMatches(needle: needle, ids: found.ids, isComplete: found.isComplete), number: number)
                } catch {
                    inbox.post("cannot search the show notes: \(CommandError(error).message)", isError: true)
                }
            }
        case .addFeed(let url):
            say("adding \(SafeText.clean(url))…")
            background { refresher in
                let outcome = try await refresher.subscribe(url, autoQueue: false)
                return outcome.line
            }
        case .refreshFeeds:
            // The subscriptions are read by the background task, not here: a key never waits for the store.
            let count = library.current.podcasts.count, store = context.store
            say("refreshing \(count) feed\(count == 1 ? "" : "s")…")
            background { refresher in
                var outcomes: [FeedRefresh.Outcome] = []
                for p in try store.podcasts() { outcomes.append(await refresher.refresh(p)) }
                let line = Self.refreshSummary(outcomes)
                if outcomes.contains(where: \.failed) { throw CommandError(line, code: ExitCodes.failure) }
                return line
            }
        case .removePodcast(let id):
            // A podcast of 20,000 episodes takes its episodes and their notes with it: in the background.
            let store = context.store, library = self.library
            bulk("unsubscribing…") {
                try store.removePodcast(id: id)
                library.reload()
                return "unsubscribed; downloaded files are kept"
            }
        case .play:
            break  // needs the screen: the loop calls play(_:on:)
        case .quit:
            break
        }
    }

    /// What a refresh of every feed did, in one message: every feed with new episodes, every failure
    /// and every note (a move, repairs), and how many had nothing new.
    nonisolated static func refreshSummary(_ outcomes: [FeedRefresh.Outcome]) -> String {
        let told = outcomes.filter { $0.failed || $0.newCount > 0 || $0.line.contains(";") }
        let quiet = outcomes.count - told.count
        let new = outcomes.reduce(0) { $0 + $1.newCount }
        var head = "refreshed \(outcomes.count) feed\(outcomes.count == 1 ? "" : "s"): \(new) new episode\(new == 1 ? "" : "s")"
        if quiet > 0 { head += ", \(quiet) with nothing new" }
        return ([head] + told.map(\.line)).joined(separator: " · ")
    }

    /// Queues `work` to run after the work of the keys before; its line (or its error) comes back
    /// through the inbox.
    private func act(_ work: @escaping @Sendable () async throws -> String?) {
        let inbox = self.inbox
        commands.yield {
            do {
                if let line = try await work() { inbox.post(line) }
            } catch {
                inbox.post(CommandError(error).message, isError: true)
            }
        }
    }

    /// Runs a bulk action (many rows, or a podcast's episodes) in the background, so that no other
    /// key's work waits for it: `starting` is said in the order of the keys, then the work runs beside
    /// them and its line (or error) comes back through the inbox when it is done.
    private func bulk(_ starting: String, _ work: @escaping @Sendable () async throws -> String?) {
        let inbox = self.inbox
        commands.yield {
            inbox.post(starting)
            Task.detached {
                do {
                    if let line = try await work() { inbox.post(line) }
                } catch {
                    inbox.post(CommandError(error).message, isError: true)
                }
            }
        }
    }

    /// `n` things, in words: "1 row", "3 rows".
    nonisolated static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// `+` / `-`: the runner's limit now, and the config file for the next start.
    private func changeLimit(by offset: Int) {
        // From the limit the keys asked for so far (the runner may not have applied the last one yet).
        guard let value = changeCap(limit, by: offset, name: "the limit") else { return }
        limit = value
        let runner = self.runner
        saveCap(value, as: "simultaneous-downloads", saying: "\(value) downloads at once") { await runner.setMaxConcurrent(value) }
    }

    /// `]` / `[`: the runner's per-host cap now, and the config file for the next start.
    private func changePerHost(by offset: Int) {
        guard let value = changeCap(perHost, by: offset, name: "the per-host cap") else { return }
        perHost = value
        let runner = self.runner
        saveCap(value, as: "per-host-downloads", saying: "\(value) download\(value == 1 ? "" : "s") at once from one host") {
            await runner.setPerHost(value)
        }
    }

    /// `current` moved by `offset` within 1…64, or nil (and a line saying so) when it cannot move.
    private func changeCap(_ current: Int, by offset: Int, name: String) -> Int? {
        let value = min(64, max(1, current + offset))
        guard value != current else {
            say("\(name) is already \(value)")
            return nil
        }
        return value
    }

    /// Applies a cap through the runner, then keeps it in the config file for the next start.
    private func saveCap(_ value: Int, as key: String, saying line: String, apply: @escaping @Sendable () async -> Void) {
        let configFile = context.paths.configFile
        act {
            await apply()
            do {
                try ConfigFile(path: configFile).set(key, to: String(value))
                return "\(line) (saved in \(configFile))"
            } catch {
                throw CommandError("\(line); not saved: \(error.localizedDescription)", code: ExitCodes.config)
            }
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

    /// Shows `text` on the message line, after the lines of the keys pressed before (they come
    /// through the same queue, so a later key's line is never covered by an earlier one's).
    private func say(_ text: String, isError: Bool = false) {
        let inbox = self.inbox
        commands.yield { inbox.post(text, isError: isError) }
    }

    /// Runs feed work off the main actor, beside the keys' work (a slow feed does not hold a key
    /// back); its line arrives through the inbox. New episodes it queues go through the runner.
    private func background(_ work: @escaping @Sendable (FeedRefresh) async throws -> String) {
        let refresher = FeedRefresh(context: context, transport: transport, writer: .runner(runner))
        let inbox = self.inbox, library = self.library, runner = self.runner
        Task.detached {
            do {
                inbox.post(try await work(refresher))
            } catch {
                inbox.post(CommandError(error).message, isError: true)
            }
            library.reload()
            runner.wake()
            FreedMemory.release()  // a big feed's parse leaves freed memory resident otherwise
        }
    }

    /// `o`: plays a completed download, giving the terminal to the player until it exits.
    @MainActor
    func play(_ id: Int64, on screen: any TerminalScreen) {
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
