import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqHTTP
import Subprocess
import Synchronization

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// A private feed's login: the user name and password given at `podq add` (or in the feed's URL),
/// or a command that prints the password (`--password-command`, else the config's `password-command`),
/// run once per podcast per process. What ``PodcastAccess`` a podcast's requests carry.
package enum PodcastLogin {
    /// The login and `User-Agent` of `podcast`; nil when it has neither.
    /// - Throws: ``CommandError`` when its password command fails.
    package static func access(for podcast: PodcastRecord, settings: Settings) async throws(CommandError) -> PodcastAccess? {
        var access = PodcastAccess(userAgent: podcast.userAgent)
        if podcast.rules.onComplete != nil { access.digests.insert(.sha256) }
        // The login goes where it was given for, never where the feed moved since.
        if let user = podcast.loginUser, let url = URL(string: podcast.loginOrigin ?? podcast.url) {
            let password: String
            if let stored = podcast.loginPassword {
                password = stored
            } else if let command = podcast.passwordCommand ?? settings.passwordCommand {
                password = try await run(command, user: user, host: url.host ?? "")
            } else {
                password = ""
            }
            access.credentials = Credentials(user: user, password: password, for: url)
        }
        return access.isEmpty ? nil : access
    }

    /// Runs `command` with `sh -c` (`%u` → the user name, `%h` → the host, each one quoted word) and
    /// returns the first line it prints.
    /// - Throws: ``CommandError`` with the command's exit status and what it wrote on stderr.
    package static func run(_ command: String, user: String, host: String) async throws(CommandError) -> String {
        let expanded = expand(command, user: user, host: host)
        do {
            guard let result = try await ChildCommand.run(.path(FilePath("/bin/sh")), arguments: ["-c", expanded]) else {
                throw CommandError(
                    "the password command `\(SafeText.clean(command))` did not finish within \(ChildCommand.deadlineText) (it may be waiting for a "
                        + "passphrase nobody types); it was stopped. Check it in a shell, or set the password with `podq login`.",
                    code: ExitCodes.failure)
            }
            let line = result.standardOutput.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            guard result.status.isSuccess, !line.isEmpty else {
                let said = SafeText.clean(result.standardError).trimmingWhitespace
                throw CommandError(
                    "the password command `\(SafeText.clean(command))` \(result.status.isSuccess ? "printed nothing" : "failed (\(result.status.described))")"
                        + (said.isEmpty ? "" : ": \(said)") + ". Check it in a shell, or set the password with `podq login`.",
                    code: ExitCodes.failure)
            }
            return line
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError("the password command `\(SafeText.clean(command))` could not run: \(error)", code: ExitCodes.failure)
        }
    }

    /// What a 401 or 403 to a feed with a login means, in words: the feed is now where its login was
    /// not given for (podq sent none there), or the server refused the login. Nil for other errors.
    /// - Parameter podcast: its id for `podq login`; nil while subscribing (`podq add`).
    package static func advice(for error: any Error, user: String?, origin: String?, podcast: Int64?) -> String? {
        let download = (error as? DownloadError) ?? { if case FeedError.fetch(let inner, _)? = error as? FeedError { inner } else { nil } }()
        guard let user, case .httpStatus(let code, let url, _)? = download, code == 401 || code == 403,
            let target = URL(string: url)
        else { return nil }
        let shown = SafeText.clean(SafeText.redactingCredentials(Credentials.split(target).url.absoluteString))
        let name = SafeText.clean(user)
        if let origin, let there = Credentials.origin(of: target), there != origin {
            let host = SafeText.clean(target.host ?? there)
            let fix = podcast.map { "run `podq login \($0) --user \(name)`" } ?? "add the feed's own URL with it: `podq add \(shown) --user \(name)`"
            return "\(shown) asks for a login (HTTP \(code)), but the login for \(name) was given for \(SafeText.clean(origin)), "
                + "so podq sent none to \(host): a login goes only where it was given. If you trust \(host) with it, \(fix)."
        }
        let fix = podcast.map { "`podq login \($0) --user \(name)` sets them again" } ?? "try again with the right ones"
        return "The server refused the login for \(name) at \(shown) (HTTP \(code)): check the user name and password; \(fix)."
    }

    /// `command` with `%u` and `%h` replaced in one pass, each by its value as one single-quoted word:
    /// a value that holds `%h`, a quote or `$(…)` reaches the command exactly as it is.
    package static func expand(_ command: String, user: String, host: String) -> String {
        var out = ""
        var rest = Substring(command)
        while let percent = rest.firstIndex(of: "%") {
            out += rest[..<percent]
            let next = rest.index(after: percent)
            switch next < rest.endIndex ? rest[next] : nil {
            case "u":
                out += quoted(user)
                rest = rest[rest.index(after: next)...]
            case "h":
                out += quoted(host)
                rest = rest[rest.index(after: next)...]
            default:
                out += "%"
                rest = rest[next...]
            }
        }
        return out + rest
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingEvery("'", with: "'\\''") + "'"
    }

    /// The access of each podcast, worked out once per process (a password command runs once), for
    /// the downloads of its episodes.
    package final class Book: Sendable {
        private let cache = Mutex<[Int64: PodcastAccess?]>([:])
        package let context: QueueContext

        package init(context: QueueContext) { self.context = context }

        /// The access of the podcast of `row`'s episode, or nil. A failing password command is logged
        /// and the download goes without a login (the server then says 401).
        package func access(for row: DownloadRecord) async -> PodcastAccess? {
            guard let episodeId = row.episodeId, let (_, podcast) = try? await context.store.library.episode(id: episodeId) else { return nil }
            let id = podcast.id
            if let known = cache.withLock({ $0[id] }) { return known }
            let access: PodcastAccess?
            do {
                access = try await PodcastLogin.access(for: podcast, settings: context.settings)
            } catch {
                context.log.error("password command failed", metadata: ["podcast": "\(id)", "reason": "\(error.message)"])
                access = nil
            }
            cache.withLock { $0[id] = .some(access) }
            return access
        }
    }
}
