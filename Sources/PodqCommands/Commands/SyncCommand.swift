import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqHTTP
import PodqSession

/// `podq sync …`: subscriptions, played marks and positions with a gpodder.net or Nextcloud server
/// (docs/SYNC.md).
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync subscriptions, played marks and positions with a gpodder.net or Nextcloud server.",
        discussion: "`podq sync` sends what changed here, then takes what changed elsewhere (for cron). Exit code 1 when the server "
            + "cannot be reached or did not take a change (it waits and is sent next time), or refused one (set aside: podq sync pending). "
            + "SYNC.md tells how to set it up with AntennaPod.",
        subcommands: [
            SyncNowCommand.self, SyncLoginCommand.self, SyncLogoutCommand.self, SyncStatusCommand.self, SyncPendingCommand.self,
            SyncRetryCommand.self, SyncDropCommand.self, SyncLinkCommand.self,
        ],
        defaultSubcommand: SyncNowCommand.self
    )
}

/// `podq sync [--full]`.
struct SyncNowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "now", abstract: "Send what changed here, then take what changed elsewhere.")
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Ask the server for everything again, not only what changed since the last sync, and send set-aside changes again.")
    var full = false

    func run() async throws {
        let context = try QueueContext.open(global)
        let outcome = try await QueueSession.beside(context: context) { try await $0.perform(.sync(full: full, asked: true)) }
        guard case .synced(let report) = outcome else { return }
        Console.out(report.line)
        if report.needsAttention { throw ExitCode(ExitCodes.failure) }
    }
}

/// `podq sync login <server-url> --user NAME [--password-command CMD] [--flavour gpodder|nextcloud] [--device ID]`.
struct SyncLoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Log in to a sync server (this replaces any account before).",
        discussion: "The password is asked for on the terminal (or read from standard input), or printed by --password-command; "
            + "podq keeps the command, or the password in the desktop keyring (secret-tool), never in a file of its own.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The server's base URL: https://gpodder.net, https://cloud.example.org.") var server: String
    @Option(name: .long, help: "The user name on the server (without it, on Nextcloud: log in in a browser, Login Flow v2).") var user: String?
    @Option(name: .long, help: ArgumentHelp("A command that prints the password (run by sh; %u the user, %h the host).", valueName: "command"))
    var passwordCommand: String?
    @Option(name: .long, help: ArgumentHelp("The server's API: gpodder or nextcloud (default: found out).", valueName: "flavour"))
    var flavour: String?
    @Option(name: .long, help: ArgumentHelp("This device's id on a gpodder.net account (default: podq-<host name>).", valueName: "id"))
    var device: String?

    func validate() throws {
        if let flavour, SyncFlavour(rawValue: flavour.lowercased()) == nil {
            throw ValidationError("--flavour is gpodder or nextcloud, not '\(flavour)'.")
        }
        if let device, device.isEmpty || device.contains(where: { !($0.isLetter || $0.isNumber || "-_.".contains($0)) }) {
            throw ValidationError("--device takes letters, digits, '-', '_' and '.', not '\(device)'.")
        }
    }

    func run() async throws {
        let context = try QueueContext.open(global)
        guard let given = URL(string: server), let scheme = given.scheme?.lowercased(), scheme == "http" || scheme == "https", given.host != nil else {
            throw CommandError(
                "'\(SafeText.clean(server))' is not an http(s) URL; give the server's base URL, e.g. https://gpodder.net.", code: ExitCodes.usage)
        }
        // A login in the URL is not kept in it.
        let (clean, _) = Credentials.split(given)
        var base = clean.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let device = self.device ?? SyncRun.deviceID()
        let line = try await HTTPSession.with(settings: context.settings, logger: context.log) { transport in
            let user: String, password: String
            if let given = self.user {
                user = given
                if let passwordCommand {
                    password = try await PodcastLogin.run(passwordCommand, user: user, host: clean.host ?? "")
                } else {
                    password = try PasswordPrompt.ask(for: user)
                }
            } else {
                (user, password) = try await Self.loginFlow(base: clean, flavour: flavour, transport: transport)
            }
            let connection = SyncConnection(base: clean, user: user, password: password, transport: transport, logger: context.log)
            let (kind, why) = try await Self.flavour(flavour.flatMap { SyncFlavour(rawValue: $0.lowercased()) }, connection: connection, device: device)
            var keyring = false
            if passwordCommand == nil {
                keyring = await SyncCredentials.store(password, server: base, user: user)
                guard keyring else {
                    throw CommandError(
                        "the login works, but podq has nowhere to keep the password: there is no desktop keyring here (secret-tool). "
                            + "Log in with a command that prints it: podq sync login \(base) --user \(user) --password-command 'pass show gpodder'",
                        code: ExitCodes.usage)
                }
            }
            try await context.store.sync.saveSyncAccount(
                .init(server: base, flavour: kind, user: user, device: kind == .gpodder ? device : nil, passwordCommand: passwordCommand, keyring: keyring))
            context.log.info("sync login", metadata: ["server": "\(base)", "flavour": "\(kind.rawValue)", "user": "\(user)"])
            var line =
                "logged in to \(base) as \(user) (\(kind == .gpodder ? "gpodder.net API, this device is \(device)" : "Nextcloud GPodder Sync")): \(why)."
            if kind == .gpodder, let devices = try? await GPodderServer(connection: connection, device: device).devices() {
                let others = devices.filter { $0.id != device }
                if !others.isEmpty {
                    line +=
                        "\nOther devices on this account: "
                        + others.map {
                            "\(SafeText.clean($0.id)) (\(SafeText.clean($0.caption.isEmpty ? $0.type : $0.caption)), \(Counted.of($0.subscriptions, "subscription")))"
                        }
                        .joined(separator: ", ")
                    line +=
                        ".\nThe first `podq sync` subscribes to every device's podcasts; to keep podq's subscriptions in step with one device "
                        + "from then on: podq sync link \(SafeText.clean(others[0].id))"
                }
            }
            return line + "\nNext: podq sync (it sends podq's subscriptions and takes the server's)."
        }
        Console.out(line)
    }

    /// Nextcloud's Login Flow v2: the page to open is printed, and podq waits (10 minutes at most) for
    /// the user to grant access in the browser; the app password it receives goes to the keyring only.
    static func loginFlow(base: URL, flavour: String?, transport: any HTTPTransport) async throws -> (String, String) {
        guard flavour?.lowercased() != SyncFlavour.gpodder.rawValue else {
            throw CommandError("a gpodder.net server needs --user NAME (logging in in a browser is Nextcloud's).", code: ExitCodes.usage)
        }
        guard SyncCredentials.keyringTool != nil else {
            throw CommandError(
                "logging in in a browser gives podq an app password to keep, and there is no desktop keyring here (secret-tool). Make an app "
                    + "password in Nextcloud (Settings → Security), then: podq sync login \(base.absoluteString) --user NAME --password-command '…'",
                code: ExitCodes.usage)
        }
        let flow = NextcloudLoginFlow(base: base, transport: transport)
        do {
            let started = try await flow.start()
            Console.out("Open this page in a browser, log in and grant access (podq waits 10 minutes):\n  \(started.loginPage)")
            return try await flow.wait(for: started)
        } catch {
            throw CommandError(ErrorText.describe(error), code: error.isBadInput ? ExitCodes.usage : ExitCodes.failure)
        }
    }

    /// The flavour given, or the one the server really serves for this user: the gpodder.net API
    /// when its login and the lists a first sync reads work, else Nextcloud's app when its do. A server
    /// that speaks both (opodsync) gets the gpodder.net API, whose devices and groups podq uses; the
    /// line says which and why.
    static func flavour(_ given: SyncFlavour?, connection: SyncConnection, device: String) async throws -> (SyncFlavour, String) {
        let caption = "podq on \(ProcessInfo.processInfo.hostName)"
        let now = Int64(Date().timeIntervalSince1970)
        var gpodderFailure: SyncError?
        if given == .gpodder || given == nil {
            let server = GPodderServer(connection: connection, device: device)
            do {
                try await server.login(caption: caption)
                // What a first sync reads: a server whose login works but whose lists do not is not one to sync with.
                _ = try await server.subscriptions(since: 0)
                _ = try await server.allSubscriptions()
                try await server.checkActions(since: now)
                if given == .gpodder { return (.gpodder, "as asked") }
                let both = (try? await NextcloudServer(connection: connection).checkActions(since: now)) != nil
                return (.gpodder, both ? "its login and lists answer; it also speaks Nextcloud's (--flavour nextcloud)" : "its login and lists answer")
            } catch {
                if given == .gpodder || SyncRun.stopsTheSync(error) { throw CommandError(ErrorText.describe(error), code: ExitCodes.failure) }
                gpodderFailure = error
            }
        }
        do {
            let server = NextcloudServer(connection: connection)
            try await server.login(caption: caption)
            try await server.checkActions(since: now)
            if given == .nextcloud { return (.nextcloud, "as asked") }
            return (.nextcloud, "the gpodder.net API did not answer (\(Self.short(gpodderFailure)))")
        } catch {
            switch error {
            case .status(let code, _, let detail) where given == nil:
                throw CommandError(
                    ErrorText.describe(SyncError.notASyncServer(url: connection.serverName, detail: "\(code) \(detail)")), code: ExitCodes.failure)
            case .badAnswer(_, let detail) where given == nil:
                throw CommandError(ErrorText.describe(SyncError.notASyncServer(url: connection.serverName, detail: detail)), code: ExitCodes.failure)
            default:
                throw CommandError(ErrorText.describe(error), code: ExitCodes.failure)
            }
        }
    }

    private static func short(_ error: SyncError?) -> String {
        switch error {
        case .status(let code, let call, _): "\(code) to \(call)"
        case .badAnswer(let call, _), .notTaken(let call, _): "an answer to \(call) that is not its API's"
        case let error?: String((error.errorDescription ?? "").prefix(80))
        case nil: "not tried"
        }
    }
}

/// `podq sync logout [--force]`.
struct SyncLogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Forget the sync account (and its password in the keyring).",
        discussion: "Changes the server has not taken are dropped with the account: podq says how many, and asks for --force while any wait.")
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Log out even though changes wait for the server (they are dropped).") var force = false

    func run() async throws {
        let context = try QueueContext.open(global)
        let counts = try await context.store.sync.syncChangeCounts()
        let dropped = counts.pending + counts.parked
        guard try await context.store.sync.syncAccount() != nil else {
            Console.out("podq was not logged in to a sync server.")
            return
        }
        if dropped > 0 && !force {
            throw CommandError(
                "\(Counted.of(dropped, "change")) never reached the server (\(counts.pending) waiting, \(counts.parked) set aside); logging out "
                    + "drops them. Send them first (podq sync; podq sync pending lists them), or: podq sync logout --force",
                code: ExitCodes.usage)
        }
        guard let account = try await context.store.sync.deleteSyncAccount() else { return }
        if account.keyring { await SyncCredentials.forget(server: account.server, user: account.user) }
        Console.out("logged out of \(account.server)" + (dropped > 0 ? "; dropped \(Counted.of(dropped, "change")) the server never took" : "") + ".")
    }
}

/// `podq sync status [--json]`.
struct SyncStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "The sync account, the last push and pull, and what waits.")
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print JSON: server, flavour, user, device, lastPush, lastPull, pending, parked, lastError (SYNC.md).")
    var json = false

    func run() throws {
        let context = try QueueContext.open(global)
        let account = try context.store.sync.syncAccount()
        let counts = try context.store.sync.syncChangeCounts()
        if json {
            func time(_ t: Double?) -> JSONValue { t.map { .int(Int64($0)) } ?? .null }
            let fields: [String: JSONValue] = [
                "loggedIn": .bool(account != nil), "server": .optional(account?.server), "flavour": .optional(account?.flavour.rawValue),
                "user": .optional(account?.user), "device": .optional(account?.device), "lastPush": time(account?.lastPush),
                "lastPull": time(account?.lastPull), "pending": .int(Int64(counts.pending)), "parked": .int(Int64(counts.parked)),
                "lastError": .optional(account?.lastError.map(SafeText.clean)),
            ]
            Console.out(JSONValue.object(fields).text)
            return
        }
        guard let account else {
            Console.out("Not logged in to a sync server. Log in with: podq sync login <server-url> --user NAME (\(PodqDocs.cite("SYNC.md"))).")
            return
        }
        func when(_ t: Double?) -> String { t.map { FeedDate.day(Date(timeIntervalSince1970: $0)) + " " + Self.clock($0) } ?? "never" }
        Console.out("server:  \(account.server) (\(account.flavour == .gpodder ? "gpodder.net API" : "Nextcloud GPodder Sync"))")
        Console.out("user:    \(account.user)" + (account.device.map { ", device \($0)" } ?? ""))
        Console.out("pushed:  \(when(account.lastPush)); pulled: \(when(account.lastPull))")
        Console.out(
            "pending: \(counts.pending) change\(counts.pending == 1 ? "" : "s")"
                + (counts.parked > 0 ? "; \(counts.parked) refused by the server, kept aside" : ""))
        if let error = account.lastError { Console.out("last error: \(SafeText.clean(error))") }
    }

    static func clock(_ t: Double) -> String {
        var time = time_t(t)
        var parts = tm()
        localtime_r(&time, &parts)
        return String(printf: "%02d:%02d", parts.tm_hour, parts.tm_min)
    }
}
