import Foundation
import PodqCore
import PodqSession
import PodqTerminal
import PodqUI

/// Carrying out what the keys ask (``TUIAction``), each with a line on the message line.
///
/// The main actor never waits for the queue: a key's work goes to ``TUISession/commands`` and runs
/// off the main actor, one piece after another in the order of the keys, as a ``QueueSession/Command``
/// (the session words its line and changes rows through the runner, the one writer of rows in this
/// process); a bulk one runs beside the keys; its line comes back through the ``TUIEvents``.
extension TUISession {
    func perform(_ action: TUIAction) {
        switch action {
        case .perform(let event, let id):
            act(.perform(event, id: id))
        case .startNext(let id):
            act(.startNext(id: id))
        case .move(let id, let offset):
            act(.move(id: id, by: offset))
        case .changeLimit(let offset):
            // From the limit the keys asked for so far (the runner may not have applied the last one yet).
            guard let value = changeCap(limit, by: offset, name: "the limit") else { return }
            limit = value
            act(.setLimit(value))
        case .changePerHost(let offset):
            guard let value = changeCap(perHost, by: offset, name: "the per-host cap") else { return }
            perHost = value
            act(.setPerHost(value))
        case .changeRate(let faster):
            changeRate(faster: faster)
        case .pauseAll(let pause):
            let events = self.events
            act(.pauseAll(pause)) { if !pause { events.post(.notice(nil)) } }
        case .remove(let id, let deletingFile):
            act(.remove(ids: [id], deletingFiles: deletingFile))
        case .queueEpisode(let id):
            act(.queueEpisodes([id]))
        case .queueEpisodes(let ids):
            bulk("queueing \(QueueSession.count(ids.count, "episode"))…", .queueEpisodes(ids))
        case .queueFromPodcasts(let ids, let latest):
            bulk("queueing from \(QueueSession.count(ids.count, "podcast"))…", .queueFromPodcasts(ids, latest: latest))
        case .setPlayed(let ids, let played):
            library.markPlayed(ids, played)
            let library = self.library
            if ids.count == 1 {
                act(.setPlayed(ids, played)) { library.reload() }
            } else {
                bulk("marking \(ids.count) episodes \(played ? "played" : "not played")…", .setPlayed(ids, played)) { library.reload() }
            }
        case .performMany(let event, let ids):
            bulk("\(event.doing) \(QueueSession.count(ids.count, "download"))…", .performMany(event, ids: ids))
        case .removeMany(let ids, let deletingFiles):
            bulk("removing \(QueueSession.count(ids.count, "row"))…", .remove(ids: ids, deletingFiles: deletingFiles))
        case .loadDetail(let view, let id):
            // A read: beside the keys' work, never behind it (the loop keeps only the detail still open).
            let reader = TUIDetailReader(store: context.store, configAutoQueue: context.settings.autoQueue), events = self.events
            Task.detached {
                do {
                    events.post(.detail(try reader.detail(view: view, id: id)))
                } catch {
                    events.post(CommandError(error).message, isError: true)
                }
            }
        case .searchNotes(let needle):
            // Off the keys' worker too: a search typed during a long bulk action is answered at once.
            let store = context.store, events = self.events, number = events.nextNotesSearch()
            Task.detached {
                do {
                    let found = try await store.episodesMatchingNotes(needle)
                    events.post(notes: NotesMatches(needle: needle, ids: found.ids, isComplete: found.isComplete), number: number)
                } catch {
                    events.post("cannot search the show notes: \(CommandError(error).message)", isError: true)
                }
            }
        case .addFeed(let url):
            background("adding \(SafeText.clean(url))…") { refresher in
                let outcome = try await refresher.subscribe(url, autoQueue: false)
                return outcome.line
            }
        case .searchDirectory(let words):
            // Beside the keys' work: each directory has its deadline, and the answer comes as an event.
            let settings = context.settings, transport = self.transport, events = self.events, log = context.log
            Task.detached {
                let answer = await DirectoryLookup.search(words, settings: settings, transport: transport)
                log.info("search", metadata: ["shows": "\(answer.shows.count)", "failed": "\(answer.failures.count)"])
                let note = answer.failures.isEmpty ? nil : DirectoryLookup.failureLine(answer.failures)
                events.post(
                    .directory(
                        .init(
                            words: words, shows: answer.shows, answered: answer.answered.map(\.name).joined(separator: ", "),
                            note: answer.answered.isEmpty ? "No directory could be searched: \(note ?? "")" : note, failed: answer.answered.isEmpty)))
            }
        case .subscribeFound(let url, let title):
            let events = self.events, store = context.store
            background("subscribing to \(SafeText.clean(title))…") { refresher in
                // Already followed (by this URL): its episodes, nothing fetched.
                if let known = try? store.podcast(matching: url), let id = known.id {
                    events.post(.showPodcast(id: id, title: known.title))
                    return "already subscribed to \(known.title) (\(ItemKind.podcast.label(id)))"
                }
                let outcome = try await refresher.subscribe(url, autoQueue: false)
                if let podcast = outcome.podcast, let id = podcast.id { events.post(.showPodcast(id: id, title: podcast.title)) }
                return outcome.line + " · Enter on an episode queues it"
            }
        case .refreshFeeds:
            // The subscriptions are read by the background task, not here: a key never waits for the store.
            // Not a count from the library: it may not be read yet (a key pressed at start said "0 feeds").
            let store = context.store
            background("refreshing every feed…") { refresher in
                var outcomes: [FeedRefresh.Outcome] = []
                for p in try store.podcasts() { outcomes.append(await refresher.refresh(p)) }
                let line = Self.refreshSummary(outcomes)
                if outcomes.contains(where: \.failed) { throw CommandError(line, code: ExitCodes.failure) }
                return line
            }
        case .sync:
            sync(asked: true)
        case .removePodcast(let id):
            // A podcast of 20,000 episodes takes its episodes and their notes with it: in the background.
            let library = self.library
            bulk("unsubscribing…", .unsubscribe(podcast: id)) { library.reload() }
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

    /// Queues `command` to run through the session after the work of the keys before; its line (or
    /// its error) comes back through the events, and `then` runs after it (whether it worked or not).
    private func act(_ command: QueueSession.Command, then: (@Sendable () -> Void)? = nil) {
        let events = self.events, session = self.session
        commands.yield {
            await Self.run(command, on: session, events: events)
            then?()
        }
    }

    /// Runs a bulk `command` (many rows, or a podcast's episodes) in the background, so that no other
    /// key's work waits for it: `starting` is said in the order of the keys, then the command runs
    /// beside them and its line (or error) comes back through the events when it is done.
    private func bulk(_ starting: String, _ command: QueueSession.Command, then: (@Sendable () -> Void)? = nil) {
        let events = self.events, session = self.session, bulkWork = self.bulkWork
        commands.yield {
            events.post(starting)
            bulkWork.add(
                Task.detached {
                    await Self.run(command, on: session, events: events)
                    then?()
                })
        }
    }

    /// `command` through the session, its line or its error posted.
    private nonisolated static func run(_ command: QueueSession.Command, on session: QueueSession, events: TUIEvents) async {
        do {
            if let line = try await session.perform(command) { events.post(line) }
        } catch {
            events.post(CommandError(error).message, isError: true)
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

    /// `<` / `>`: halve or double the shared speed limit now, and keep it in the config. `<` with no
    /// limit starts from half the current speed; `>` past 1 GiB/s lifts the limit.
    private func changeRate(faster: Bool) {
        let current = rateLimiter.bytesPerSecond
        let next: Int?
        if faster {
            guard let current else { return say("there is no speed limit; \(state.keys.key(.slower)) sets one") }
            next = RateLimiter.faster(than: current)
        } else {
            next = RateLimiter.slower(than: current, speed: model.snapshot().reduce(0) { $0 + $1.speed })
        }
        rateLimiter.bytesPerSecond = next
        var text = next.map { "speed limit " + Format.bytes(Int64($0)) + "/s" } ?? "no speed limit"
        if let next, RateLimiter.faster(than: next) == nil { text += " (\(state.keys.key(.faster)) once more: no limit)" }
        do {
            try ConfigFile(path: context.paths.configFile).set("rate-limit", to: next.map(RateLimiter.written) ?? "0")
            say("\(text) (saved in \(context.paths.configFile))")
        } catch {
            say("\(text); not saved: \(error.localizedDescription)", isError: true)
        }
    }

    /// Shows `text` on the message line, after the lines of the keys pressed before (they come
    /// through the same queue, so a later key's line is never covered by an earlier one's).
    private func say(_ text: String, isError: Bool = false) {
        let events = self.events
        commands.yield { events.post(text, isError: isError) }
    }

    /// Runs feed work off the main actor, beside the keys' work (a slow feed does not hold a key
    /// back): `starting` is said in the order of the keys, and only then does the work start, so its
    /// line, which arrives through the events, always comes after (a quick answer was once covered by
    /// its own "subscribing…"). New episodes it queues go through the runner.
    private func background(_ starting: String, _ work: @escaping @Sendable (FeedRefresh) async throws -> String) {
        let refresher = FeedRefresh(context: context, transport: transport, writer: .runner(runner))
        let events = self.events, library = self.library, runner = self.runner
        commands.yield {
            events.post(starting)
            // Not awaited at quit (a slow feed must not hold `q` back).
            Task.detached {
                do {
                    events.post(try await work(refresher))
                } catch {
                    events.post(CommandError(error).message, isError: true)
                }
                library.reload()
                runner.wake()
                FreedMemory.release()  // a big feed's parse leaves freed memory resident otherwise
            }
        }
    }

    /// Syncs with the account's server in the background (the session's `sync` command), one sync at a
    /// time; its line arrives through the events, and the library is read again after it. `asked`: the
    /// key (a missing account is said); otherwise the start or the interval (without an account, nothing).
    func sync(asked: Bool) {
        guard syncing.start() else {
            if asked { say("a sync is already running") }
            return
        }
        let session = self.session, events = self.events, library = self.library, runner = self.runner, store = context.store
        let syncing = self.syncing
        // "syncing…" in the order of the keys, and the sync only after it: its line always comes last.
        commands.yield {
            if asked { events.post("syncing…") }
            Task.detached {
                defer { syncing.finish() }
                // The account is read here, off the main actor: a key never waits for the store.
                guard asked || (try? store.syncAccount()) != nil else { return }
                do {
                    if let line = try await session.perform(.sync(full: false)) { events.post(line) }
                } catch {
                    events.post(CommandError(error).message, isError: true)
                }
                library.reload()
                runner.wake()
            }
        }
    }

    /// `o`: plays a completed download, giving the terminal to the player until it exits.
    @MainActor
    func play(_ id: Int64, on screen: any TerminalScreen) {
        do {
            let file = try Player.file(of: id, in: context.store)
            let argv = try Player.command(for: file, configured: context.settings.player, configFile: context.paths.configFile)
            context.log.info("playing", metadata: ["id": "\(id)", "command": "\(argv.joined(separator: " "))"])
            // One read of the row and its episode before the terminal goes to the player (the key's one store read).
            let listening = Listening(store: context.store, home: context.paths.home)
            let (exit, line) = try screen.handOver { try listening.play(argv, episode: listening.episode(ofDownload: id)) { try Player.run($0) } }
            let status = exit.signal == nil ? exit.status : 0
            say(
                status == 0
                    ? "played \(ItemKind.download.label(id)) with \(argv[0])" + (line.map { ": " + $0 } ?? "")
                    : PlayerError.failed(command: argv[0], status: status, reason: exit.reason).localizedDescription,
                isError: status != 0)
            if line != nil { library.reload() }
        } catch {
            say((error as? LocalizedError)?.errorDescription ?? String(describing: error), isError: true)
        }
    }
}
