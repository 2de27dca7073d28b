import Foundation
import PodqTestSupport
import XCTest

/// The completion scripts podq prints, exercised by bash itself: the script is sourced, a command line
/// is put in COMP_WORDS as readline would, the function `complete -p podq` names is called, and
/// COMPREPLY is what a TAB would offer. Podcast titles come from the podq binary, asked by the script.
final class CompletionScriptTests: CLITestCase {
    private var script: String { dir.file("podq.bash") }

    override func setUp() async throws {
        try await super.setUp()
        let generated = try await cli.run(["--generate-completion-script", "bash"])
        XCTAssertEqual(generated.exit.code, 0, generated.err)
        try generated.out.write(toFile: script, atomically: true, encoding: .utf8)
    }

    /// What bash offers for `line` (the cursor at its end), in the test's folder. `words`: the words
    /// readline made of it, when they are not the line split at its spaces (an escaped space).
    private func offers(_ line: String, words: [String]? = nil) throws -> [String] {
        let given = words.map { "COMP_WORDS=(" + $0.map { "'\($0)'" }.joined(separator: " ") + ")" } ?? "read -ra COMP_WORDS <<< \"$line\""
        let harness = """
            export PATH="\((ChildProcess.podqExecutable as NSString).deletingLastPathComponent):$PATH"
            export PODQ_HOME='\(cli.home)'
            source '\(script)'
            cd '\(dir.path)'
            line="$1"
            \(given)
            [[ "$line" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMP_LINE="$line"; COMP_POINT=${#line}
            spec=$(complete -p podq); fn=$(sed -E 's/.*-F ([^ ]+).*/\\1/' <<< "$spec")
            "$fn" podq "${COMP_WORDS[$COMP_CWORD]}" "${COMP_WORDS[$COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let file = dir.file("harness.sh")
        try harness.write(toFile: file, atomically: true, encoding: .utf8)
        let child = try ChildProcess(executable: "/bin/bash", arguments: [file, line], directory: dir.path)
        let exit = child.wait(timeout: 30)
        XCTAssertEqual(exit.code, 0, child.standardError)
        if !child.standardError.isEmpty { print("completion of '\(line)' said: \(child.standardError)") }
        return child.standardOutput.split(separator: "\n").map(String.init).filter { !$0.isEmpty }.sorted()
    }

    func testFilesFoldersAndPodcastNamesAreOffered() async throws {
        _ = FileManager.default.createFile(atPath: dir.file("subscriptions.opml"), contents: Data("<opml/>".utf8))
        _ = FileManager.default.createFile(atPath: dir.file("show.xml"), contents: Data("<rss/>".utf8))
        try FileManager.default.createDirectory(atPath: dir.file("wanted"), withIntermediateDirectories: true)
        server.serve(Array(#"<rss version="2.0"><channel><title>Talk: A Show</title></channel></rss>"#.utf8), as: "a.xml")
        server.serve(Array(#"<rss version="2.0"><channel><title>Tech Weekly</title></channel></rss>"#.utf8), as: "b.xml")
        for name in ["a.xml", "b.xml"] {
            let added = try await cli.run(["add", server.url("/static/\(name)").absoluteString])
            XCTAssertEqual(added.exit.code, 0, added.err)
        }
        let spec = try ChildProcess(executable: "/bin/bash", arguments: ["-c", "source '\(script)'; complete -p podq"], directory: dir.path)
        _ = spec.wait(timeout: 30)
        XCTAssertTrue(spec.standardOutput.contains("-F _podq podq"), spec.standardOutput)

        XCTAssertEqual(try offers("podq import sub"), ["subscriptions.opml"])
        XCTAssertTrue(try offers("podq import ").contains("subscriptions.opml"))
        XCTAssertEqual(try offers("podq parse sh"), ["show.xml"])
        XCTAssertEqual(try offers("podq add sh"), ["show.xml"])
        XCTAssertEqual(try offers("podq download --download-dir wa"), ["wanted"])
        XCTAssertEqual(try offers("podq set Ta"), ["Talk: A Show"])
        XCTAssertEqual(try offers("podq set T"), ["Talk: A Show", "Tech Weekly"])
        for command in ["refresh", "episodes", "remove", "login", "mark-played", "verify"] {
            XCTAssertEqual(try offers("podq \(command) Te"), ["Tech Weekly"], command)
        }
        // A title goes on completing past a space the user escaped or quoted.
        XCTAssertEqual(try offers(#"podq set Tech\ W"#, words: ["podq", "set", #"Tech\ W"#]), ["Tech Weekly"])
        XCTAssertEqual(try offers(#"podq set "Tech W"#, words: ["podq", "set", #""Tech W"#]), ["Tech Weekly"])
        // Another home, named on the command line.
        XCTAssertEqual(try offers("podq episodes --home \(dir.file("empty")) Te"), [])
    }

    func testZshAndFishCompleteFilesAndPodcastsToo() async throws {
        let zsh = try await cli.run(["--generate-completion-script", "zsh"]).out
        XCTAssertTrue(zsh.contains("*:sources:_files"), "add completes files")
        XCTAssertTrue(zsh.contains("---completion set -- positional@0") || zsh.contains("---completion set"), "set asks podq for titles")
        let fish = try await cli.run(["--generate-completion-script", "fish"]).out
        XCTAssertTrue(fish.contains("---completion refresh -- positional@0"), "refresh asks podq for titles")
        XCTAssertTrue(fish.contains("__fish_complete_directories"), "folders")
    }
}
