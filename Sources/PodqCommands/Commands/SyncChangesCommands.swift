import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession

/// A sync change's id as podq prints it (`c12`) and reads it (`c12` or `12`).
enum SyncChangeID {
    static func label(_ id: Int64) -> String { "c\(id)" }

    static func parse(_ texts: [String]) throws -> [Int64] {
        try texts.map { text in
            var rest = Substring(text)
            if rest.first == "c" || rest.first == "C" { rest = rest.dropFirst() }
            guard !rest.isEmpty, rest.count <= 18, rest.allSatisfy({ $0.isASCII && $0.isNumber }), let id = Int64(rest) else {
                throw CommandError("'\(SafeText.clean(text))' is not a sync change: give its id as `podq sync pending` shows it (c12)", code: ExitCodes.usage)
            }
            return id
        }
    }
}

/// `podq sync pending [--json]`: what waits for the server, and what it refused (set aside).
struct SyncPendingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending", abstract: "List the changes waiting for the sync server, and those it refused (set aside, with its reason).")
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print JSON: one object per change: id, kind, action, feed, episode, timestamp, position, total, setAside, reason.")
    var json = false

    func run() throws {
        let context = try QueueContext.open(global)
        let changes = try context.store.sync.allSyncChanges()
        if json {
            Console.out(JSONValue.array(changes.map(Self.object)).text)
            return
        }
        let waiting = changes.filter { $0.setAside == nil }
        let aside = changes.filter { $0.setAside != nil }
        if changes.isEmpty {
            Console.out(
                try context.store.sync.syncAccount() == nil ? "Not logged in to a sync server: nothing waits." : "Nothing waits: the server has every change.")
            return
        }
        if !waiting.isEmpty {
            Console.out("Waiting for the next sync (\(waiting.count)):")
            for (change, _) in waiting { Console.out("  \(SyncChangeID.label(change.id))  \(SyncRun.describe(change))\(Self.position(change))") }
        }
        if !aside.isEmpty {
            Console.out("Set aside, refused by the server (\(aside.count)): podq sync retry [ID…] sends them again, podq sync drop ID… forgets them")
            for (change, reason) in aside {
                Console.out("  \(SyncChangeID.label(change.id))  \(SyncRun.describe(change))\(Self.position(change)): \(SafeText.clean(reason ?? ""))")
            }
        }
    }

    private static func position(_ change: SyncStore.SyncChange) -> String {
        guard let action = change.action, action.action == .play, let position = action.position else { return "" }
        return " at \(Listening.clock(position))"
    }

    static func object(_ item: (change: SyncStore.SyncChange, setAside: String?)) -> JSONValue {
        let (change, reason) = item
        let action = change.action
        return .object([
            "id": .string(SyncChangeID.label(change.id)), "kind": .string(change.kind.rawValue), "action": .optional(action?.action.rawValue),
            "feed": .string(SafeText.clean(change.url)), "episode": .optional(action.map { SafeText.clean($0.episode) }),
            "timestamp": .optional(action?.timestamp), "position": .optional(action?.position), "total": .optional(action?.total),
            "setAside": .bool(reason != nil), "reason": .optional(reason.map(SafeText.clean)),
        ])
    }
}

/// `podq sync retry [ID…]`: set-aside changes go back to waiting (all of them without ids).
struct SyncRetryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Send set-aside changes again at the next sync (all of them, or those of the ids given).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Changes as `podq sync pending` shows them (c12).") var ids: [String] = []

    func run() throws {
        let context = try QueueContext.open(global)
        let n = try context.store.sync.retrySyncChanges(ids.isEmpty ? nil : SyncChangeID.parse(ids))
        Console.out(n == 0 ? "no set-aside change to send again." : "\(Counted.of(n, "change")) will be sent again at the next sync (podq sync).")
        if !ids.isEmpty && n < ids.count { throw ExitCode(ExitCodes.failure) }
    }
}

/// `podq sync drop ID…`: forgets changes, never sent.
struct SyncDropCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "drop", abstract: "Forget changes (waiting or set aside): they are never sent.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Changes as `podq sync pending` shows them (c12).") var ids: [String]

    func run() throws {
        let context = try QueueContext.open(global)
        let wanted = try SyncChangeID.parse(ids)
        let n = try context.store.sync.removeSyncChanges(wanted)
        context.log.info("sync: changes dropped", metadata: ["count": "\(n)"])
        Console.out("dropped \(Counted.of(n, "change")); the server never hears of \(n == 1 ? "it" : "them").")
        if n < Set(wanted).count {
            Console.error("podq: \(Set(wanted).count - n) of the ids name no change (podq sync pending lists them).")
            throw ExitCode(ExitCodes.failure)
        }
    }
}
