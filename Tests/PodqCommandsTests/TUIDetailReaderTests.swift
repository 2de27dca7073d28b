import XCTest

@testable import PodqCommands

/// The detail pane's "Via": the hosts of an episode URL's tracking prefixes, read from the URL.
final class TUIDetailReaderTests: XCTestCase {
    func testViaListsEachTrackingPrefixThenTheFilesHost() {
        XCTAssertEqual(TUIDetailReader.via("https://dts.podtrac.com/redirect.mp3/chrt.fm/track/ABC/traffic.megaphone.fm/EP1.mp3?updated=1"),
                       "dts.podtrac.com → chrt.fm → traffic.megaphone.fm (the file)")
        XCTAssertEqual(TUIDetailReader.via("https://op3.dev/e/https://cdn.example.org/show/ep.mp3"), "op3.dev → cdn.example.org (the file)")
        XCTAssertEqual(TUIDetailReader.via("https://cdn.example.org/show/ep.mp3"), "", "no prefix: nothing to say")
        XCTAssertEqual(TUIDetailReader.via(nil), "")
    }
}
