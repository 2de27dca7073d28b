import Foundation
import PodqTestSupport
import XCTest

@testable import PodqCore

/// Every shape of answer real servers send (docs/SYNC.md, "Servers"), and generated ones: an answer
/// is never refused whole for one odd action, and an upload is taken only on its receipt.
final class SyncAnswersTests: XCTestCase {
    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    /// gpodder-fastapi-router's strings, opodsync's objects with `feed`, gpodder.net's with `url`;
    /// anything else in the list is skipped and counted.
    func testEveryShapeOfTheAllDevicesList() throws {
        XCTAssertEqual(try decode(FeedList.self, #"["http://a/1", "http://a/2"]"#), FeedList(urls: ["http://a/1", "http://a/2"]))
        XCTAssertEqual(
            try decode(FeedList.self, #"[{"feed": "http://a/1", "title": null, "website": null, "description": null}]"#), FeedList(urls: ["http://a/1"]))
        XCTAssertEqual(
            try decode(
                FeedList.self,
                #"[{"url": "http://a/1", "title": "T", "description": "", "subscribers": 3, "logo_url": null, "website": "w", "mygpo_link": "m"}]"#),
            FeedList(urls: ["http://a/1"]))
        XCTAssertEqual(try decode(FeedList.self, #"["http://a/1", 5, null, {"title": "x"}, {"url": 7}, ""]"#), FeedList(urls: ["http://a/1"], skipped: 5))
    }

    /// What the Nextcloud app, mygpo and opodsync write: `PLAY`, `+00:00`, `Z`, a fraction, numbers,
    /// `-1`, a numeric GUID, a kind podq does not use, an action without an episode.
    func testOddActionsAreReadOrSkippedNeverFatal() throws {
        let answer = try decode(
            ActionsAnswer.self,
            """
            {"timestamp": 1795000000.9, "actions": [
              {"podcast": "http://f", "episode": "http://e/1", "action": "PLAY", "timestamp": "2026-11-26T10:00:00+00:00", "started": -1, "position": 30, "total": -1},
              {"podcast": "http://f", "episode": "http://e/2", "action": "play", "timestamp": 1735725600.5, "position": 12.9, "guid": 42},
              {"podcast": "http://f", "episode": "http://e/3", "action": "flattr", "timestamp": "2026-11-26T10:00:00Z"},
              {"podcast": "http://f", "action": "play", "timestamp": "2026-11-26T10:00:00"},
              {"podcast": "http://f", "episode": "http://e/4", "action": "play", "timestamp": "yesterday"},
              {"podcast": "http://f", "episode": "http://e/5", "action": "download", "timestamp": "2026-11-26T10:00:00.123Z", "position": 1e300},
              "not an object", null
            ]}
            """)
        XCTAssertEqual(answer.timestamp, 1_795_000_000)
        XCTAssertEqual(answer.actions.map(\.episode), ["http://e/1", "http://e/2", "http://e/5"])
        XCTAssertEqual(answer.actions[0].action, .play)
        XCTAssertEqual(answer.actions[0].timestamp, EpisodeAction.seconds("2026-11-26T10:00:00"))
        XCTAssertEqual([answer.actions[0].started, answer.actions[0].position, answer.actions[0].total], [nil, 30, nil])
        XCTAssertEqual(answer.actions[1].timestamp, 1_735_725_600)
        XCTAssertEqual(answer.actions[1].position, 12)
        XCTAssertEqual(answer.actions[1].guid, "42")
        XCTAssertNil(answer.actions[2].position, "1e300 is no position")
        XCTAssertEqual(answer.skipped.kinds, ["flattr": 1])
        XCTAssertEqual(answer.skipped.malformed, 4)
        XCTAssertTrue(answer.skipped.line.contains("1 action of kinds podq does not use (flattr)"), answer.skipped.line)
    }

    /// Generated answers: any mix of good, unknown and broken actions, with numbers of every size,
    /// decodes; every good one is kept, every other one counted.
    func testGeneratedAnswersAreReadActionByAction() throws {
        var random = SystemRandomNumberGenerator()
        let numbers = ["0", "-1", "1.5", "1e300", "-1e300", "9223372036854775807", "18446744073709551616", "\"12\"", "null", "true", "[]", "{}"]
        for _ in 0..<300 {
            var good = 0, unknown = 0, broken = 0
            var items: [String] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                let n = { numbers.randomElement(using: &random)! }
                switch Int.random(in: 0..<4, using: &random) {
                case 0:
                    good += 1
                    items.append(
                        #"{"podcast": "http://f", "episode": "http://e", "action": "play", "timestamp": 1795000000, "position": \#(n()), "total": \#(n()), "guid": \#(n())}"#
                    )
                case 1:
                    unknown += 1
                    items.append(
                        #"{"podcast": "http://f", "episode": "http://e", "action": "x\#(Int.random(in: 0..<3, using: &random))", "timestamp": \#(n())}"#)
                case 2:
                    broken += 1
                    items.append(
                        [#"{"episode": "http://e", "action": "play"}"#, "7", "null", #"{"podcast": 1, "episode": "e", "action": "play"}"#].randomElement(
                            using: &random)!)
                default:
                    let stamp = n()
                    // A timestamp that is not a time breaks the action; none (null) is "now".
                    let readable = ["0", "1.5", "9223372036854775807", "\"12\"", "null"].contains(stamp)
                    let fine = readable && stamp != "9223372036854775807"
                    if fine { good += 1 } else { broken += 1 }
                    items.append(#"{"podcast": "http://f", "episode": "http://e", "action": "delete", "timestamp": \#(stamp)}"#)
                }
            }
            let text = #"{"actions": [\#(items.joined(separator: ","))], "timestamp": \#(numbers.randomElement()!)}"#
            let answer = try decode(ActionsAnswer.self, text)
            XCTAssertEqual(answer.actions.count, good, items.joined(separator: "\n"))
            XCTAssertEqual(answer.skipped.kinds.values.reduce(0, +), unknown)
            XCTAssertEqual(answer.skipped.malformed, broken, items.joined(separator: "\n"))
            // Read as it arrives (what a sync does), in random pieces: the same.
            var reader = ActionStream()
            var read = 0
            var skipped = SkippedActions()
            let bytes = Array(text.utf8)
            var from = 0
            for cut in ((0..<3).map { _ in Int.random(in: 0...bytes.count, using: &random) } + [bytes.count]).sorted() {
                reader.feed(bytes[from..<cut]) { element in
                    switch (try? JSONDecoder().decode(DecodedAction.self, from: Data(element)))?.result ?? .failure(.malformed("not an action")) {
                    case .success: read += 1
                    case .failure(let problem): skipped.add(problem)
                    }
                }
                from = cut
            }
            XCTAssertTrue(reader.finished)
            XCTAssertEqual([read, skipped.kinds.values.reduce(0, +), skipped.malformed], [good, unknown, broken], text)
        }
    }

    /// An upload is taken only on the receipt the API promises: an empty 200, HTML, `{}` or a JSON
    /// without a timestamp throws `notTaken`; a receipt with one (a fraction, `update_urls`) is read.
    func testAnUploadIsTakenOnlyOnItsReceipt() async throws {
        let bodies: [(String, Int64?)] = [
            ("", nil), ("  \n", nil), ("<html>Maintenance</html>", nil), ("{}", nil), (#"{"update_urls": []}"#, nil), ("[]", nil),
            (#"{"timestamp": 12}"#, 12), (#"{"timestamp": 12.7, "update_urls": [["http://a", "http://b"], ["x", null], ["y", ""]]}"#, 12),
        ]
        for (body, expected) in bodies {
            let transport = MemoryTransport { _, _ in .ok(Array(body.utf8)) }
            let connection = SyncConnection(base: URL(string: "http://127.0.0.1:9/nextcloud/")!, user: "u", password: "secret-pw", transport: transport)
            var taken: UploadResult?
            var failure: SyncError?
            do {
                taken = try await connection.upload(.POST, "/x", body: ["a"], call: "the upload")
            } catch {
                failure = error
            }
            XCTAssertEqual(taken?.timestamp, expected, body)
            if body.contains("update_urls\": [[") { XCTAssertEqual(taken?.updateURLs.map { [$0.0, $0.1] }, [["http://a", "http://b"]]) }
            if expected == nil {
                guard case .notTaken(let call, _)? = failure else { return XCTFail("\(body): \(String(describing: failure))") }
                XCTAssertEqual(call, "the upload")
                XCTAssertTrue(failure?.localizedDescription.contains("stay queued") == true)
            }
        }
    }

    /// A server in a sub-folder keeps it in every message and advice.
    func testTheSubFolderStaysInMessages() throws {
        let connection = SyncConnection(
            base: URL(string: "https://Cloud.Example.org/nextcloud/")!, user: "u", password: "p", transport: MemoryTransport { _, _ in .init(status: 500) })
        XCTAssertEqual(connection.serverName, "https://cloud.example.org/nextcloud")
        XCTAssertThrowsError(try connection.check(401, [], call: "x")) { error in
            XCTAssertTrue((error as? SyncError)?.localizedDescription.contains("podq sync login https://cloud.example.org/nextcloud --user u") == true)
        }
    }

    /// A server that echoes the password, at any place (every offset around where the text is cut), in
    /// any form (as sent, the login's Base64, percent- or JSON-escaped): no part of it is ever shown.
    func testAnEchoedPasswordIsNeverShownWhereverItIsCut() throws {
        let password = "Zq9/sêcret+pw&\"", user = "alice"
        let connection = SyncConnection(
            base: URL(string: "https://s.example")!, user: user, password: password, transport: MemoryTransport { _, _ in .init(status: 500) })
        let json = String(decoding: try JSONEncoder().encode(password), as: UTF8.self).dropFirst().dropLast()
        let forms = [
            password, Data("\(user):\(password)".utf8).base64EncodedString(), password.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
            String(json),
        ]
        for form in forms {
            for offset in Array(0...12) + Array(180...220) + Array(385...405) {
                let body = String(repeating: "a", count: offset) + form + " tail " + String(repeating: "b", count: 50)
                let shown = connection.excerpt(Array(body.utf8))
                for piece in [password, form] {
                    XCTAssertFalse(shown.contains(String(piece.prefix(4))), "offset \(offset), \(form): \(shown)")
                }
            }
        }
    }

    /// The elements ``ActionStream`` finds in `text` fed in pieces cut at `cuts`.
    private func streamed(_ text: [UInt8], cuts: [Int]) -> (elements: [String], timestamp: String?, finished: Bool) {
        var reader = ActionStream()
        var found: [String] = []
        var from = 0
        for cut in cuts.sorted() + [text.count] where cut >= from {
            reader.feed(text[from..<cut]) { found.append(String(decoding: $0, as: UTF8.self)) }
            from = cut
        }
        return (found, reader.timestampText, reader.finished)
    }

    /// Cut at every byte boundary, and in random pieces: the same elements, each as the JSON parser
    /// reads it, whatever the strings hold (braces, brackets, escaped quotes, commas) and however deep.
    func testTheActionStreamFindsEveryElementHoweverTheAnswerIsCut() throws {
        let elements = [
            #"{"podcast": "http://f/{x}", "episode": "http://e/\"]\",1", "action": "play", "position": 3, "nested": {"a": [1, {"b": "}"}]}}"#,
            #"7"#, #""a string, with ] and }""#, "null", #"{"podcast":"p","episode":"e","action":"flattr"}"#, "[1, [2, 3]]",
            #"{"podcast": "h\u00e9", "episode": "ü\\", "action": "delete", "timestamp": "2026-11-26T10:00:00Z"}"#,
        ]
        let text = Array(
            (#"{"update_urls": [["a", "b"]], "actions": [ "# + elements.joined(separator: " ,\n ")
                + #" ], "other": {"actions": [9]}, "timestamp": 1795000000.5}"#).utf8)
        let whole = streamed(text, cuts: [])
        XCTAssertEqual(whole.elements, elements)
        XCTAssertEqual(whole.timestamp, "1795000000.5")
        XCTAssertTrue(whole.finished)
        for cut in 0...text.count {
            let got = streamed(text, cuts: [cut])
            XCTAssertEqual(got.elements, elements, "cut at \(cut)")
            XCTAssertEqual(got.timestamp, "1795000000.5", "cut at \(cut)")
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let cuts = (0..<Int.random(in: 1...30, using: &random)).map { _ in Int.random(in: 0...text.count, using: &random) }
            XCTAssertEqual(streamed(text, cuts: cuts).elements, elements, "cuts at \(cuts)")
        }
        // Each element found is the parser's element.
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text), options: .fragmentsAllowed) as? [String: Any])
        XCTAssertEqual((parsed["actions"] as? [Any])?.count, elements.count)
    }

    /// Hostile answers end with a note, never a crash or a hold of everything: an element over 1 MB is
    /// skipped and counted; an answer cut short is not finished; text that is no object finds nothing.
    func testTheActionStreamHoldsNoMoreThanOneAction() {
        let huge = #"{"podcast": ""# + String(repeating: "x", count: ActionStream.elementLimit + 10) + #"", "episode": "e", "action": "play"}"#
        var reader = ActionStream()
        var found: [Int] = []
        reader.feed(Array((#"{"actions": ["# + huge + #", {"a": 1}], "timestamp": 5}"#).utf8)) { found.append($0.count) }
        XCTAssertEqual(found, [8])
        XCTAssertEqual(reader.oversized, 1)
        XCTAssertEqual(reader.timestampText, "5")
        XCTAssertTrue(reader.finished)
        var cut = ActionStream()
        cut.feed(Array(#"{"actions": [{"a": 1}, {"b""#.utf8)) { _ in }
        XCTAssertFalse(cut.finished)
        var page = ActionStream()
        var any = false
        page.feed(Array("<html><body>Maintenance</body></html>".utf8)) { _ in any = true }
        XCTAssertFalse(any || page.finished)
    }
}
