import PodqCore
import XCTest

@testable import PodqHTTP

/// Proxy settings as curl reads them, from an environment given to the test.
final class ProxySettingsTests: XCTestCase {
    private let http = URL(string: "http://media.example.org/a.mp3")!
    private let https = URL(string: "https://media.example.org/a.mp3")!

    func testPrecedence() throws {
        let both = try ProxySettings.from(environment: ["http_proxy": "h:1", "HTTPS_PROXY": "s:2", "https_proxy": "l:3", "ALL_PROXY": "a:4"])
        XCTAssertEqual(both.server(for: http)?.host, "h")
        XCTAssertEqual(both.server(for: https)?.host, "l", "lower case wins")
        let upper = try ProxySettings.from(environment: ["HTTP_PROXY": "h:1", "ALL_PROXY": "a:4"])
        XCTAssertEqual(upper.server(for: http)?.host, "a", "HTTP_PROXY in upper case is not read")
        let configured = try ProxySettings.from(environment: ["https_proxy": "l:3"], configured: "socks5://c:9050")
        XCTAssertEqual(configured.server(for: https), .init(kind: .socks, host: "c", port: 9050))
        XCTAssertNil(try ProxySettings.from(environment: [:]).server(for: http))
    }

    func testServerForms() throws {
        XCTAssertEqual(try ProxySettings.parse("proxy.example", source: "x"), .init(kind: .http, host: "proxy.example", port: 1080))
        let login = try ProxySettings.parse("http://me:p%40ss@proxy.example:3128", source: "x")
        XCTAssertEqual(login.password, "p@ss")
        XCTAssertEqual(login.description, "http://me:***@proxy.example:3128")
        XCTAssertThrowsError(try ProxySettings.parse("https://proxy.example:443", source: "https_proxy"))
        XCTAssertThrowsError(try ProxySettings.parse("ftp://proxy.example", source: "x"))
        XCTAssertThrowsError(try ProxySettings.from(environment: ["all_proxy": "gopher://x"]))
    }

    func testNoProxy() throws {
        let settings = try ProxySettings.from(environment: ["all_proxy": "p:1", "NO_PROXY": "example.org, .internal ,10.0.0.0/8,[::1],localhost:8080"])
        XCTAssertNil(settings.server(for: http))
        XCTAssertNil(settings.server(for: URL(string: "http://a.b.internal/x")!))
        XCTAssertNil(settings.server(for: URL(string: "http://10.1.2.3/x")!))
        XCTAssertNil(settings.server(for: URL(string: "http://[::1]:80/x")!))
        XCTAssertNil(settings.server(for: URL(string: "http://localhost/x")!))
        XCTAssertNotNil(settings.server(for: URL(string: "http://notexample.org/x")!))
        XCTAssertNotNil(settings.server(for: URL(string: "http://11.0.0.1/x")!))
        XCTAssertNil(try ProxySettings.from(environment: ["all_proxy": "p:1", "no_proxy": "*"]).server(for: https))
    }
}
