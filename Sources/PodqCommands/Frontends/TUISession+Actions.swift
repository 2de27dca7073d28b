import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession
import PodqTerminal
import PodqUI

/// Carrying out what the keys ask (``TUIAction``), each with a line on the message line.
///
/// The main actor never waits for the queue: a key's work is a ``TUIWork`` value queued to
/// ``TUISession/commands`` and carried out off the main actor, one after another in the order of the
/// keys, as a ``QueueSession/Command`` (the session words its line and changes rows through its
/// runner); a bulk one and feed work run beside the keys; their lines come back through the
/// ``TUIEvents``. Reads (the detail pane, the show notes' search, the directory) run beside too.
extension TUISession {
    func perform(_ action: TUIAction) {
        switch action {
        case .perform(let event, let id):
            queue(.perform(event, id: id))
        case .startNext(let id):
            queue(.startNext(id: id))
        case .move(let id, let offset):
            queue(.move(id: id, by: offset))
        case .changeLimit(let offset):
            // From the limit the keys asked for so far (the runner may not have applied the last one yet).
            guard let value = changeCap(limit, by: offset, name: "the limit") else { return }
            limit = value
            queue(.setLimit(value))
        case .changePerHost(let offset):
            guard let value = changeCap(perHost, by: offset, name: "the per-host cap") else { return }
            perHost = value
            queue(.setPerHost(value))
        case .changeRate(let faster):
            if faster && session.status.rateLimit == nil { return say("there is no speed limit; \(state.keys.key(.slower)) sets one") }
            queue(.changeRate(faster: faster, speed: model.snapshot().reduce(0) { $0 + $1.speed }), then: .hintFaster(String(state.keys.key(.faster))))
        case .pauseAll(let pause):
            queue(.pauseAll(pause), then: pause ? .nothing : .clearNotice)
        case .remove(let id, let deletingFile):
            queue(.remove(ids: [id], deletingFiles: deletingFile))
        case .queueEpisode(let id):
            queue(.queueEpisodes([id]))
        case .queueEpisodes(let ids):
            queue(.queueEpisodes(ids), beside: .bulk("queueing \(QueueSession.count(ids.count, "episode"))…"))
        case .queueFromPodcasts(let ids, let latest):
            queue(.queueFromPodcasts(ids, latest: latest), beside: .bulk("queueing from \(QueueSession.count(ids.count, "podcast"))…"))
        case .setPlayed(let ids, let played):
            library.markPlayed(ids, played)
            let starting = "marking \(ids.count) episodes \(played ? "played" : "not played")…"
            queue(.setPlayed(ids, played), beside: ids.count == 1 ? nil : .bulk(starting), then: .reloadLibrary)
        case .performMany(let event, let ids):
            queue(.performMany(event, ids: ids), beside: .bulk("\(event.doing) \(QueueSession.count(ids.count, "download"))…"))
        case .removeMany(let ids, let deletingFiles):
            queue(.remove(ids: ids, deletingFiles: deletingFiles), beside: .bulk("removing \(QueueSession.count(ids.count, "row"))…"))
        case .loadDetail(let view, let id):
            // A read: beside the keys' work, never behind it (the loop keeps only the detail still open).
            let reader = TUIDetailReader(reader: reader), events = self.events, session = self.session
            Task.detached {
                do {
                    let detail = try await reader.detail(view: view, id: id)
                    events.post(.detail(detail))
                    // An episode not downloaded: its chapters from the feed's link, under fetch-timeout.
                    guard view == .episodes, TUIDetailReader.awaitsChapters(detail) else { return }
                    let chapters: Result<[Chapter], any Error>
                    do { chapters = .success(try await session.linkedChapters(episodeId: id)) } catch { chapters = .failure(error) }
                    events.post(.detail(TUIDetailReader.filling(detail, chapters: chapters)))
                } catch {
                    events.post(CommandError(error).message, isError: true)
                }
            }
        case .searchNotes(let needle):
            // Beside the keys' work too: a search typed during a long bulk action is answered at once.
            let reader = self.reader, events = self.events, number = events.nextNotesSearch()
            Task.detached {
                do {
                    let found = try await reader.notesMatching(needle)
                    events.post(notes: NotesMatches(needle: needle, ids: found.ids, isComplete: found.isComplete), number: number)
                } catch {
                    events.post("cannot search the show notes: \(CommandError(error).message)", isError: true)
                }
            }
        case .addFeed(let url):
            queue(.subscribe(url), beside: .feeds("adding \(SafeText.clean(url))…"), then: .reloadLibrary)
        case .searchDirectory(let words):
            // Beside the keys' work: each directory has its deadline, and the answer comes as an event.
            let session = self.session, events = self.events
            Task.detached { await TUIWork.run(.searchDirectory(words), on: session, events: events) }
        case .subscribeFound(let url, let title):
            queue(.subscribe(url), beside: .feeds("subscribing to \(SafeText.clean(title))…"), then: .reloadLibrary)
        case .refreshFeeds:
            // Not a count from the library: it may not be read yet (a key pressed at start said "0 feeds").
            queue(.refresh(podcasts: nil), beside: .feeds("refreshing every feed…"), then: .reloadLibrary)
        case .sync:
            sync(asked: true)
        case .removePodcast(let id):
            // A podcast of 20,000 episodes takes its episodes and their notes with it: in the background.
            queue(.unsubscribe(podcast: id), beside: .bulk("unsubscribing…"), then: .reloadLibrary)
        case .play(let id):
            // The row, its file and its episode are read off the main actor; the loop starts the player.
            let session = self.session, events = self.events, playbacks = self.playbacks
            Task.detached {
                do {
                    let playback = try await session.preparePlay(id)
                    playbacks.add(playback)
                    events.post(.playerReady(id: id))
                } catch {
                    events.post((error as? LocalizedError)?.errorDescription ?? String(describing: error), isError: true)
                }
            }
        case .loadTranscript(let view, let id):
            // Beside the keys' work: a transcript fetched from the feed has its deadline (fetch-timeout).
            let reader = TUITranscriptReader(session: session), events = self.events
            Task.detached { events.post(.transcript(await reader.transcript(view: view, id: id))) }
        case .searchTranscripts(let words):
            let reader = TUITranscriptReader(session: session), events = self.events
            Task.detached { events.post(.transcript(await reader.search(words))) }
        case .playEpisode(let episodeId, let at):
            // As `o`: the row and the player are looked up off the main actor; the loop starts the player.
            let session = self.session, events = self.events, playbacks = self.playbacks
            Task.detached {
                do {
                    let playback = try await session.preparePlay(episode: episodeId, at: at)
                    playbacks.add(playback)
                    events.post(.playerReady(id: playback.id))
                } catch {
                    events.post((error as? LocalizedError)?.errorDescription ?? String(describing: error), isError: true)
                }
            }
        case .startPlayer:
            break  // needs the screen: the loop calls startPlayer(_:on:)
        case .quit:
            break
        }
    }

    /// Queues `command` to run through the session after the work of the keys before (or, `beside`,
    /// to start then and run beside them); its line (or its error) comes back through the events,
    /// then `then` is done (whether it worked or not).
    private func queue(_ command: QueueSession.Command, beside: TUIWork.Beside? = nil, then: TUIWork.Then = .nothing) {
        commands.yield(.command(command, beside: beside, then: then))
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

    /// Shows `text` on the message line, after the lines of the keys pressed before (they come
    /// through the same queue, so a later key's line is never covered by an earlier one's).
    private func say(_ text: String, isError: Bool = false) {
        commands.yield(.say(text, isError: isError))
    }

    /// Syncs with the account's server in the background, one sync at a time; its line arrives
    /// through the events, and the library is read again after it. `asked`: the key (a missing account
    /// is said); otherwise the start or the interval (without an account, nothing).
    func sync(asked: Bool) {
        guard syncing.start() else {
            if asked { say("a sync is already running") }
            return
        }
        queue(.sync(full: false, asked: asked), beside: .feeds(asked ? "syncing…" : nil), then: .finishSync(syncing))
    }

    /// `o`, once its player is ready: plays a completed download, giving the terminal to the player
    /// until it exits.
    @MainActor
    func startPlayer(_ id: Int64, on screen: any TerminalScreen) {
        guard let playback = playbacks.take(id) else { return }
        do {
            let played = try screen.handOver { try playback.run() }
            let (text, isError) = playback.line(after: played.exit, recorded: played.line)
            say(text, isError: isError)
            // What was heard is written by the keys' worker, never on the main actor; its line follows.
            if let listened = played.listened { queue(.recordListening(download: id, listened), then: .reloadLibrary) }
        } catch {
            say((error as? LocalizedError)?.errorDescription ?? String(describing: error), isError: true)
        }
    }
}
