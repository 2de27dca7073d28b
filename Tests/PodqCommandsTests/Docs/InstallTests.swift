import Foundation
import PodqBase
import PodqCore
import PodqSession
import PodqTestSupport
import PodqUI
import XCTest

/// What `make install` lays out, and that the man page, the completions and each command's help cover
/// every command and option the binary has (read from its own `--experimental-dump-help`).
final class InstallTests: CLITestCase {
    static let repo = Repository.root.path

    /// Every command path (`["queue", "pause"]`) with its long option names, from the binary itself.
    private func commands() async throws -> [(path: [String], options: [String])] {
        let dump = try await cli.run(["--experimental-dump-help"])
        XCTAssertEqual(dump.exit.code, 0, dump.err)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(dump.out.utf8)) as? [String: Any])
        var found: [(path: [String], options: [String])] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            let arguments = command["arguments"] as? [[String: Any]] ?? []
            let options = arguments.compactMap { argument -> String? in
                guard (argument["shouldDisplay"] as? Bool) != false, let names = argument["names"] as? [[String: Any]] else { return nil }
                return names.first { $0["kind"] as? String == "long" }?["name"] as? String
            }
            found.append((path, options.filter { $0 != "help" && $0 != "version" }))
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                if let name = sub["commandName"] as? String, name != "help" { walk(sub, path + [name]) }
            }
        }
        walk(try XCTUnwrap(json["command"] as? [String: Any]), [])
        return found
    }

    func testEveryCommandHasHelpNamingItsOptions() async throws {
        let commands = try await commands()
        XCTAssertGreaterThan(commands.count, 10, "the dump lists the subcommands")
        for (path, options) in commands where !path.isEmpty {
            let help = try await cli.run(["help"] + path)
            XCTAssertEqual(help.exit.code, 0, "podq help \(path.joined(separator: " ")): \(help.err)")
            XCTAssertTrue(help.out.contains("USAGE: podq \(path.joined(separator: " "))"), help.out)
            for option in options {
                XCTAssertTrue(help.out.contains("--\(option)"), "podq help \(path.joined(separator: " ")) shows --\(option)")
            }
        }
    }

    func testTheManPageAndTheCompletionsCoverEveryCommandAndOption() async throws {
        let page = try String(contentsOfFile: Self.repo + "/docs/podq.1", encoding: .utf8)
        // mdoc escapes a hyphen as \- in places; compare without the escapes.
        let text = page.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\&", with: "")
        var completions: [String: String] = [:]
        for shell in ["bash", "zsh", "fish"] {
            let script = try await cli.run(["--generate-completion-script", shell])
            XCTAssertEqual(script.exit.code, 0, script.err)
            completions[shell] = script.out
        }
        let stale = "docs/podq.1 is out of date: run `make man`"
        for (path, options) in try await commands() {
            if let name = path.last {
                XCTAssertTrue(text.contains("Em \(name)\n"), "\(stale) (no \(name) entry)")
                for (shell, script) in completions { XCTAssertTrue(script.contains(name), "the \(shell) completion names \(name)") }
            }
            for option in options {
                XCTAssertTrue(text.contains("-\(option)"), "\(stale) (no --\(option) for \(path.joined(separator: " ")))")
                for (shell, script) in completions { XCTAssertTrue(script.contains(option), "the \(shell) completion has --\(option)") }
            }
        }
    }

    func testTheManPageHasTheTUIKeysTheEnvironmentTheFilesAndEveryExitCode() throws {
        let page = try String(contentsOfFile: Self.repo + "/docs/podq.1", encoding: .utf8)
        for section in [".Sh TUI KEYS", ".Sh ENVIRONMENT", ".Sh FILES", ".Sh \"EXIT STATUS\""] {
            XCTAssertTrue(page.contains(section), "docs/podq.1 lacks \(section): run `make man`")
        }
        XCTAssertFalse(page.contains(".Ex -std"), "the generic exit status is replaced by podq's table")
        for (_, meaning) in HelpOverlay.keys() {
            XCTAssertTrue(page.contains(meaning.replacingOccurrences(of: " · ", with: "; ")), "the man page's TUI KEYS lists: \(meaning)")
        }
        for code in [0, 1, 2, 3, 4, 5, 130] { XCTAssertTrue(page.contains(".It \(code)\n"), "exit code \(code)") }
        for variable in ["PODQ_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "SSL_CERT_FILE", "SSL_CERT_DIR", "NO_COLOR"] {
            XCTAssertTrue(page.contains("Ev \(variable)"), variable)
        }
    }

    func testInstallLaysOutTheBinaryTheManPageAndTheCompletions() async throws {
        let prefix = dir.file("prefix")
        let make = try ChildProcess(
            executable: "/usr/bin/env",
            arguments: ["make", "-s", "-C", Self.repo, "install-files", "BIN=\(ChildProcess.podqExecutable)", "PREFIX=\(prefix)"],
            directory: dir.path)
        let exit = await make.finish(timeout: 120)
        XCTAssertEqual(exit.code, 0, make.standardError)
        for file in [
            "bin/podq", "share/podq/demo/podcast.json", "share/man/man1/podq.1",
            "share/bash-completion/completions/podq", "share/zsh/site-functions/_podq",
            "share/fish/vendor_completions.d/podq.fish",
        ] {
            let attributes = try? FileManager.default.attributesOfItem(atPath: prefix + "/" + file)
            XCTAssertGreaterThan(attributes?[.size] as? Int ?? 0, 0, "\(file) is installed")
        }
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: prefix + "/bin/podq"))
        let size = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0 }
        XCTAssertLessThan(size(prefix + "/bin/podq"), size(ChildProcess.podqExecutable), "installed stripped")
        // Stripped: no symbol table left (binutils' readelf lists the sections).
        let sections = try ChildProcess(executable: "/usr/bin/env", arguments: ["readelf", "-S", "-W", prefix + "/bin/podq"], directory: dir.path)
        _ = await sections.finish()
        XCTAssertTrue(sections.standardOutput.contains(".text"), sections.standardOutput + sections.standardError)
        XCTAssertFalse(sections.standardOutput.contains(".symtab"), "installed stripped")
        let installed = try ChildProcess(executable: prefix + "/bin/podq", arguments: ["--version"], directory: dir.path)
        let version = await installed.finish()
        XCTAssertEqual(version.code, 0)
        XCTAssertTrue(installed.standardOutput.range(of: #"^podq \d+\.\d+\.\d+"#, options: .regularExpression) != nil, installed.standardOutput)
        // The installed podq finds its demo in share/podq, not in the build folder.
        let demo = try ChildProcess(
            executable: prefix + "/bin/podq",
            arguments: ["demo", "--headless", "--bytes-per-second", "5000000", "--home", dir.file("demo-home"), "--download-dir", dir.file("demo-files")],
            directory: dir.path)
        let ran = await demo.finish(timeout: 120)
        XCTAssertEqual(ran.code, 0, demo.standardOutput + demo.standardError)
        XCTAssertTrue(demo.standardOutput.contains("6 completed, 0 failed"), demo.standardOutput)

        // The guides messages point to are installed, and a message points to the installed one.
        for guide in ["README.md"] + PodqDocs.guides {
            XCTAssertGreaterThan(size(prefix + "/share/doc/podq/" + guide), 0, "\(guide) is installed")
        }
        let status = try ChildProcess(
            executable: prefix + "/bin/podq", arguments: ["sync", "status", "--home", dir.file("demo-home")], directory: dir.path)
        _ = await status.finish()
        XCTAssertTrue(status.standardOutput.contains("(\(prefix)/share/doc/podq/SYNC.md)"), status.standardOutput)
    }
}
