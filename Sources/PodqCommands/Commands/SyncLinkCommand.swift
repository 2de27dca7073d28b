import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession

/// `podq sync link <device>`: one sync group with another device of a gpodder.net account, and with
/// every device already in a group with either. The server's answer is read: the command says
/// "linked" only when the server put them all in one group, and what it did otherwise.
struct SyncLinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link", abstract: "Keep podq's subscriptions in step with another device of a gpodder.net account (sync-devices).",
        discussion: "The group keeps every device already linked with either: linking a second podq with the phone keeps the first. "
            + "Exit 1 when the server did not put them in one group (it is said what it did).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The other device's id (podq sync login lists them).") var device: String

    func run() async throws {
        let context = try QueueContext.open(global)
        guard let account = try await context.store.sync.syncAccount() else {
            throw CommandError(ErrorText.describe(SyncError.notLoggedIn), code: ExitCodes.usage)
        }
        guard account.flavour == .gpodder else {
            throw CommandError("Nextcloud's GPodder Sync has no devices: every client already shares one list.", code: ExitCodes.usage)
        }
        let password = try await SyncCredentials.password(for: account)
        let line = try await HTTPSession.with(settings: context.settings, logger: context.log) { transport -> String in
            guard let server = try SyncRun.server(for: account, password: password, transport: transport, logger: context.log) as? GPodderServer else {
                return ""
            }
            do {
                let devices = try await server.devices()
                guard devices.contains(where: { $0.id == device }) else {
                    throw CommandError(
                        "the account has no device '\(SafeText.clean(device))'; its devices: " + devices.map { SafeText.clean($0.id) }.joined(separator: ", "),
                        code: ExitCodes.usage)
                }
                let before = try await server.groups()
                // Every device already linked with either stays in the group: a server that replaces
                // groups (gpodder-fastapi-router) would otherwise drop them.
                var wanted = [server.device, device]
                for member in (before.group(of: device) ?? []) + (before.group(of: server.device) ?? []) where !wanted.contains(member) {
                    wanted.append(member)
                }
                let after = try await server.link(wanted)
                guard let group = after.synchronized.first(where: { Set($0).isSuperset(of: wanted) }) else {
                    let groups = after.synchronized.map { "[" + $0.map(SafeText.clean).joined(separator: ", ") + "]" }.joined(separator: ", ")
                    throw CommandError(
                        "the server did not put \(wanted.map(SafeText.clean).joined(separator: ", ")) in one group: it answered "
                            + "synchronized \(groups.isEmpty ? "none" : groups), not synchronized "
                            + "\(after.notSynchronized.isEmpty ? "none" : after.notSynchronized.map(SafeText.clean).joined(separator: ", ")).",
                        code: ExitCodes.failure)
                }
                context.log.info("sync: linked", metadata: ["group": "\(group.joined(separator: ","))"])
                let others = group.filter { $0 != server.device && $0 != device }.map(SafeText.clean)
                return "linked \(SafeText.clean(server.device)) with \(SafeText.clean(device))"
                    + (others.isEmpty ? "" : " (and \(others.joined(separator: ", ")), linked before)")
                    + ": the server keeps their subscriptions the same."
            } catch let error as SyncError {
                if case .badAnswer(let call, let detail) = error, call == "the sync groups" || call == "linking the devices" {
                    throw CommandError(
                        "\(SafeText.clean(account.server)) did not answer with its sync groups (\(detail)): it may keep none (opodsync keeps "
                            + "none: every device there already shares the account's subscriptions). Nothing was linked.",
                        code: ExitCodes.failure)
                }
                throw CommandError(ErrorText.describe(error), code: error.isBadInput ? ExitCodes.usage : ExitCodes.failure)
            }
        }
        Console.out(line)
    }
}
