import FoundationEssentials
import Glibc
import NIOHTTP1
import PodqBase
import PodqHTTP
import Synchronization

/// A search of podcast directories: every directory asked at once, each with a deadline of its own, the
/// answers merged into one list, one row per show (``DirectoryShow/mergeKey(_:)``), ranked.
///
/// A directory that fails or is slow is a note beside the others' results, never a wait: its request is
/// abandoned at the deadline. There are no retries (a search is asked again by the person).
public struct DirectorySearch: Sendable {
    /// One directory to ask, and where.
    public struct Source: Sendable, Equatable {
        public var directory: Directory
        public var endpoint: String
        public init(_ directory: Directory, endpoint: String) {
            self.directory = directory
            self.endpoint = endpoint
        }
    }

    /// What a search found, and what each failing directory said.
    public struct Answer: Sendable, Equatable {
        /// The shows, best first.
        public var shows: [DirectoryShow]
        /// Directories that gave nothing, with why.
        public var failures: [DirectoryError]
        /// Directories that answered.
        public var answered: [Directory]
    }

    public var sources: [Source]
    /// Podcast Index's key, when the user has one.
    public var key: Directory.Key?
    /// How long one directory may take, whole (its answer read too).
    public var deadline: Duration
    /// The most shows asked of each directory, and listed.
    public var limit: Int
    public var transport: any HTTPTransport
    /// The most an answer may weigh.
    public static let answerLimit = 4 << 20

    public init(sources: [Source], key: Directory.Key?, deadline: Duration = .seconds(8), limit: Int = 20, transport: any HTTPTransport) {
        self.sources = sources
        self.key = key
        self.deadline = deadline
        self.limit = limit
        self.transport = transport
    }

    /// Asks every source for `words` at once.
    public func run(_ words: String) async -> Answer {
        let results = await withTaskGroup(of: (Int, Result<[DirectoryShow], DirectoryError>).self) { group in
            for (index, source) in sources.enumerated() {
                group.addTask { (index, await self.ask(source, words: words)) }
            }
            var results: [(Int, Result<[DirectoryShow], DirectoryError>)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        var lists: [[DirectoryShow]] = []
        var failures: [DirectoryError] = []
        var answered: [Directory] = []
        for (source, result) in zip(sources, results) {
            switch result {
            case .success(let shows):
                lists.append(shows)
                answered.append(source.directory)
            case .failure(let error): failures.append(error)
            }
        }
        return Answer(shows: Array(Self.merge(lists, words: words).prefix(limit)), failures: failures, answered: answered)
    }

    /// One directory's shows, or why there are none; never longer than ``deadline``.
    func ask(_ source: Source, words: String) async -> Result<[DirectoryShow], DirectoryError> {
        let directory = source.directory
        if directory == .podcastindex, key == nil { return .failure(.noKey) }
        guard let request = directory.request(words: words, limit: limit, endpoint: source.endpoint, key: key) else {
            return .failure(.unreachable(directory, reason: "'\(SafeText.clean(source.endpoint))' is not an http(s) URL"))
        }
        let seconds = Int((Double(deadline.components.seconds) + Double(deadline.components.attoseconds) / 1e18).rounded(.up))
        let outcome = await Self.within(deadline) { [transport] () async -> Result<[DirectoryShow], DirectoryError> in
            do throws(DirectoryError) {
                let bytes = try await Self.fetch(request, directory: directory, transport: transport)
                return .success(try directory.shows(in: bytes))
            } catch {
                return .failure(error)
            }
        }
        return outcome ?? .failure(.tooSlow(directory, seconds: seconds))
    }

    /// The answer's bytes: redirects followed (5 at most; Podcast Index's login headers go to its own
    /// origin only), a status other than 200 an error, at most ``answerLimit`` bytes.
    static func fetch(_ first: TransportRequest, directory: Directory, transport: any HTTPTransport) async throws(DirectoryError) -> [UInt8] {
        var request = first
        do {
            for _ in 0...5 {
                let response = try await transport.send(request)
                if [301, 302, 303, 307, 308].contains(response.status), let location = response.headers.first(name: "Location") {
                    try? await RedirectFollower.drain(response.body)
                    guard let next = URL(string: location.trimmingSpaces, relativeTo: request.url)?.absoluteURL,
                        let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https"
                    else { throw DirectoryError.unreachable(directory, reason: "a redirect to '\(SafeText.clean(location))'") }
                    if !SyncConnection.sameOrigin(next, first.url) {
                        for name in ["Authorization", "X-Auth-Key", "X-Auth-Date"] { request.headers.remove(name: name) }
                    }
                    request.url = next
                    continue
                }
                guard response.status == 200 else {
                    try? await RedirectFollower.drain(response.body)
                    throw DirectoryError.unreachable(directory, reason: "HTTP \(response.status)")
                }
                var bytes: [UInt8] = []
                for try await chunk in response.body {
                    guard bytes.count + chunk.readableBytes <= answerLimit else {
                        throw DirectoryError.badAnswer(directory, detail: "more than \(answerLimit >> 20) MB")
                    }
                    bytes += chunk.readableBytesView
                }
                return bytes
            }
            throw DirectoryError.unreachable(directory, reason: "more than 5 redirects")
        } catch let error as DirectoryError {
            throw error
        } catch let error as DownloadError {
            switch error {
            // The transport's own clocks (`fetch-timeout`, `response-timeout`, `stall-timeout`) may end
            // it first: the same "too slow" as the search's deadline.
            case .tooSlow(let seconds), .noResponse(let seconds), .stalled(let seconds): throw .tooSlow(directory, seconds: Int(seconds.rounded(.up)))
            default: throw .unreachable(directory, reason: SafeText.clean(ErrorText.describe(error)))
            }
        } catch {
            throw .unreachable(directory, reason: SafeText.clean(String(describing: error)))
        }
    }

    /// `work`'s value, or nil when it takes longer than `deadline`: then it is cancelled and not
    /// waited for.
    static func within<T: Sendable>(_ deadline: Duration, _ work: @escaping @Sendable () async -> T) async -> T? {
        let race = Race<T>()
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            race.begin(continuation)
            race.add(Task { race.finish(await work()) })
            race.add(
                Task {
                    try? await Task.sleep(for: deadline)
                    if !Task.isCancelled { race.finish(nil) }
                })
        }
    }

    /// The first of a piece of work and its deadline to finish resumes the waiting search; the other is
    /// cancelled.
    final class Race<T: Sendable>: Sendable {
        private struct State {
            var waiting: CheckedContinuation<T?, Never>?
            var tasks: [Task<Void, Never>] = []
            var over = false
        }
        private let state = Mutex(State())

        func begin(_ continuation: CheckedContinuation<T?, Never>) { state.withLock { $0.waiting = continuation } }

        func add(_ task: Task<Void, Never>) {
            let over = state.withLock { state in
                if !state.over { state.tasks.append(task) }
                return state.over
            }
            if over { task.cancel() }
        }

        func finish(_ value: T?) {
            let (waiting, tasks) = state.withLock { state in
                guard !state.over else { return (nil as CheckedContinuation<T?, Never>?, [Task<Void, Never>]()) }
                state.over = true
                defer { state.waiting = nil }
                return (state.waiting, state.tasks)
            }
            waiting?.resume(returning: value)
            for task in tasks { task.cancel() }
        }
    }

    /// The directories' lists as one, one row per show, best first: a show scores by its place in each
    /// list that has it (reciprocal rank, so one found by two directories rises), more when its title
    /// is the words, or holds them all. Ties keep the order of the first list.
    public static func merge(_ lists: [[DirectoryShow]], words: String) -> [DirectoryShow] {
        var merged: [String: (show: DirectoryShow, score: Double, first: Int)] = [:]
        var order = 0
        for list in lists {
            for (rank, show) in list.enumerated() {
                let key = DirectoryShow.mergeKey(show.feedURL)
                let score = 1.0 / Double(rank + 10)
                if var known = merged[key] {
                    known.show = combined(known.show, show)
                    known.score += score
                    merged[key] = known
                } else {
                    merged[key] = (show, score, order)
                    order += 1
                }
            }
        }
        func fold(_ text: String) -> [String] {
            TextFold.fold(text).split(whereSeparator: { !$0.isLetter && !$0.isNumber })
                .map(String.init)
        }
        let needle = fold(words)
        func bonus(_ show: DirectoryShow) -> Double {
            let words = fold(show.title)
            let title = words.joined(separator: " ")
            if title == needle.joined(separator: " ") { return 1 }
            if !needle.isEmpty, needle.allSatisfy(words.contains) { return 0.05 }
            return 0
        }
        return merged.values.sorted { a, b in
            let (x, y) = (a.score + bonus(a.show), b.score + bonus(b.show))
            return x != y ? x > y : a.first < b.first
        }.map(\.show)
    }

    /// One show from two directories' listings: the first's text, the other's where the first has none,
    /// an https feed URL over an http one, the larger episode count and the later date.
    static func combined(_ a: DirectoryShow, _ b: DirectoryShow) -> DirectoryShow {
        var show = a
        if show.author.isEmpty { show.author = b.author }
        if show.description.isEmpty { show.description = b.description }
        if !show.feedURL.lowercased().hasPrefix("https:"), b.feedURL.lowercased().hasPrefix("https:") { show.feedURL = b.feedURL }
        show.episodes = [a.episodes, b.episodes].compactMap { $0 }.max()
        show.latest = [a.latest, b.latest].compactMap { $0 }.max()
        show.subscribers = a.subscribers ?? b.subscribers
        for source in b.sources where !show.sources.contains(source) { show.sources.append(source) }
        return show
    }
}
