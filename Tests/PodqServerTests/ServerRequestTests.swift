import PodqServer
import XCTest

final class ServerRequestTests: XCTestCase {
    func testPathQueryAndHeaders() {
        let r = ServerRequest(
            sequence: 1, method: "GET", uri: "/data/a.mp3?size=10&to=%2Fx%3Fy%3D1&flag",
            headers: [("Range", "bytes=5-")], connection: 1)
        XCTAssertEqual(r.path, "/data/a.mp3")
        XCTAssertEqual(r.query, ["size": "10", "to": "/x?y=1", "flag": ""])
        XCTAssertEqual(r.header("range"), "bytes=5-")
        XCTAssertNil(r.header("If-Range"))
    }
}
