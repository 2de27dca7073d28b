import FoundationEssentials
import Glibc
import Logging
import PodqBase
import PodqCore

/// The pull: the subscription changes since the last pull (on a first sync with a gpodder.net server,
/// every device's subscriptions are adopted, in whichever shape the server lists them), each new feed
/// subscribed as `podq add` would and each removed one unsubscribed (its files stay); then the plays of
/// every device since a little before the last pull (servers filter by the action's own time, so one
/// uploaded late could be missed: the overlap window, and `podq sync --full`), applied idempotently by
/// ``SyncStore/applyPlays(_:now:)``'s rule. Actions podq cannot use are skipped and counted.
///
/// Every lookup goes through one map of the subscriptions, built once and kept up to date: a pull is
/// linear in the feeds and actions it is given.
extension SyncRun {
    package func pull(_ server: any SyncServer, account: SyncStore.SyncAccount, report: inout Report) async throws {
        let store = context.store
        var adds: [String] = []
        var removes: [String] = []
        // A second back: servers count in whole seconds and answer with changes after the time given,
        // so a change in the very second of the last pull would be missed. Seen twice, it changes nothing.
        let delta = try await server.subscriptions(since: max(0, account.subscriptionsSince - 1))
        if account.subscriptionsSince == 0, let every = try await server.allSubscriptions() {
            adds += every.urls
            report.skippedFeeds = every.skipped
        }
        adds += delta.add
        removes += delta.remove
        // A feed both added and removed in one answer (two devices disagreeing) is left as podq has it.
        let both = Set(delta.add.map(SyncURL.key)).intersection(delta.remove.map(SyncURL.key))
        adds.removeAll { both.contains(SyncURL.key($0)) }
        removes.removeAll { both.contains(SyncURL.key($0)) }
        let removed = Set(removes.map(SyncURL.key))
        // Only web feeds: a server's list is the network's text, and `podq add` would also read a
        // local file or a folder's path (`/etc/passwd`, `file:…`). Podcast apps' schemes become http.
        var refused: [String] = []
        adds = adds.compactMap { url in
            guard let web = SyncURL.webFeed(url) else {
                refused.append(SafeText.clean(url))
                return nil
            }
            return web
        }
        if !refused.isEmpty {
            report.subscribeFailed.append("\(Report.count(refused.count, "listed feed")), not http(s): \(refused.prefix(3).joined(separator: ", "))")
            context.log.warning("sync: the server listed feeds that are not http(s); left out", metadata: ["count": "\(refused.count)"])
        }
        var known = try await store.sync.podcastsBySyncKey()
        var missing = false
        var seen = Set<String>()
        let refresh = FeedRefresh(context: context, transport: transport)
        for url in adds where !removed.contains(SyncURL.key(url)) && seen.insert(SyncURL.key(url)).inserted {
            guard known[SyncURL.key(url)] == nil else { continue }
            do {
                // As `podq import`: a feed that cannot be read now is subscribed with its error (refresh tries again).
                let outcome = try await refresh.subscribe(url, autoQueue: false, fallbackTitle: url, keepOnFailure: true, announce: false)
                var subscribed = outcome.podcast
                if subscribed == nil {
                    known = try await store.sync.podcastsBySyncKey()
                    subscribed = known[SyncURL.key(url)]
                }
                if var podcast = subscribed {
                    if SyncURL.key(podcast.url) != SyncURL.key(url) {
                        try await store.sync.setSyncURL(podcast: podcast.id, url: url)
                        podcast.syncURL = url
                    }
                    known[SyncURL.key(podcast.url)] = podcast
                    known[SyncURL.key(url)] = podcast
                    report.subscribed.append(SafeText.clean(podcast.title))
                } else {
                    // Asked for again next time: the time stays.
                    missing = true
                }
                if outcome.failed { report.subscribeFailed.append("\(SafeText.clean(url)) (\(outcome.line))") }
            } catch {
                // Kept for the next pull: the server still lists it, and `--full` asks again.
                missing = true
                report.subscribeFailed.append("\(SafeText.clean(url)) (\(CommandError(error).message))")
            }
        }
        for key in Set(removes.map(SyncURL.key)) {
            guard let podcast = known[key] else { continue }
            try await store.library.removePodcast(id: podcast.id, announce: false)
            known = known.filter { $0.value.id != podcast.id }
            report.unsubscribed.append(SafeText.clean(podcast.title))
        }
        // A feed that could not be subscribed at all is asked for again next time: the time stays.
        try await store.sync.recordSync(subscriptionsSince: missing ? account.subscriptionsSince : delta.timestamp, error: nil)
        let since = max(0, account.actionsSince - Self.overlap)
        var applied = SyncStore.AppliedPlays()
        let answer = try await server.actions(since: since) { plays in
            // This device's own actions come back too (on gpodder, marked with its id): nothing to apply.
            applied += try await store.sync.applyPlays(plays.filter { $0.device == nil || $0.device != account.device })
        }
        report.plays = applied
        report.skipped = answer.skipped
        if !answer.skipped.isEmpty {
            context.log.warning("sync: actions skipped", metadata: ["skipped": "\(answer.skipped.line)"])
        }
        try await store.sync.recordSync(pulled: true, actionsSince: max(answer.timestamp ?? since, account.actionsSince), error: nil)
    }
}
