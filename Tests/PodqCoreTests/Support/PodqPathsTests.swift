import PodqCore
import XCTest

final class PodqPathsTests: XCTestCase {
    func testDefaultsFollowXDG() {
        let p = PodqPaths(home: nil, downloadDir: nil, environment: ["HOME": "/home/ann"])
        XCTAssertEqual(p.home, "/home/ann/.local/share/podq")
        XCTAssertEqual(p.downloadFolder, "/home/ann/Podcasts")
        XCTAssertEqual(p.configFile, "/home/ann/.config/podq/config")
        XCTAssertEqual(p.database, "/home/ann/.local/share/podq/queue.sqlite")
        let xdg = PodqPaths(home: nil, downloadDir: nil, environment: ["HOME": "/h", "XDG_DATA_HOME": "/x", "XDG_CONFIG_HOME": "/c"])
        XCTAssertEqual(xdg.home, "/x/podq")
        XCTAssertEqual(xdg.configFile, "/c/podq/config")
    }

    func testAGivenHomeHoldsEverything() {
        let p = PodqPaths(home: nil, downloadDir: nil, environment: ["HOME": "/home/ann", "PODQ_HOME": "/q"])
        XCTAssertEqual([p.home, p.downloadFolder, p.configFile], ["/q", "/q/downloads", "/q/config"])
        let flag = PodqPaths(home: "/h", downloadDir: "/d", environment: ["HOME": "/home/ann", "PODQ_HOME": "/q"])
        XCTAssertEqual([flag.home, flag.downloadFolder], ["/h", "/d"], "--home wins over PODQ_HOME")
    }

    func testTheConfigFolderAppliesUnlessAFlagIsGiven() {
        var settings = Settings()
        settings.downloadFolder = "/media/pods"
        let p = PodqPaths(home: "/h", downloadDir: nil, environment: [:])
        XCTAssertEqual(p.applying(settings, downloadDirGiven: false).downloadFolder, "/media/pods")
        XCTAssertEqual(p.applying(settings, downloadDirGiven: true).downloadFolder, "/h/downloads")
    }
}
