// libFuzzer target: bytes → FeedParser (the whole path: charset, gzip, repair, recovery, limits) → Feed; a web
// page's feed links.
// Crashes, sanitizer reports and broken invariants (unsafe text in any field, a relative or non-http
// enclosure) are findings. `make fuzz` builds and runs it (docs/DECISIONS.md records the runs).
import CFuzzMain
import Foundation
import PodqBase

@testable import PodqCore

private let path = "/dev/shm/podq-fuzz-feed-\(getpid()).xml"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeed(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size))
    // Small caps so that expansion and item limits are reached in reach of the fuzzer.
    let limits = FeedLimits(fileSize: 1 << 20, expansion: 1 << 20, fieldBytes: 64 << 10, items: 500)
    // A web page: the feeds it links to are absolute http(s) URLs with clean titles.
    if WebPageFeeds.looksLikeHTML(path) {
        let candidates: [WebPageFeeds.Candidate]
        do {
            candidates = try WebPageFeeds.find(file: path, pageURL: URL(string: "https://show.example/")!)
        } catch {
            fatalError("the feed target needs libxml2: \(error)")
        }
        for candidate in candidates {
            precondition(candidate.url.hasPrefix("https://") || candidate.url.hasPrefix("http://"), "feed link not http(s): \(candidate.url)")
            check(candidate.title)
        }
    }
    guard let feed = try? FeedParser.parse(file: path, baseURL: URL(string: "https://feeds.example/show/feed.xml"), sizeLimit: 1 << 20, limits: limits)
    else { return 0 }
    for text in [feed.title, feed.description ?? "", feed.author ?? ""] { check(text) }
    for episode in feed.episodes {
        for text in [episode.title, episode.guid ?? "", episode.description ?? "", episode.author ?? ""] { check(text) }
        precondition(!episode.title.isEmpty, "every episode has a title")
        for enclosure in episode.enclosures {
            check(enclosure.type ?? "")
            precondition(enclosure.url.hasPrefix("https://") || enclosure.url.hasPrefix("http://"), "enclosure not http(s): \(enclosure.url)")
            precondition(!enclosure.url.unicodeScalars.contains { $0.value <= 0x20 || $0.value >= 0x7F }, "raw bytes in a URL")
        }
    }
    return 0
}

private func check(_ text: String) {
    precondition(!text.unicodeScalars.contains { SafeText.isUnsafe($0) }, "unsafe text: \(text.debugDescription)")
}

@_cdecl("FuzzFeed_main")
public func fuzzFeedMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    podq_fuzz_main(argc, argv)
}
