import NIOCore
import PodqHTTP
import XCTest

@testable import PodqCore

/// A body's first bytes are judged on enough of them, however the server cut them: a login page sent
/// one byte at a time is still a web page, an MP3 whose first read is "I" is still an MP3.
final class FirstBytesHoldTests: XCTestCase {
    private let page = Array("\u{FEFF}  \r\n<!DOCTYPE html><html><body>Please log in</body></html>".utf8)
    private let mp3 = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0] + (0..<2000).map { UInt8(truncatingIfNeeded: $0) }

    /// Feeds `bytes` cut after each offset in `cuts`; returns what was let through, or the error.
    private func feed(_ bytes: [UInt8], cuts: [Int], check: ChunkSink.FirstBytes) -> Result<[UInt8], DownloadError> {
        var hold = FirstBytesHold(check)
        var passed: [UInt8] = []
        var from = 0
        do {
            for cut in cuts + [bytes.count] where cut > from {
                if let out = try hold.pass(ByteBuffer(bytes: bytes[from..<cut])) { passed += out.readableBytesView }
                from = cut
            }
            if let out = try hold.end() { passed += out.readableBytesView }
            return .success(passed)
        } catch {
            return .failure(error)
        }
    }

    func testAWebPageIsRefusedWhereverItIsCut() {
        for cut in 1..<page.count {
            for check in [ChunkSink.FirstBytes.mustNotBeWebPage(url: "u"), .mustBeMedia(url: "u")] {
                XCTAssertEqual(feed(page, cuts: [cut], check: check), .failure(.webPage(url: "u")), "cut at \(cut)")
            }
        }
        XCTAssertEqual(
            feed(page, cuts: Array(1..<page.count), check: .mustNotBeWebPage(url: "u")), .failure(.webPage(url: "u")),
            "one byte at a time")
    }

    func testMediaPassesWhereverItIsCutAndComesOutWhole() {
        for cut in 1..<40 {
            for check in [ChunkSink.FirstBytes.mustNotBeWebPage(url: "u"), .mustBeMedia(url: "u")] {
                XCTAssertEqual(feed(mp3, cuts: [cut, cut + 300, 700], check: check), .success(mp3), "cut at \(cut)")
            }
        }
        XCTAssertEqual(feed(mp3, cuts: Array(1..<mp3.count), check: .mustBeMedia(url: "u")), .success(mp3), "one byte at a time")
    }

    func testABodyShorterThanWhatIsNeededIsJudgedAtItsEnd() {
        let short = Array(mp3.prefix(20))
        XCTAssertEqual(feed(short, cuts: [1, 2, 3], check: .mustBeMedia(url: "u")), .success(short))
        XCTAssertEqual(feed(Array("<html>".utf8), cuts: [1], check: .mustNotBeWebPage(url: "u")), .failure(.webPage(url: "u")))
        XCTAssertEqual(feed([], cuts: [], check: .mustBeMedia(url: "u")), .success([]))
    }

    /// A client may hand over chunks it had read already after a refusal: none of them, and not the end,
    /// ever lets a byte through, wherever the refused page was cut and whatever comes after it.
    func testNothingPassesAfterARefusal() {
        let body = page + Array(repeating: UInt8(ascii: " "), count: 600) + mp3
        for cut in stride(from: 1, to: body.count, by: 7) {
            for check in [ChunkSink.FirstBytes.mustNotBeWebPage(url: "u"), .mustBeMedia(url: "u")] {
                var hold = FirstBytesHold(check)
                var refused = false
                var passed = 0
                var from = 0
                for end in [cut, cut + 1, cut + 512, body.count] where end > from && end <= body.count {
                    do {
                        passed += try hold.pass(ByteBuffer(bytes: body[from..<end]))?.readableBytes ?? 0
                    } catch {
                        XCTAssertEqual(error, .webPage(url: "u"))
                        refused = true
                    }
                    from = end
                }
                XCTAssertThrowsError(try hold.end(), "cut at \(cut)")
                XCTAssertTrue(refused, "cut at \(cut)")
                XCTAssertEqual(passed, 0, "cut at \(cut): bytes passed after the refusal")
            }
        }
    }
}
