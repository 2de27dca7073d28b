import PodqCore
import XCTest

@testable import PodqHTTP

/// A login goes to its own origin only, and never shows its password.
final class CredentialsTests: XCTestCase {
    func testSplitTakesTheLoginOutOfTheURL() {
        let (url, login) = Credentials.split(URL(string: "https://me:s%40cret@Feeds.Example.org/p/feed.xml?x=1")!)
        XCTAssertEqual(url.absoluteString, "https://Feeds.Example.org/p/feed.xml?x=1")
        XCTAssertEqual(login?.user, "me")
        XCTAssertEqual(login?.password, "s@cret")
        XCTAssertEqual(login?.host, "feeds.example.org")
        XCTAssertEqual(login?.description, "me:***@feeds.example.org")
        XCTAssertFalse("\(String(describing: login))".contains("s@cret"))
        XCTAssertNil(Credentials.split(URL(string: "https://feeds.example.org/feed.xml")!).credentials)
    }

    func testAppliesToTheSameOriginOnly() {
        let login = Credentials(user: "u", password: "p", for: URL(string: "https://a.example/feed")!)
        XCTAssertTrue(login.applies(to: URL(string: "https://A.example:443/media/1.mp3")!))
        XCTAssertFalse(login.applies(to: URL(string: "http://a.example/media/1.mp3")!), "never over http when given for https")
        XCTAssertFalse(login.applies(to: URL(string: "https://a.example:8443/x")!))
        XCTAssertFalse(login.applies(to: URL(string: "https://cdn.a.example/x")!))
        XCTAssertFalse(login.applies(to: URL(string: "https://a.example.evil/x")!))
        let plain = Credentials(user: "u", password: "p", for: URL(string: "http://b.example:8080/feed")!)
        XCTAssertTrue(plain.applies(to: URL(string: "http://b.example:8080/x")!))
        XCTAssertTrue(plain.applies(to: URL(string: "https://b.example:8080/x")!))
        XCTAssertEqual(plain.authorization, "Basic " + Data("u:p".utf8).base64EncodedString())
    }
}
