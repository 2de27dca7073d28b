import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqHTTP
import PodqSession
import PodqUI
import Synchronization

/// `podq add <feed-url|file> [--auto]`: subscribe.
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Subscribe to a feed; its episodes are listed, none queued.",
        discussion: "With --auto, each refresh queues the episodes it has not seen before (`podq refresh && podq download` from cron).")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Queue new episodes by themselves on refresh.") var auto = false
    @Option(name: .long, help: "A private feed's user name; the password is asked for (or read from standard input).") var user: String?
    @Option(name: .long, help: "With --user: a command that prints the password (run by sh when needed), instead of storing it.")
    var passwordCommand: String?
    @Option(name: .long, help: "The User-Agent for this podcast's feed and episodes.") var userAgent: String?
    @Argument(help: "The feed's http(s) URL, a website that links to its feed, or a feed file.", completion: .file()) var sources: [String]

    /// The one source given.
    var source: String { sources.joined(separator: " ") }

    func validate() throws {
        if sources.isEmpty { throw ValidationError("Give the feed's URL (or a feed file). To find a podcast by name: podq search <words>") }
        if passwordCommand != nil && user == nil { throw ValidationError("--password-command needs --user NAME.") }
        if let userAgent, userAgent.isEmpty || !userAgent.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            throw ValidationError("--user-agent takes printable ASCII text, such as \"MyPlayer/1.0\".")
        }
    }

    func run() async throws {
        // Words, not an address: a name typed where the URL goes.
        if sources.count > 1 || DirectoryLookup.words(in: source) != nil, let words = DirectoryLookup.words(in: source) {
            throw CommandError(
                "'\(SafeText.clean(words))' is not a feed URL or a file. To find a podcast by name: podq search \(DirectoryLookup.shellWords(SafeText.clean(words)))",
                code: ExitCodes.usage)
        }
        let context = try QueueContext.open(global)
        var login = FeedRefresh.Login(user: user, passwordCommand: passwordCommand, userAgent: userAgent)
        if let user, passwordCommand == nil, context.settings.passwordCommand == nil { login.password = try PasswordPrompt.ask(for: user) }
        let outcome = try await HTTPSession.with(settings: context.settings, logger: context.log) { transport in
            try await FeedRefresh(context: context, transport: transport).subscribe(source, autoQueue: auto, login: login)
        }
        Console.out(outcome.line)
    }
}

/// `podq login <podcast> --user NAME [--password-command CMD]`, `podq login <podcast> --remove`.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Set or remove a private feed's login.",
        discussion:
            "The password is asked for (or read from standard input) unless --password-command names a command that prints it. It is sent to the feed's host (its scheme, host and port as the feed's URL is now) only, for the feed and for episodes on that host, and never printed. A feed that moves to another host keeps no login there until podq login gives it again."
    )
    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "The user name.") var user: String?
    @Option(name: .long, help: "A command that prints the password (run by sh when needed), instead of storing it.") var passwordCommand: String?
    @Flag(name: .long, help: "Remove the login.") var remove = false
    @Argument(help: "A podcast: its id, title or feed URL.", completion: PodcastCompletion.podcasts) var podcast: String

    func validate() throws {
        if remove == (user != nil) { throw ValidationError("Give --user NAME to set a login, or --remove to remove it.") }
    }

    func run() async throws {
        let context = try QueueContext.open(global)
        do {
            let found = try await IdArguments.podcast(podcast, in: context.store)
            var password: String?
            if let user, passwordCommand == nil, context.settings.passwordCommand == nil { password = try PasswordPrompt.ask(for: user) }
            try await context.store.library.updatePodcast(id: found.id) { [password] p in
                p.loginUser = remove ? nil : user
                p.loginPassword = remove ? nil : password
                p.passwordCommand = remove ? nil : passwordCommand
                // Given (again) for where the feed is now: the user says so.
                p.loginOrigin = remove ? nil : URL(string: p.url).flatMap(Credentials.origin(of:))
            }
            Console.out(
                remove
                    ? "\(ItemKind.podcast.label(found.id)) \(found.title): login removed"
                    : "\(ItemKind.podcast.label(found.id)) \(found.title): login set for \(SafeText.clean(user ?? ""))")
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(error)
        }
    }
}

/// `podq feeds [--json]`.
struct FeedsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "feeds", abstract: "List the subscriptions.")
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print JSON (COMMANDS.md).") var json = false

    func run() async throws {
        let context = try QueueContext.open(global)
        let (podcasts, counts): ([PodcastRecord], [Int64: Int])
        do { (podcasts, counts) = await (try context.store.library.podcasts(), try context.store.library.episodeCounts()) } catch { throw CommandError(error) }
        if json {
            Console.out(
                JSONValue.array(
                    podcasts.map { p in
                        .object([
                            "id": .optional(p.id), "title": .string(p.title), "url": .string(p.url), "episodes": .int(Int64(counts[p.id] ?? 0)),
                            "lastRefresh": .optional(p.lastRefresh.map { Int64($0) }), "error": .optional(p.error),
                            "repairs": .optional(p.repairs),
                            "autoQueue": .bool(p.autoQueues(config: context.settings.autoQueue)),
                            // Its own rules (`podq set`), as `podq set` names them; {} when it follows the config.
                            "settings": .object(Dictionary(uniqueKeysWithValues: p.settingPairs.map { ($0.key, .string($0.value)) })),
                        ])
                    }
                ).text)
            return
        }
        if podcasts.isEmpty { Console.out("No subscriptions. Add one with `podq add <feed-url>`, or find one: podq search <words>") }
        // Columns: the id, the title, the count, the URL, each as wide as its widest (a title at most 40).
        let idWidth = String(podcasts.map { $0.id }.max() ?? 0).count + 1
        let titleWidth = min(40, podcasts.map { DisplayWidth.of($0.title) }.max() ?? 0)
        let numberWidth = String(podcasts.map { counts[$0.id] ?? 0 }.max() ?? 0).count
        let tallies = podcasts.map { p in
            let n = counts[p.id] ?? 0
            let number = String(repeating: " ", count: numberWidth - String(n).count) + String(n)
            return "\(number) episode\(n == 1 ? "" : "s")\(p.autoQueues(config: false) ? ", auto" : "")"
        }
        let countWidth = tallies.map { DisplayWidth.of($0) }.max() ?? 0
        for (p, count) in zip(podcasts, tallies) {
            let title = DisplayWidth.pad(DisplayWidth.truncate(p.title, to: titleWidth), to: titleWidth)
            var line = "\(EpisodesCommand.number(.podcast, p.id, width: idWidth))  \(title)  \(DisplayWidth.pad(count, to: countWidth))  \(p.url)"
            let own = p.settingPairs
            if !own.isEmpty { line += "\n      " + own.map { "\($0.key)=\($0.value)" }.joined(separator: "  ") }
            if let error = p.error { line += "\n      last refresh failed: \(error)" }
            if let repairs = p.repairs { line += "\n      read with repairs: \(repairs)" }
            Console.out(line)
        }
    }
}

/// `podq episodes [<podcast>] [--new] [--search <text>] [--json]`.
struct EpisodesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "episodes", abstract: "List episodes, newest first.")
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print JSON (COMMANDS.md).") var json = false
    @Flag(name: .long, help: "Only new episodes: never queued, never downloaded (the ledger: podq mark-downloaded), not marked played.") var new = false
    @Flag(name: .long, help: "Only downloaded episodes whose file changed upstream (podq queue add --again or --replace fetches them anew).")
    var updated = false
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only episodes whose title or podcast contains the text, or whose show notes have words beginning with its words (case and accents ignored).",
            valueName: "text"))
    var search: String?
    @Argument(help: "A podcast: its id, title or feed URL (default: all).", completion: PodcastCompletion.podcasts) var podcast: String?

    func run() async throws {
        let context = try QueueContext.open(global)
        // Rows go to the output as they are read (on the store's thread, hence the lock): memory stays
        // flat at 100,000 episodes.
        let printing = Mutex(EpisodePrinting())
        do {
            var id: Int64?
            if let podcast { id = try await IdArguments.podcast(podcast, in: context.store).id }
            // Ids right-aligned to the widest: ` e9` under `e12`.
            let idWidth = json ? 0 : String(try await context.store.library.largestEpisodeId()).count + 1
            if search != nil { try await context.store.library.indexAllNotes() }  // the episodes stored before the index, once
            let folded = search?.lowercased()  // as the TUI's `/`
            let json = self.json
            if json { printing.withLock { $0.out.piece("[") } }
            try await context.store.library.forEachEpisode(podcastId: id ?? nil, notesMatching: search, onlyNew: new, onlyUpdated: updated) { r in
                let state = Self.state(r)
                if let folded, !(r.notesMatch || r.episode.title.lowercased().contains(folded) || r.podcastTitle.lowercased().contains(folded)) {
                    return
                }
                let text = json ? Self.json(r, state: state).text : line(r, state: state, idWidth: idWidth)
                printing.withLock { printing in
                    if json { printing.out.piece((printing.first ? "" : ",") + text) } else { printing.out.line(text) }
                    printing.first = false
                }
            }
            printing.withLock { printing in
                if json { printing.out.line("]") }
                if !json, printing.first { printing.out.line(emptyLine) }
                printing.out.flush()
            }
        } catch {
            printing.withLock { $0.out.flush() }
            throw CommandError(error)
        }
    }

    /// What the list says of an episode, as the TUI does (``EpisodeState``): its download's state, a
    /// played one `played` (also when its file is downloaded), else `downloaded` when the ledger has it
    /// (downloaded before, elsewhere), or `new`.
    static func state(_ r: LibraryStore.EpisodeListing) -> String {
        var download: EpisodeState?
        if let raw = r.downloadState {
            guard let stored = StoredState(rawValue: raw) else { return raw }  // one this podq does not know: as stored
            download = EpisodeState(stored)
        }
        let state = EpisodeState(download: download, played: r.episode.playedAt != nil)
        return state == .new && r.inLedger ? "downloaded" : state.rawValue
    }

    /// One episode as `--json` gives it (docs/COMMANDS.md).
    static func json(_ r: LibraryStore.EpisodeListing, state: String) -> JSONValue {
        let e = r.episode
        return .object([
            "id": .optional(e.id), "podcastId": .int(e.podcastId), "podcast": .string(r.podcastTitle),
            "title": .string(e.title), "guid": .optional(e.guid), "published": .optional(e.published.map { Int64($0) }),
            "duration": .optional(e.duration), "url": .string(e.url), "type": .optional(e.type),
            "length": .optional(e.length), "state": .string(state), "played": .bool(e.playedAt != nil),
            "position": .optional(e.position),
            "updatedUpstream": .optional(e.upstreamChange),
            "enclosures": .array(e.allEnclosures.map { .object(["url": .string($0.url), "type": .optional($0.type), "length": .optional($0.length)]) }),
        ])
    }

    /// One episode as the plain listing gives it.
    /// What an empty listing says, rather than nothing.
    private var emptyLine: String {
        var what = new ? "No new episodes" : updated ? "No episode was updated upstream" : "No episodes"
        if let search { what += " match “\(SafeText.clean(search))”" }
        if let podcast { what += " in \(SafeText.clean(podcast))" }
        if new { return what + " (never queued, not downloaded, not played). `podq refresh` looks for new ones." }
        return what + "." + (podcast == nil && search == nil && !updated ? " Subscribe with `podq add <feed-url>`, or find one: podq search <words>" : "")
    }

    /// `e7` right-aligned under `e12`: padded on the left to `width` characters.
    static func number(_ kind: ItemKind, _ id: Int64, width: Int) -> String {
        let label = kind.label(id)
        return String(repeating: " ", count: max(0, width - label.count)) + label
    }

    private func line(_ r: LibraryStore.EpisodeListing, state: String, idWidth: Int) -> String {
        let date = r.episode.published.map { FeedDate.day(Date(timeIntervalSince1970: $0)) } ?? "          "
        // An episode begun (here or, through sync, on the phone) says where it stopped, as the TUI does.
        let begun = state == "new" ? r.episode.position.flatMap { $0 > 0 ? "▸ " + Format.duration($0) : nil } : nil
        let shown = r.episode.upstreamChange != nil ? "updated" : begun ?? state
        var line =
            "\(Self.number(.episode, r.episode.id, width: idWidth))  \(date)  \(DisplayWidth.pad(shown, to: 11)) \(r.podcastTitle) — \(r.episode.title)"
        if updated, let change = r.episode.upstreamChange { line += "\n      " + change }
        return line
    }
}

/// `podq remove <podcast>`: unsubscribe.
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Unsubscribe; downloads and files are kept.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "A podcast: its id, title or feed URL.", completion: PodcastCompletion.podcasts) var podcast: String

    func run() async throws {
        let context = try QueueContext.open(global)
        do {
            let p = try await IdArguments.podcast(podcast, in: context.store)
            try await context.store.library.removePodcast(id: p.id)
            Console.out("removed podcast \(ItemKind.podcast.label(p.id)) \(p.title)")
        } catch { throw CommandError(error) }
    }
}

/// What `podq episodes` has printed so far: the buffered output, and whether a row came yet.
private struct EpisodePrinting: ~Copyable {
    var out = Console.Buffered()
    var first = true
}
