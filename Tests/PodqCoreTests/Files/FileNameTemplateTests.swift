import XCTest

@testable import PodqCore

/// File-name templates: checked once with words that say what to write, filled with values that can
/// never make a folder, leave the download folder, hide a file or outgrow a file system's names.
final class FileNameTemplateTests: XCTestCase {
    private func values(
        podcast: String = "Show", title: String = "One", ext: String = "mp3", guid: String? = "g-1", id: Int64? = 42,
        season: Int? = 2, episode: Int? = 7, published: Double? = 1_795_255_200
    ) -> FileNameTemplate.Values {
        // 1_795_255_200: 2026-11-21 10:00:00 UTC.
        .init(podcast: podcast, title: title, ext: ext, guid: guid, id: id, season: season, episode: episode, published: published)
    }

    private func path(_ template: String, _ values: FileNameTemplate.Values) throws -> String {
        try FileNameTemplate(template).path(for: values)
    }

    func testTheDefaultKeepsTheLayoutPodqAlwaysHad() {
        XCTAssertEqual(FileNameTemplate.standard.path(for: values(title: "Two: the sequel?")), "Show/2026-11-21 Two: the sequel?.mp3")
        XCTAssertEqual(FileNameTemplate.standard.path(for: values(title: "Two: the sequel?"), rules: .windows), "Show/2026-11-21 Two_ the sequel_.mp3")
        XCTAssertEqual(FileNameTemplate.standard.path(for: values(published: nil)), "Show/One.mp3", "no date, no leading space")
        XCTAssertEqual(FileNameTemplate.standard.path(for: values(podcast: "", ext: "")), "Podcast/2026-11-21 One")
    }

    func testEveryField() throws {
        XCTAssertEqual(try path("{podcast}/S{season:02}E{episode:03} {title} [{guid}] #{id}.{ext}", values()), "Show/S02E007 One [g-1] #42.mp3")
        XCTAssertEqual(try path("{date:%Y}/{date:%m}/{date:%d %H%M%S %y %j %%} {title}.{ext}", values()), "2026/11/21 100000 26 325 % One.mp3")
        XCTAssertEqual(try path("{date} {title}", values()), "2026-11-21 One")
        XCTAssertEqual(try path("{podcast}/{season}/{title}.{ext}", values(season: nil)), "Show/One.mp3", "an empty folder is left out")
        XCTAssertEqual(try path("{episode:4} {title}", values(episode: -3)), "-0003 One")
        XCTAssertEqual(FileNameTemplate.date(951_782_400 + 86_399, "%Y-%m-%d %H:%M:%S day %j"), "2000-02-29 23:59:59 day 060")
        XCTAssertEqual(FileNameTemplate.date(-1, "%Y-%m-%d %H:%M:%S"), "1969-12-31 23:59:59")
    }

    func testHostileTitlesStayOneSafeNameInsideTheFolder() throws {
        let template = FileNameTemplate.standard
        XCTAssertEqual(template.path(for: values(podcast: "../../etc", title: "../../passwd")), "_.._etc/2026-11-21 _.._passwd.mp3")
        XCTAssertEqual(template.path(for: values(podcast: "..", title: "..", published: nil)), "Podcast/episode.mp3")
        XCTAssertEqual(template.path(for: values(podcast: "AC/DC", title: "a\\b/c", published: nil)), "AC_DC/a\\b_c.mp3")
        XCTAssertEqual(
            template.path(for: values(title: "bell\u{07} esc\u{1B}[31m nul\u{0} rtl\u{202E}3pm.exe", published: nil)),
            "Show/bell esc nul rtl3pm.exe.mp3", "control characters, escapes and bidi overrides are dropped")
        XCTAssertEqual(template.path(for: values(title: ".hidden", published: nil)), "Show/hidden.mp3")
        XCTAssertEqual(try path("{title}.{ext}", values(title: "", published: nil)), "episode.mp3")
        XCTAssertEqual(try path("{title}.{ext}", values(title: "   ", ext: "", published: nil)), "episode")

        let long = String(repeating: "é", count: 400)
        let made = template.path(for: values(podcast: long, title: long))
        let parts = made.split(separator: "/")
        XCTAssertEqual(parts.count, 2)
        XCTAssertLessThanOrEqual(parts[0].utf8.count, FileNameTemplate.folderBytes)
        XCTAssertLessThanOrEqual(parts[1].utf8.count + FileNamer.reservedBytes, FileNamer.maxNameBytes, "room for .part and ' (2)'")
        XCTAssertTrue(parts[1].hasSuffix(".mp3"), "the extension survives the cut")
        XCTAssertTrue(
            String(parts[1]).unicodeScalars.allSatisfy { $0 == "é" || " .-0123456789mp".unicodeScalars.contains($0) },
            "cut on a character boundary")
    }

    func testMistakesAreRefusedWithWhatToWrite() {
        func refusal(_ text: String) -> String? {
            do { _ = try FileNameTemplate(text); return nil } catch { return error.description }
        }
        XCTAssertEqual(
            refusal("{podcast}/{titel}.{ext}"), "a template of known fields: {titel} is not one (fields: podcast, title, date, ext, season, episode, guid, id)")
        XCTAssertEqual(refusal("{title"), "a template whose braces pair up: a { is not closed")
        XCTAssertEqual(refusal("title}"), "a template whose braces pair up: a } has no {")
        XCTAssertEqual(refusal("/srv/{title}"), "a path inside the download folder: it starts with /")
        XCTAssertEqual(refusal("../{title}"), "a path inside the download folder: it has a '..' folder")
        XCTAssertEqual(refusal("{podcast}//{title}"), "a path without empty folders (//, or a / at the end)")
        XCTAssertEqual(refusal("{title}/"), "a path without empty folders (//, or a / at the end)")
        XCTAssertEqual(
            refusal("{title}/{podcast}.{ext}"),
            "a template whose file name has {title}, {guid}, {id}, {episode} or {date}, so that episodes get names of their own")
        XCTAssertEqual(refusal("{episode:x} {title}"), "a template whose {episode:…} gives a width from 0 to 9, such as {episode:02}")
        XCTAssertEqual(refusal("{title:upper}"), "a template whose {title} takes no option")
        XCTAssertEqual(refusal("{date:%B %d} {title}"), "a template whose date format uses only %Y %y %m %d %H %M %S %j and %%")
        XCTAssertEqual(refusal("{date:%} {title}"), "a template whose date format uses only %Y %y %m %d %H %M %S %j and %%")
        XCTAssertEqual(refusal("{title}\t.{ext}"), "printable text: it has a control character")
        XCTAssertEqual(refusal("{date:%Y/%m} {title}"), "a template without / inside a field: write {date:%Y}/{date:%m} for folders by date")
        XCTAssertEqual(refusal(" "), "a template such as \"{podcast}/{title}.{ext}\", not empty")
        XCTAssertNil(refusal("{podcast} - {title}.{ext}"))
    }

    func testTheConfigReportsABadTemplateAtItsLineAndKeepsAGoodOne() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("podq-template-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = ConfigFile(path: dir + "/config")
        try "# mine\nfile-name-template = \"{podcast}/{titel}\"\n".write(toFile: config.path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try config.load()) { error in
            XCTAssertEqual(
                (error as? ConfigError)?.errorDescription,
                "\(config.path):2: 'file-name-template' must be a template of known fields: {titel} is not one (fields: podcast, title, date, ext, season, episode, guid, id) (read as \"{podcast}/{titel}\"; put the template in quotes when it has a #)."
            )
        }
        // An unquoted # starts a comment: the message shows what was read.
        try "file-name-template = {podcast}/#{episode} {title}\n".write(toFile: config.path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try config.load()) { error in
            XCTAssertTrue(
                (error as? ConfigError)?.errorDescription?.contains("(read as \"{podcast}/\"; put the template in quotes when it has a #)") == true,
                "\(error)")
        }
        try "# mine\n".write(toFile: config.path, atomically: true, encoding: .utf8)
        try config.set("file-name-template", to: "{podcast}/S{season:02}E{episode:02} {title}.{ext}")
        XCTAssertEqual(try config.load().fileNameTemplate.description, "{podcast}/S{season:02}E{episode:02} {title}.{ext}")
        XCTAssertTrue(try String(contentsOfFile: config.path, encoding: .utf8).hasPrefix("# mine\n"), "the rest of the file stays")
    }
}
