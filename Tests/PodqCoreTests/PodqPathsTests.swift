import PodqCore
import XCTest

final class PodqPathsTests: XCTestCase {
    func testHomeAndDownloadFolderFollowProductRules() {
        let env = ["HOME": "/home/ann"]
        XCTAssertEqual(PodqPaths(home: nil, downloadDir: nil, environment: env),
                       PodqPaths.make(home: "/home/ann/.local/share/podq", downloads: "/home/ann/Podcasts"))
        XCTAssertEqual(PodqPaths(home: nil, downloadDir: nil, environment: env.merging(["PODQ_HOME": "/q"]) { $1 }),
                       PodqPaths.make(home: "/q", downloads: "/q/downloads"))
        XCTAssertEqual(PodqPaths(home: "/h", downloadDir: "/d", environment: env),
                       PodqPaths.make(home: "/h", downloads: "/d"))
        XCTAssertEqual(PodqPaths(home: nil, downloadDir: nil, environment: env.merging(["XDG_DATA_HOME": "/x"]) { $1 }).home, "/x/podq")
    }
}

extension PodqPaths {
    static func make(home: String, downloads: String) -> PodqPaths {
        var p = PodqPaths(home: home, downloadDir: downloads, environment: [:])
        p.home = home
        return p
    }
}
