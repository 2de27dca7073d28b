import FoundationEssentials
import Glibc
import Logging
import PodqBase
import PodqCore
import PodqHTTP
import Synchronization

/// Subscribing and refreshing: the one path for `podq add`, `podq import`, `podq refresh` and the
/// TUI's `a` and `u`. Every feed is read by ``FeedSource/load(_:transport:etag:lastModified:sizeLimit:trace:allPages:)``
/// and stored by the store's merge; new episodes of auto podcasts go through the ``QueueWriter``.
package struct FeedRefresh {
    package let context: QueueContext
    package let transport: any HTTPTransport
    /// Where auto-queued episodes go: the store, or the runner in the TUI.
    package let writer: QueueWriter

    package init(context: QueueContext, transport: any HTTPTransport, writer: QueueWriter? = nil) {
        self.context = context
        self.transport = transport
        self.writer = writer ?? .store(context.store)
    }

    /// What subscribing to or refreshing one feed did, as a line for the user.
    package struct Outcome: Sendable {
        package var line: String
        package var failed: Bool
        /// The episodes the refresh found new.
        package var newCount = 0
        /// The podcast subscribed to, when it was.
        package var podcast: PodcastRecord?
    }

    /// Fetches `source` (a URL or a file) and subscribes to it.
    /// - Parameters:
    ///   - fallbackTitle: the title to keep when the feed cannot be read (an OPML outline's).
    ///   - keepOnFailure: subscribe even when the feed cannot be fetched or read, with the error saved
    ///     on the podcast (`podq import`: nothing is lost); the outcome then says `failed`.
    /// - Throws: ``CommandError`` (with its code from the table) when it cannot subscribe.
    ///   - login: the podcast's login and `User-Agent` (`podq add --user …`). A login written in the
    ///     URL (`https://user:pass@host/feed`) is taken out of it: the subscription's URL never holds it.
    ///   - announce: tell the sync server (false for a subscription the server asked for).
    package func subscribe(
        _ given: String, autoQueue: Bool, fallbackTitle: String = "", keepOnFailure: Bool = false,
        login: Login = Login(), announce: Bool = true
    ) async throws -> Outcome {
        var login = login
        var source = given
        if case .url(let text) = try? FeedSource.resolve(given), let url = URL(string: text) {
            let (clean, inURL) = Credentials.split(url)
            if let inURL {
                source = clean.absoluteString
                login.user = inURL.user
                login.password = inURL.password
            }
            // The login is for the URL given, not for wherever it leads (a web page's feed link, a redirect).
            if login.user != nil { login.origin = Credentials.origin(of: clean) }
        }
        let access = try await login.access(for: source, settings: context.settings)
        let chain = URLChain()
        let loaded: FeedSource.Loaded
        do {
            guard
                let found = try await FeedSource.load(
                    source, transport: transport, sizeLimit: context.settings.feedSizeLimit, trace: chain,
                    allPages: true, access: access)
            else {
                throw CommandError("the server answered 304 to a plain GET", code: ExitCodes.failure)
            }
            loaded = found
        } catch {
            logFailure("subscribe failed", source: source, chain: chain, error: error)
            let advice = PodcastLogin.advice(for: error, user: login.user, origin: login.origin, podcast: nil)
            guard keepOnFailure else { throw advice.map { CommandError($0, code: ExitCodes.code(for: error) ?? ExitCodes.failure) } ?? CommandError(error) }
            let message = advice ?? CommandError(error).message
            do {
                let (podcast, _) = try await context.store.library.addPodcast(
                    url: source, feed: Feed(title: fallbackTitle), etag: nil, lastModified: nil,
                    autoQueue: autoQueue, announce: announce)
                try await context.store.library.updatePodcast(id: podcast.id) { [login] in
                    $0.error = message; login.save(in: &$0)
                }
            } catch {
                throw CommandError(error)
            }
            return Outcome(line: "\(fallbackTitle.isEmpty ? source : fallbackTitle): subscribed, but: \(message)", failed: true)
        }
        do {
            var (podcast, episodes) = try await context.store.library.addPodcast(
                url: loaded.location, feed: loaded.feed, etag: loaded.etag,
                lastModified: loaded.lastModified, autoQueue: autoQueue, announce: announce)
            if !login.isEmpty { podcast = try await context.store.library.updatePodcast(id: podcast.id) { [login] in login.save(in: &$0) } }
            var metadata: Logger.Metadata = ["podcast": "\(podcast.id)", "url": "\(loaded.location)", "episodes": "\(episodes.count)"]
            if chain.urls.count > 1 { metadata["chain"] = "\(chain.description)" }
            context.log.info("subscribed", metadata: metadata)
            var line = "added podcast \(ItemKind.podcast.label(podcast.id)) \(podcast.title): \(Counted.of(episodes.count, "episode"))"
            if loaded.feed.itemsWithoutEnclosure > 0 { line += " (\(Counted.of(loaded.feed.itemsWithoutEnclosure, "item")) without media skipped)" }
            line += logRepairs(loaded.feed, podcast: podcast.id, url: loaded.location)
            line += logNotes(loaded.notes, podcast: podcast.id)
            return Outcome(line: line + (autoQueue ? "; new episodes will be queued on refresh" : ""), failed: false, podcast: podcast)
        } catch {
            throw CommandError(error)
        }
    }

    /// Re-fetches one feed with conditional GET, stores its new episodes, and queues them when the
    /// podcast (or the config) says so. A failure is saved on the podcast and returned, not thrown.
    package func refresh(_ p: PodcastRecord) async -> Outcome {
        let id = p.id
        let chain = URLChain()
        do {
            let access = try await PodcastLogin.access(for: p, settings: context.settings)
            guard
                let loaded = try await FeedSource.load(
                    p.url, transport: transport, etag: p.etag, lastModified: p.lastModified,
                    sizeLimit: context.settings.feedSizeLimit, trace: chain, access: access)
            else {
                context.log.info("feed not modified", metadata: ["podcast": "\(id)", "url": "\(p.url)"])
                // A permanent move answered 304 at its end is a move all the same.
                let movedTo = chain.movedPermanently ? chain.urls.last.flatMap { $0 == p.url ? nil : $0 } : nil
                let stored = try await context.store.library.refreshedUnchanged(id: id, movedTo: movedTo)
                var line = "\(p.title): not modified"
                if let movedTo {
                    line +=
                        stored == movedTo
                        ? "; the feed moved to \(movedTo)" : "; the feed moved to \(movedTo), which another subscription already has: kept \(stored)"
                    context.log.notice("feed moved", metadata: ["podcast": "\(id)", "from": "\(p.url)", "to": "\(movedTo)"])
                }
                // Serial mode moves on when episodes were played, whether or not the feed changed.
                let queued = p.rules.serial == nil ? "" : try await autoQueue(p, new: [])
                return Outcome(line: line + queued, failed: false)
            }
            var new = try await context.store.library.refreshPodcast(
                id: id, url: loaded.location, feed: loaded.feed, etag: loaded.etag,
                lastModified: loaded.lastModified)
            // A paged feed: the next pages, until one adds nothing new.
            var notes = loaded.notes
            var (page, pageNew, pages, visited) = (loaded.feed, new, 1, Set<String>())
            while !pageNew.isEmpty, let next = page.nextPage, let url = URL(string: next), visited.insert(next).inserted {
                guard pages < FeedSource.pageLimit else {
                    notes.append("stopped after \(FeedSource.pageLimit) pages of the paged feed")
                    break
                }
                let fetched: FeedSource.Page?
                do {
                    fetched = try await FeedSource.fetch(url, transport: transport, sizeLimit: context.settings.feedSizeLimit, trace: nil, access: access)
                } catch {
                    notes.append(FeedSource.pageFailure(pages + 1, error))
                    break
                }
                guard let fetched, case .feed(let more) = fetched.content else { break }
                pageNew = try await context.store.library.mergePage(podcastId: id, feed: more)
                new += pageNew
                (page, pages) = (more, pages + 1)
            }
            var line = "\(loaded.feed.title.isEmpty ? p.title : loaded.feed.title): \(new.count) new"
            if loaded.location != p.url {
                let stored = await (try? context.store.library.podcast(matching: String(id)))?.url ?? p.url
                line +=
                    stored == loaded.location
                    ? "; the feed moved to \(loaded.location)"
                    : "; the feed moved to \(loaded.location), which another subscription already has: kept \(stored)"
                context.log.notice("feed moved", metadata: ["podcast": "\(id)", "from": "\(p.url)", "to": "\(loaded.location)"])
            }
            line += logRepairs(loaded.feed, podcast: id, url: loaded.location)
            line += logNotes(notes, podcast: id)
            line += try await autoQueue(p, new: new)
            let updated = try await context.store.library.updatedUpstream(podcastId: id)
            if !updated.isEmpty {
                line +=
                    "; \(updated.count) downloaded episode\(updated.count == 1 ? "" : "s") updated upstream (podq episodes --updated;"
                    + " podq queue add --again or --replace <id>)"
                for e in updated {
                    context.log.notice("episode updated upstream", metadata: ["episode": "\(e.id)", "reason": "\(e.upstreamChange ?? "")"])
                }
            }
            var metadata: Logger.Metadata = ["podcast": "\(id)", "url": "\(p.url)", "new": "\(new.count)"]
            if chain.urls.count > 1 { metadata["chain"] = "\(chain.description)" }
            context.log.info("feed refreshed", metadata: metadata)
            return Outcome(line: line, failed: false, newCount: new.count)
        } catch {
            logFailure("refresh failed", source: p.url, chain: chain, error: error, podcast: id)
            let advice = PodcastLogin.advice(
                for: error, user: p.loginUser, origin: p.loginOrigin ?? URL(string: p.url).flatMap(Credentials.origin(of:)),
                podcast: id)
            var message = advice ?? CommandError(error).message
            // Moved for good (301/308) to where a login is wanted: the subscription follows, as on a
            // success, so that `podq login` gives the login for the new place, and the user sees it.
            var movedTo: String?
            if advice != nil, chain.movedPermanently, let last = chain.urls.last, last != p.url,
                await (try? context.store.library.podcast(matching: last)) == nil
            {
                movedTo = last
                message = "the feed moved to \(SafeText.clean(last)); " + message
                context.log.notice("feed moved", metadata: ["podcast": "\(id)", "from": "\(p.url)", "to": "\(last)"])
            }
            _ = try? await context.store.library.updatePodcast(id: id) { [message, movedTo] p in
                p.error = message
                p.lastRefresh = Date().timeIntervalSince1970
                if let movedTo { p.url = movedTo }
            }
            return Outcome(line: "\(p.title): \(message)", failed: true)
        }
    }

    /// Queues what a refresh of `p` brings, by the podcast's rules (``PodcastSettings``) and the
    /// config: its new episodes that its `include`, `exclude` and `min-duration` admit, or in serial mode
    /// the oldest episodes not yet played; never one the ledger has (downloaded before, or marked so),
    /// whatever became of its file. Returns the words for the user's line ("" when it queues nothing).
    private func autoQueue(_ p: PodcastRecord, new: [EpisodeRecord]) async throws -> String {
        let id = p.id
        guard p.autoQueues(config: context.settings.autoQueue) else { return "" }
        let rules = p.rules
        // One filter for the refresh (its patterns compiled once, its failures counted), asked here and
        // on the store's thread for a serial podcast's candidates: behind a lock.
        let filter = Mutex(TitleFilter(rules))
        let admittedNew = new.filter { episode in filter.withLock { $0.check(title: episode.title, duration: episode.duration) } == .admitted }
        let candidates: [Int64]
        if let count = rules.serial {
            candidates = try await context.store.library.serialCandidates(podcastId: id, count: count) { episode in
                filter.withLock { $0.check(title: episode.title, duration: episode.duration) } == .admitted
            }
        } else {
            candidates = admittedNew.compactMap(\.id)
        }
        let filtered = new.count - admittedNew.count
        guard !candidates.isEmpty || filtered > 0 || !new.isEmpty else { return "" }
        let fresh = try await context.store.library.notInLedger(candidates)
        let queued = fresh.isEmpty ? [] : try await writer.add(QueuePlanning(context: context).downloads(forEpisodes: fresh))
        var line = ", \(queued.count) queued"
        if rules.serial != nil { line += " (serial)" }
        if filtered > 0 && rules.serial == nil { line += " (\(filtered) left out by the podcast's include, exclude or min-duration)" }
        for (key, count) in filter.withLock({ $0.failures }).sorted(by: { $0.key < $1.key }) {
            line +=
                " (the \(key) pattern could not be matched on \(count) title\(count == 1 ? "" : "s"): it makes the matcher give up, no longer compiles, or used up the \(TitleFilter.budget.components.seconds) s a refresh gives a podcast's patterns; "
                + "they were not queued: check it with `podq set \(id) \(key)=…`)"
            context.log.warning(
                "a title pattern could not be matched",
                metadata: [
                    "podcast": "\(id)", "key": "\(key)", "titles": "\(count)",
                    "pattern": "\((key == "include" ? rules.include : rules.exclude) ?? "")",
                ])
        }
        if fresh.count < candidates.count {
            line += " (\(candidates.count - fresh.count) downloaded before, not queued again)"
            context.log.info("auto-queue skipped episodes in the ledger", metadata: ["podcast": "\(id)", "skipped": "\(candidates.count - fresh.count)"])
        }
        return line
    }

    /// Logs what a sloppy feed needed mended, and returns the words for the user's line ("" for a clean feed).
    private func logRepairs(_ feed: Feed, podcast: Int64, url: String) -> String {
        guard !feed.repairs.isEmpty else { return "" }
        context.log.warning("feed read with repairs", metadata: ["podcast": "\(podcast)", "url": "\(url)", "repairs": "\(feed.repairs.summary)"])
        return "; read with repairs: \(feed.repairs.summary)"
    }

    /// What `podq add` was told about a private feed's login and its own `User-Agent`.
    package struct Login: Sendable {
        package var user: String?
        package var password: String?
        package var passwordCommand: String?
        package var userAgent: String?
        /// Where the login goes (``Credentials/origin(of:)``): the URL the user gave, whatever it led to.
        package var origin: String?

        package init(user: String? = nil, password: String? = nil, passwordCommand: String? = nil, userAgent: String? = nil, origin: String? = nil) {
            self.user = user
            self.password = password
            self.passwordCommand = passwordCommand
            self.userAgent = userAgent
            self.origin = origin
        }

        package var isEmpty: Bool { user == nil && userAgent == nil }

        /// The access for fetching `source` now (a password command is run).
        package func access(for source: String, settings: Settings) async throws(CommandError) -> PodcastAccess? {
            var record = PodcastRecord(title: "", url: source)
            var login = self
            if login.origin == nil { login.origin = URL(string: source).flatMap(Credentials.origin(of:)) }
            login.save(in: &record)
            return try await PodcastLogin.access(for: record, settings: settings)
        }

        /// Stores the login on the podcast.
        package func save(in podcast: inout PodcastRecord) {
            guard !isEmpty else { return }
            podcast.loginUser = user
            podcast.loginPassword = user == nil ? nil : password
            podcast.passwordCommand = user == nil ? nil : passwordCommand
            podcast.loginOrigin = user == nil ? nil : origin ?? URL(string: podcast.url).flatMap(Credentials.origin(of:))
            if let userAgent { podcast.userAgent = userAgent }
        }
    }

    /// Logs the notes of a load (a feed found on a web page, the page cap) and returns them for the user's line.
    private func logNotes(_ notes: [String], podcast: Int64) -> String {
        for note in notes { context.log.notice("\(note)", metadata: ["podcast": "\(podcast)"]) }
        return notes.map { "; " + $0 }.joined()
    }

    /// Logs a feed that could not be read: the reason shown to the user, the error's case (the
    /// cause) and every URL the request went through.
    private func logFailure(_ what: String, source: String, chain: URLChain, error: any Error, podcast: Int64? = nil) {
        var metadata: Logger.Metadata = [
            "url": "\(source)",
            "reason": "\((error as? LocalizedError)?.errorDescription ?? String(describing: error))",
            "cause": "\(String(describing: error))",
        ]
        if chain.urls.count > 1 { metadata["chain"] = "\(chain.description)" }
        if let podcast { metadata["podcast"] = "\(podcast)" }
        context.log.error("\(what)", metadata: metadata)
    }
}
