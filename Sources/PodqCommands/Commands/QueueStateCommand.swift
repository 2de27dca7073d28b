import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession

/// `podq queue cancel|pause|resume|retry <id>...`: state changes saved in the store. A running
/// `podq download` applies them to its transfers within a second.
enum QueueStateCommand {
    /// The ids every queue command takes.
    static let idsHelp = ArgumentHelp(
        "Downloads: d7 (or a bare 7) as `podq queue` shows them, or an episode's (e12).", valueName: "download")

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel",
            abstract: "Stop downloads and delete their partial files.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: QueueStateCommand.idsHelp) var ids: [String]
        func run() async throws { try await change(global, ids: ids, event: .cancel) }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pause",
            abstract: "Stop downloads and keep their partial files (all when no id is given).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: QueueStateCommand.idsHelp) var ids: [String] = []
        func run() async throws { try await change(global, ids: ids, event: .pause) }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume",
            abstract: "Put paused downloads back in line (all paused ones when no id is given).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: QueueStateCommand.idsHelp) var ids: [String] = []
        func run() async throws { try await change(global, ids: ids, event: .resume) }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract: "Queue failed or cancelled downloads again, with a fresh count of attempts.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: QueueStateCommand.idsHelp) var ids: [String]
        func run() async throws { try await change(global, ids: ids, event: .retry) }
    }

    /// Applies `event` to each download through the state machine; refuses what it does not allow.
    static func change(_ global: GlobalOptions, ids items: [String], event: DownloadEvent) async throws {
        let context = try QueueContext.open(global)
        do {
            let ids = try await IdArguments.downloads(items, in: context.store)
            // No ids: every download the event applies to, in one transaction.
            let changed: [DownloadRecord]
            if ids.isEmpty {
                changed = try await context.store.queue.applyToAll(event)
            } else {
                var before: [DownloadRecord] = []
                for id in ids { before.append(try await context.store.queue.apply(event, to: id).before) }
                changed = before
            }
            for row in changed {
                let id = row.id
                // A running download's partial is its runner's to delete (it holds it, and stops the
                // transfer first); any other goes now.
                if event == .cancel { _ = try? DownloadFolder(path: row.folderPath).removePartial(of: row.destination) }
                Console.out("\(Self.verb(event).padded(to: 9)) \(ItemKind.download.label(id)) \(row.title)")
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(error)
        }
    }

    static func verb(_ event: DownloadEvent) -> String {
        switch event {
        case .cancel: "cancelled"
        case .pause: "paused"
        case .resume: "resumed"
        case .retry: "queued"
        default: "changed"
        }
    }
}
