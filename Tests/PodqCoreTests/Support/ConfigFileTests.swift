import PodqCore
import PodqTestSupport
import XCTest

final class ConfigFileTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    func testMissingFileGivesDefaults() throws {
        XCTAssertEqual(try ConfigFile(path: dir.file("none")).load(), Settings())
    }

    func testReadsEveryKey() throws {
        let path = dir.file("config")
        try """
        # mine
        simultaneous-downloads = 5
        download-folder = "/media/pods"   # a comment
        max-attempts = 7
        retry-delay = 0.5
        retry-max-delay = 30
        stall-timeout = 12
        per-host-downloads = 4
        rate-limit = 2M
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let s = try ConfigFile(path: path).load()
        XCTAssertEqual(s.simultaneousDownloads, 5)
        XCTAssertEqual(s.downloadFolder, "/media/pods")
        XCTAssertEqual(s.maxAttempts, 7)
        XCTAssertEqual(s.retryDelay, 0.5)
        XCTAssertEqual(s.retryMaxDelay, 30)
        XCTAssertEqual(s.stallTimeout, 12)
        XCTAssertEqual(s.perHostDownloads, 4)
        XCTAssertEqual(s.rateLimit, 2_000_000, "2M is the 2.0 MB/s podq shows")
        XCTAssertNil(Settings().rateLimit, "no limit by default")
        XCTAssertEqual(Settings().perHostDownloads, 2, "the default")
    }

    func testErrorsNameTheFileTheLineAndTheKey() throws {
        let path = dir.file("config")
        for (text, expected) in [
            ("\n\nsimultanious-downloads = 4", ConfigError.unknownKey(path: path, line: 3, key: "simultanious-downloads")),
            ("simultaneous-downloads = 0", .badValue(path: path, line: 1, key: "simultaneous-downloads", expected: "a whole number from 1 to 64")),
            ("per-host-downloads = 65", .badValue(path: path, line: 1, key: "per-host-downloads", expected: "a whole number from 1 to 64")),
            ("rate-limit = 5", .badValue(path: path, line: 1, key: "rate-limit", expected: "a rate of at least 10K, such as 500K or 2M, or 0 for none")),
            ("stall-timeout = soon", .badValue(path: path, line: 1, key: "stall-timeout", expected: "a number of seconds above 0")),
            ("just words", .syntax(path: path, line: 1)),
        ] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try ConfigFile(path: path).load()) { XCTAssertEqual($0 as? ConfigError, expected) }
        }
    }

    /// A key written as the command line's option that overrides it (`download-dir = …` for
    /// `download-folder`) is told the key's name, for every key an option overrides.
    func testAKeyWrittenAsItsCommandLineOptionIsToldTheKey() throws {
        let path = dir.file("config")
        var options = 0
        for key in Settings.keys {
            guard let range = key.meaning.range(of: #"`--[a-z-]+` overrides"#, options: .regularExpression) else { continue }
            let option = String(key.meaning[range].dropFirst(3).prefix { $0 != "`" })
            options += 1
            try "\(option) = 3".write(toFile: path, atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try ConfigFile(path: path).load()) {
                XCTAssertEqual(
                    ($0 as? ConfigError)?.errorDescription,
                    "\(path):1: unknown key '\(option)': --\(option) is the command line's name; in the config it is '\(key.name)'.")
            }
        }
        XCTAssertGreaterThanOrEqual(options, 5, "jobs, limit-rate, connections, per-host, download-dir")
    }

    func testSetKeepsCommentsAndOtherKeys() throws {
        let path = dir.file("config")
        try "# keep me\nmax-attempts = 3\nsimultaneous-downloads = 2\n".write(toFile: path, atomically: true, encoding: .utf8)
        let file = ConfigFile(path: path)
        try file.set("simultaneous-downloads", to: "6")
        try file.set("stall-timeout", to: "45")
        XCTAssertEqual(
            try String(contentsOfFile: path, encoding: .utf8),
            "# keep me\nmax-attempts = 3\nsimultaneous-downloads = 6\nstall-timeout = 45\n")
        XCTAssertThrowsError(try file.set("simultaneous-downloads", to: "500"))
        XCTAssertEqual(try file.load().simultaneousDownloads, 6)
        XCTAssertEqual(dir.contents, ["config"], "no temporary file is left")
    }

    func testKeysLogPlayerAndCleanupSettings() throws {
        let path = dir.file("config")
        try """
        key-cancel = C
        key-remove = c
        log-size = 5
        player = "mpv --no-video"
        cleanup-days = 30
        keep-episodes = 0
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let s = try ConfigFile(path: path).load()
        XCTAssertEqual(s.keys.key(.cancel), "C")
        XCTAssertEqual(s.keys.key(.remove), "c")
        XCTAssertEqual(s.keys.key(.pause), "p", "unchanged actions keep their letter")
        XCTAssertEqual(s.logSize, 5_000_000)
        XCTAssertEqual(s.player, "mpv --no-video")
        XCTAssertEqual(s.cleanup, CleanupPolicy(olderThanDays: 30, keepNewest: nil), "0 turns a rule off")
        XCTAssertEqual(Settings().cleanup.isActive, false, "no cleanup by default")
    }

    func testKeyBindingErrorsNameTheLineAndWhatToDo() throws {
        let path = dir.file("config")
        for (text, expected) in [
            ("key-cancle = C", ConfigError.unknownAction(path: path, line: 1, key: "key-cancle")),
            ("key-cancel = Cc", .badValue(path: path, line: 1, key: "key-cancel", expected: "one visible character, such as C or !")),
            ("# x\nkey-cancel = x\nkey-remove = x", .keyConflict(path: path, line: 3, key: "key-remove", character: "x", other: "cancel")),
            ("key-pause = z\nkey-retry = z", .keyConflict(path: path, line: 2, key: "key-retry", character: "z", other: "pause")),
            ("cleanup-days = -1", .badValue(path: path, line: 1, key: "cleanup-days", expected: "a whole number from 0 to 36500")),
            ("mouse = no", .badValue(path: path, line: 1, key: "mouse", expected: "true or false")),
            ("player = \"\"", .badValue(path: path, line: 1, key: "player", expected: "a command, such as mpv or \"vlc --play-and-exit\"")),
        ] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try ConfigFile(path: path).load(), text) { XCTAssertEqual($0 as? ConfigError, expected, text) }
        }
        XCTAssertTrue(
            ConfigError.keyConflict(path: "c", line: 2, key: "key-cancel", character: "x", other: "remove")
                .localizedDescription.contains("key-remove = …"), "the message says how to fix it")
        XCTAssertTrue(
            ConfigError.unknownAction(path: "c", line: 1, key: "key-cancle").localizedDescription.contains("Did you mean 'key-cancel'?"),
            "a typo gets what was meant")
        XCTAssertTrue(
            ConfigError.unknownAction(path: "c", line: 1, key: "key-nothing-like-this").localizedDescription.contains("cancel, pause"), "else the actions")
    }
}

/// A config podq cannot read is an error that names it, never the defaults; an edit keeps every other byte.
final class ConfigFileRobustnessTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    func testANonUTF8LineIsAnErrorNamingTheFileAndTheLine() throws {
        let path = dir.file("config")
        _ = FileManager.default.createFile(atPath: path, contents: Data("max-attempts = 3\n# caf\u{E9}\n".utf8.prefix(21) + [0xE9, 0x0A]))
        XCTAssertThrowsError(try ConfigFile(path: path).load()) { XCTAssertEqual($0 as? ConfigError, .notUTF8(path: path, line: 2)) }
        XCTAssertThrowsError(try ConfigFile(path: path).set("simultaneous-downloads", to: "3"), "an edit refuses too")
        XCTAssertEqual(FileManager.default.contents(atPath: path).map([UInt8].init)?.suffix(2), [0xE9, 0x0A], "left as it was")
    }

    func testAFolderInPlaceOfTheFileIsAnError() throws {
        let path = dir.file("config")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        XCTAssertThrowsError(try ConfigFile(path: path).load()) {
            guard case .unreadable(let named, let reason)? = $0 as? ConfigError else { return XCTFail("\($0)") }
            XCTAssertEqual(named, path)
            XCTAssertTrue(reason.contains("folder"), reason)
        }
        XCTAssertThrowsError(try ConfigFile(path: path).set("simultaneous-downloads", to: "3"))
    }

    func testCRLFLinesReadAndAnEditKeepsEveryOtherByte() throws {
        let path = dir.file("config")
        let original = "# mine\r\nsimultaneous-downloads = 2\r\n\r\n  # indented comment  \r\nstall-timeout = 45 # seconds\r\n"
        try original.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        let file = ConfigFile(path: path)
        XCTAssertEqual(try file.load().simultaneousDownloads, 2)
        XCTAssertEqual(try file.load().stallTimeout, 45)
        try file.set("simultaneous-downloads", to: "5")
        try file.set("max-attempts", to: "9")
        XCTAssertEqual(
            try String(contentsOfFile: path, encoding: .utf8),
            original.replacingOccurrences(of: "= 2", with: "= 5") + "max-attempts = 9\r\n")
        var info = stat()
        stat(path, &info)
        XCTAssertEqual(info.st_mode & 0o777, 0o600, "the mode stays")
    }

    func testAnAddedKeyGetsItsOwnLineAfterALastLineWithoutOne() throws {
        // FuzzConfig: a last line without a line end, and a line ending in CR CR LF.
        let path = dir.file("config")
        _ = FileManager.default.createFile(atPath: path, contents: Data("# crln\r\r\nmax-attempts = 6 # no line end".utf8))
        try ConfigFile(path: path).set("simultaneous-downloads", to: "7")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "# crln\r\r\nmax-attempts = 6 # no line end\r\nsimultaneous-downloads = 7\r\n")
        XCTAssertEqual(try ConfigFile(path: path).load().maxAttempts, 6)
        _ = FileManager.default.createFile(atPath: path, contents: Data("# mine = \"x\"\r\n\r".utf8))
        try ConfigFile(path: path).set("simultaneous-downloads", to: "7")
        XCTAssertEqual(
            try String(contentsOfFile: path, encoding: .utf8), "# mine = \"x\"\r\n\r\nsimultaneous-downloads = 7\r\n",
            "a lone CR at the end is completed, not doubled")
    }

    func testAnEditWritesThroughASymbolicLinkToTheFile() throws {
        let real = dir.file("dotfiles/podq.conf")
        try FileManager.default.createDirectory(atPath: dir.file("dotfiles"), withIntermediateDirectories: true)
        try "# tracked in git\nmax-attempts = 4\n".write(toFile: real, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir.file("config"), withDestinationPath: real)
        try ConfigFile(path: dir.file("config")).set("max-attempts", to: "6")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir.file("config")), real, "still a link")
        XCTAssertEqual(try String(contentsOfFile: real, encoding: .utf8), "# tracked in git\nmax-attempts = 6\n")
    }
}
