import Foundation
import PodqCore
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
enum PodcastLogin {
    /// The login and `User-Agent` of `podcast`; nil when it has neither.
    /// - Throws: ``CommandError`` when its password command fails.
    static func access(for podcast: PodcastRecord, settings: Settings) async throws(CommandError) -> PodcastAccess? {
        var access = PodcastAccess(userAgent: podcast.userAgent)
        if podcast.rules.onComplete != nil { access.digests.insert(.sha256) }
        if let user = podcast.loginUser, let url = URL(string: podcast.url) {
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

    /// Runs `command` with `sh -c` (`%u` → the user name, `%h` → the host, each quoted) and returns the
    /// first line it prints.
    /// - Throws: ``CommandError`` with the command's exit status and what it wrote on stderr.
    static func run(_ command: String, user: String, host: String) async throws(CommandError) -> String {
        let expanded = command.replacingOccurrences(of: "%u", with: quoted(user)).replacingOccurrences(of: "%h", with: quoted(host))
        do {
            let result = try await Subprocess.run(.path(FilePath("/bin/sh")), arguments: ["-c", expanded],
                                                  output: .string(limit: 64 * 1024), error: .string(limit: 4 * 1024))
            let line = result.standardOutput.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            guard result.terminationStatus.isSuccess, !line.isEmpty else {
                let said = SafeText.clean(result.standardError)
                throw CommandError("the password command `\(SafeText.clean(command))` \(result.terminationStatus.isSuccess ? "printed nothing" : "failed (\(result.terminationStatus))")"
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

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The access of each podcast, worked out once per process (a password command runs once), for
    /// the downloads of its episodes.
    final class Book: Sendable {
        private let cache = Mutex<[Int64: PodcastAccess?]>([:])
        let context: QueueContext

        init(context: QueueContext) { self.context = context }

        /// The access of the podcast of `row`'s episode, or nil. A failing password command is logged
        /// and the download goes without a login (the server then says 401).
        func access(for row: DownloadRecord) async -> PodcastAccess? {
            guard let episodeId = row.episodeId, let (_, podcast) = try? context.store.episode(id: episodeId), let id = podcast.id else { return nil }
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
