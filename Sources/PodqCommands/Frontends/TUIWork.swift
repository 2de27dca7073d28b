import FoundationEssentials
import Glibc
import PodqCore
import PodqHTTP
import PodqSession
import PodqUI

/// A piece of the keys' work, as a value: what the worker (``TUISession``'s `commands`) carries out,
/// in the order of the keys, off the main actor.
enum TUIWork: Sendable {
    /// Where a command runs when not in the keys' order.
    enum Beside: Sendable {
        /// Many rows or a podcast's episodes: `starting` is said in the keys' order, then the command
        /// runs beside the keys, and quitting waits for it (none writes once the home's lock is released).
        case bulk(String)
        /// Feed or sync work: not awaited at quit (a slow feed must not hold `q` back); `starting` said
        /// first, when there is one, so that the answer always comes after it.
        case feeds(String?)
    }

    /// What follows a command, whether it worked or not.
    enum Then: Sendable {
        case nothing
        /// Read the library again (played marks, subscriptions, new episodes).
        case reloadLibrary
        /// Take the disk-full notice away (everything resumed).
        case clearNotice
        /// After a speed-limit change: say which key lifts the limit when one more doubling would.
        case hintFaster(String)
        /// A sync ended: another may start; the library is read again when it ran.
        case finishSync(OneAtATime)
    }

    /// A command for the session.
    case command(QueueSession.Command, beside: Beside?, then: Then)
    /// A line said in the order of the keys.
    case say(String, isError: Bool)

    /// Carries this out: in place, or started beside the keys' work.
    func carryOut(on session: QueueSession, events: TUIEvents, library: TUILibrary, bulk: BulkWork) async {
        switch self {
        case .say(let text, let isError):
            events.post(text, isError: isError)
        case .command(let command, nil, let then):
            await Self.run(command, on: session, events: events, then: then, library: library)
        case .command(let command, .bulk(let starting), let then):
            events.post(starting)
            bulk.add(Task.detached { await Self.run(command, on: session, events: events, then: then, library: library) })
        case .command(let command, .feeds(let starting), let then):
            if let starting { events.post(starting) }
            Task.detached { await Self.run(command, on: session, events: events, then: then, library: library) }
        }
    }

    /// `command` through the session: what it did shown (its line, a podcast, the directory's answer)
    /// or its error said; then `then`.
    static func run(_ command: QueueSession.Command, on session: QueueSession, events: TUIEvents, then: Then = .nothing, library: TUILibrary? = nil)
        async
    {
        var outcome: QueueSession.Outcome?
        do {
            outcome = try await session.perform(command)
        } catch {
            events.post(CommandError(error).message, isError: true)
        }
        if let outcome { show(outcome, then: then, events: events) }
        switch then {
        case .nothing, .hintFaster: break
        case .reloadLibrary: library?.reload()
        case .clearNotice: events.post(.notice(nil))
        case .finishSync(let syncing):
            syncing.finish()
            if case .noSyncAccount = outcome {} else { library?.reload() }
        }
    }

    /// What the TUI shows of `outcome`: its line, and for some a view.
    private static func show(_ outcome: QueueSession.Outcome, then: Then, events: TUIEvents) {
        switch outcome {
        case .directory(let words, let answer):
            events.post(
                .directory(
                    .init(
                        words: words, shows: answer.shows, answered: answer.answered.map(\.name).joined(separator: ", "), note: outcome.line,
                        failed: answer.answered.isEmpty)))
        case .subscribed(let feed):
            if let podcast = feed.podcast {
                events.post(.showPodcast(id: podcast.id, title: podcast.title))
                events.post((outcome.line ?? "") + " · Enter on an episode queues it")
            } else if let line = outcome.line {
                events.post(line)
            }
        case .alreadySubscribed(let podcast):
            events.post(.showPodcast(id: podcast.id, title: podcast.title))
            if let line = outcome.line { events.post(line) }
        case .rate(let value, true, _):
            var line = outcome.line ?? ""
            if case .hintFaster(let key) = then, let value, RateLimiter.faster(than: value) == nil { line += " (\(key) once more: no limit)" }
            events.post(line)
        default:
            if let line = outcome.line { events.post(line, isError: outcome.failed) }
        }
    }
}
