import PodqCore
import PodqUI
import XCTest

/// The TUI's in-memory library: lookups, rows made for the screen, and the filter (with and without
/// the cache that narrows a growing filter).
final class EpisodeLibraryTests: XCTestCase {
    private let podcasts = [
        PodcastRow(id: 1, title: "Tech Talk", url: "http://a/1", episodes: 3, lastRefresh: nil, error: nil, autoQueue: false),
        PodcastRow(id: 2, title: "日本語ラジオ", url: "http://a/2", episodes: 2, lastRefresh: nil, error: nil, autoQueue: false),
    ]

    private func library() -> EpisodeLibrary {
        EpisodeLibrary(
            podcasts: podcasts,
            entries: [
                .init(id: 30, podcastId: 1, title: "Swift on LINUX", published: 300, duration: 3723, length: 40_000_000),
                .init(id: 7, podcastId: 2, title: "第一回 Ärger", published: 200, duration: nil, length: nil),
                .init(id: 12, podcastId: 1, title: "ncurses \u{1B}[31min 2026", published: nil, duration: 0, length: 0),
                .init(id: 5, podcastId: 2, title: "Linux 🐧 again", published: 100, duration: 60, length: 1),
                .init(id: 99, podcastId: 1, title: "", published: 50, duration: nil, length: nil),
            ])
    }

    func testLookupsAndRowsKeepTheDisplayOrder() {
        let lib = library()
        XCTAssertEqual(lib.count, 5)
        XCTAssertEqual((0..<5).map(lib.id(at:)), [30, 7, 12, 5, 99])
        XCTAssertEqual([30, 7, 12, 5, 99, 1, 100].map(lib.position(of:)), [0, 1, 2, 3, 4, nil, nil])
        XCTAssertEqual(lib.podcastId(of: 5), 2)
        XCTAssertEqual(lib.episodeCount(of: 1), 3)
        XCTAssertEqual(lib.episodeCount(of: 3), 0)
        XCTAssertEqual(
            lib.row(at: 0, state: .queued),
            EpisodeRow(
                id: 30, podcastId: 1, podcast: "Tech Talk", title: "Swift on LINUX", published: 300, duration: 3723,
                length: 40_000_000, state: .queued))
        XCTAssertEqual(
            lib.row(at: 1, state: .new),
            EpisodeRow(
                id: 7, podcastId: 2, podcast: "日本語ラジオ", title: "第一回 Ärger", published: 200,
                duration: nil, length: nil, state: .new), "nil stays nil: no duration, no length")
        let zeroes = lib.row(at: 2, state: .new)
        XCTAssertEqual(zeroes.duration, 0, "zero is not taken for nil")
        XCTAssertEqual(zeroes.length, 0)
        XCTAssertNil(zeroes.published)
        XCTAssertEqual(zeroes.title, "ncurses in 2026", "an escape sequence never reaches the screen")
        XCTAssertEqual(lib.row(at: 4, state: .new).title, "")
        XCTAssertNotEqual(lib.version, library().version, "each library is told apart")
    }

    func testTheFilterIsCaseInsensitiveOnTitlesAndPodcasts() {
        let lib = library()
        func ids(_ needle: String, podcast: Int64? = nil) -> [Int64] {
            lib.positions(podcast: podcast, matching: needle).map { lib.id(at: Int($0)) }
        }
        XCTAssertEqual(ids(""), [30, 7, 12, 5, 99])
        XCTAssertEqual(ids("linux"), [30, 5])
        XCTAssertEqual(ids("LiNuX"), [30, 5])
        XCTAssertEqual(ids("ärger"), [7], "non-ASCII folds too")
        XCTAssertEqual(ids("ÄRGER"), [7])
        XCTAssertEqual(ids("🐧"), [5])
        XCTAssertEqual(ids("tech"), [30, 12, 99], "a podcast's title matches all its episodes")
        XCTAssertEqual(ids("ラジオ"), [7, 5])
        XCTAssertEqual(ids("linux", podcast: 2), [5])
        XCTAssertEqual(ids("", podcast: 1), [30, 12, 99])
        XCTAssertEqual(ids("nothing like it"), [])
        XCTAssertEqual(ids("swift on linux and more"), [], "a needle longer than every title")
    }

    /// The cache's answer, letter by letter and back, is always the plain search's.
    func testTheCacheAnswersAsTheSearchDoes() {
        let lib = library()
        let cache = RowListCache()
        var state = TUIState()
        state.view = .episodes
        let cached = TUISnapshot(library: lib, rowLists: cache)
        let plain = TUISnapshot(library: lib)
        let typed = ["l", "li", "lin", "linu", "linux", "linu", "lin", "", "t", "te", "tec", "tech", "a", "ag", "aga", "again"]
        for scope in [nil, Int64(1), Int64(2)] {
            state.episodesOf = scope.map { .init(id: $0, title: "x") }
            for needle in typed {
                state.filter[.episodes] = needle.isEmpty ? nil : needle
                XCTAssertEqual(state.visibleIDs(.episodes, in: cached), state.visibleIDs(.episodes, in: plain), "\(needle) in \(String(describing: scope))")
            }
        }
        // A new library (a refresh) is never answered from the old one's rows.
        let other = EpisodeLibrary(podcasts: podcasts, entries: [.init(id: 1, podcastId: 1, title: "linux", published: nil, duration: nil, length: nil)])
        state.episodesOf = nil
        state.filter[.episodes] = "linux"
        XCTAssertEqual(state.visibleIDs(.episodes, in: TUISnapshot(library: other, rowLists: cache)), [1])
    }

    /// Titles are stored once; only one with capitals or accents beyond ASCII keeps a folded copy.
    /// Search and the title order ignore case and accents, in every script.
    func testSearchAndTitleOrderIgnoreCaseWithTitlesStoredOnce() {
        let titles = ["beta", "Alpha", "ÄRGER", "ärger two", "第一回", "Zed", "ÉTÉ Beta"]
        let lib = EpisodeLibrary(
            entries: titles.enumerated().map {
                .init(
                    id: Int64($0.offset + 1), podcastId: 1, title: $0.element,
                    published: nil, duration: nil, length: nil)
            })
        func shown(_ positions: [Int32]) -> [String] { positions.map { lib.row(at: Int($0), state: .new).title } }
        XCTAssertEqual(shown(lib.positions(podcast: nil, matching: "ÄR")), ["ÄRGER", "ärger two"])
        XCTAssertEqual(shown(lib.positions(podcast: nil, matching: "är")), ["ÄRGER", "ärger two"])
        XCTAssertEqual(shown(lib.positions(podcast: nil, matching: "BETA")), ["beta", "ÉTÉ Beta"])
        XCTAssertEqual(shown(lib.positions(podcast: nil, matching: "été b")), ["ÉTÉ Beta"])
        XCTAssertEqual(shown(lib.positions(podcast: nil, matching: "ete")), ["ÉTÉ Beta"], "accents ignored")
        XCTAssertEqual(shown(lib.positions(podcast: nil, matching: "arg")), ["ÄRGER", "ärger two"])
        XCTAssertEqual(shown(lib.positions(podcast: nil, matching: "第一")), ["第一回"])
        XCTAssertEqual(shown(lib.positions(podcast: nil, matching: "zE")), ["Zed"])
        XCTAssertEqual(shown(lib.positions(podcast: nil, matching: "alphab")), [])
        let all = lib.positions(podcast: nil, matching: "")
        XCTAssertEqual(
            shown(lib.sorted(all, by: .title)), ["Alpha", "ÄRGER", "ärger two", "beta", "ÉTÉ Beta", "Zed", "第一回"],
            "accents and case are ignored in the order as in the search")
        XCTAssertTrue(lib.matcher("Ärg").matches(Int(lib.position(of: 4)!), in: lib), "the matcher agrees with the filter")
        XCTAssertFalse(lib.matcher("Ärg").matches(Int(lib.position(of: 2)!), in: lib))
    }

    /// What users type finds what they mean: Turkish İ (lower-cased alone it keeps a combining dot),
    /// ß, Greek accents, a decomposed é; and the podcast's title counts.
    func testSearchFoldsCaseAndAccentsBeyondLowerCasing() {
        let lib = EpisodeLibrary(
            podcasts: [
                PodcastRow(
                    id: 1, title: "Café Música", url: "http://a/1", episodes: 4, lastRefresh: nil, error: nil,
                    autoQueue: false)
            ],
            entries: ["İstanbul ŞARKI", "Über straße", "ΣΟΦΊΑ", "e\u{301}te\u{301} long"].enumerated().map {
                .init(id: Int64($0.offset + 1), podcastId: $0.offset == 0 ? 1 : 2, title: $0.element, published: nil, duration: nil, length: nil)
            })
        func ids(_ needle: String) -> [Int64] { lib.positions(podcast: nil, matching: needle).map { lib.id(at: Int($0)) } }
        XCTAssertEqual(ids("ist"), [1])
        XCTAssertEqual(ids("sarki"), [1])
        XCTAssertEqual(ids("strasse"), [2])
        XCTAssertEqual(ids("uber"), [2])
        XCTAssertEqual(ids("σοφια"), [3])
        XCTAssertEqual(ids("été"), [4], "a decomposed é matches a composed one")
        XCTAssertEqual(ids("cafe musica"), [1], "the podcast's title, accents ignored")
        XCTAssertEqual(SearchFold.fold("Plain ASCII"), "plain ascii")
    }

    /// An episode begun (here or, through sync, on the phone) carries where it stopped to its row, and
    /// the Episodes view's state column says it: `▸ 12:30`; a played one says `played`.
    func testAPositionReachesTheRowAndTheStateColumn() {
        let lib = EpisodeLibrary(
            podcasts: podcasts,
            entries: [
                .init(id: 1, podcastId: 1, title: "Half heard", published: 300, duration: 1800, length: nil, position: 750),
                .init(id: 2, podcastId: 1, title: "Heard", published: 200, duration: 1800, length: nil, played: true, position: 1800),
                .init(id: 3, podcastId: 1, title: "Not begun", published: 100, duration: 1800, length: nil),
            ])
        XCTAssertEqual(lib.row(at: 0, state: .new).heardTo, 750)
        XCTAssertNil(lib.row(at: 2, state: .new).heardTo)
        var state = TUIState()
        state.view = .episodes
        let snapshot = TUISnapshot(library: lib, episodeStates: [2: .played])
        let frame = TUIRenderer(tick: 0).render(&state, snapshot, width: 120, height: 12).text
        let lines = frame.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.contains("▸ 12:30") && $0.contains("Half heard") }, frame)
        XCTAssertTrue(lines.contains { $0.contains("played") && $0.contains("Heard") }, frame)
        XCTAssertFalse(lines.contains { $0.contains("▸") && $0.contains("Not begun") }, frame)
    }
}
