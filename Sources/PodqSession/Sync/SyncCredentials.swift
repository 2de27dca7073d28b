import FoundationEssentials
import Glibc
import PodqCore
import Subprocess

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// Where a sync account's password lives: the output of a command the user gave
/// (`--password-command "pass show gpodder"`), or the desktop keyring through `secret-tool`. podq
/// never writes it anywhere itself: not in the database, the config, a log or a message.
package enum SyncCredentials {
    /// The password of `account`.
    package static func password(for account: SyncStore.SyncAccount) async throws(CommandError) -> String {
        if let command = account.passwordCommand {
            let host = URL(string: account.server)?.host ?? ""
            return try await PodcastLogin.run(command, user: account.user, host: host)
        }
        if account.keyring {
            guard let found = try await lookUp(server: account.server, user: account.user) else {
                throw CommandError(
                    "the desktop keyring has no password for \(account.user) at \(account.server) (or is locked). Log in again: "
                        + "podq sync login \(account.server) --user \(account.user)", code: ExitCodes.failure)
            }
            return found
        }
        throw CommandError(
            "podq has no way to get the sync password. Log in again with --password-command: podq sync login \(account.server) "
                + "--user \(account.user) --password-command '…'", code: ExitCodes.usage)
    }

    /// The path of `secret-tool` when there is a desktop session to keep a password in; nil otherwise.
    package static var keyringTool: String? {
        guard ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]?.isEmpty == false,
            ProcessInfo.processInfo.environment["PODQ_NO_KEYRING"] == nil
        else { return nil }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(folder)/secret-tool"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    private static func attributes(server: String, user: String) -> [String] {
        ["service", "podq-sync", "server", server, "user", user]
    }

    /// Keeps `password` in the keyring; false when it could not.
    package static func store(_ password: String, server: String, user: String) async -> Bool {
        guard let tool = keyringTool else { return false }
        let result = try? await ChildCommand.run(
            .path(FilePath(tool)), arguments: ["store", "--label", "podq sync: \(user) at \(server)"] + attributes(server: server, user: user),
            input: password)
        return (result ?? nil)?.status.isSuccess == true
    }

    package static func lookUp(server: String, user: String) async throws(CommandError) -> String? {
        guard let tool = keyringTool else {
            throw CommandError("the password is in the desktop keyring, and there is no keyring session here (secret-tool, D-Bus).", code: ExitCodes.failure)
        }
        let ran = try? await ChildCommand.run(.path(FilePath(tool)), arguments: ["lookup"] + attributes(server: server, user: user))
        guard let result = ran ?? nil, result.status.isSuccess else { return nil }
        let text = result.standardOutput
        guard !text.isEmpty else { return nil }
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    package static func forget(server: String, user: String) async {
        guard let tool = keyringTool else { return }
        _ = try? await ChildCommand.run(.path(FilePath(tool)), arguments: ["clear"] + attributes(server: server, user: user))
    }
}
