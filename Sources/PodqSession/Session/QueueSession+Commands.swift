import Foundation
import PodqCore

/// What a person (or a sync) asks of a running queue, each answered with the line to say: the one
/// place these changes are made and worded, whichever front end asked (issue 31). Rows change through
/// the runner only (the one writer of rows in this process); a front end chooses when to run a
/// command (the TUI: in the order of the keys, or beside them for a bulk one) and where its line goes.
extension QueueSession {
    package enum Command: Sendable {
        /// Pause, resume, cancel or retry one download.
        case perform(DownloadEvent, id: Int64)
        /// The same for many, in one write.
        case performMany(DownloadEvent, ids: [Int64])
        /// A download first in the queue, queued again when it was paused, failed or cancelled.
        case startNext(id: Int64)
        /// A download one place up (-1) or down (+1).
        case move(id: Int64, by: Int)
        /// Pause (true) or resume (false) everything.
        case pauseAll(Bool)
        /// Remove downloads (their completed files too when `deletingFiles`).
        case remove(ids: [Int64], deletingFiles: Bool)
        /// Queue episodes.
        case queueEpisodes([Int64])
        /// Queue from podcasts: each one's `latest` newest, or every episode never queued.
        case queueFromPodcasts([Int64], latest: Int?)
        /// Mark episodes played or not.
        case setPlayed([Int64], Bool)
        /// Unsubscribe (downloaded files are kept).
        case unsubscribe(podcast: Int64)
        /// Downloads at once, now and in the config.
        case setLimit(Int)
        /// Downloads at once from one host, now and in the config.
        case setPerHost(Int)
        /// Sync with the account's server (``SyncRun``) on the session's HTTP client: push, then pull.
        case sync(full: Bool)
    }

    /// Carries out `command` and returns the line to say (nil: nothing to say).
    /// - Throws: ``CommandError`` with the line to say when it could not be done (in part or whole).
    package func perform(_ command: Command) async throws -> String? {
        do {
            return try await carryOut(command)
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(error)
        }
    }

    private func carryOut(_ command: Command) async throws -> String? {
        switch command {
        case .perform(let event, let id):
            try await runner.perform(event, id: id)
            return "\(event.verb) \(ItemKind.download.label(id))"
                + (event == .cancel ? " (its partial file is deleted)" : event == .pause ? " (its partial file is kept)" : "")
        case .performMany(let event, let ids):
            let refused = try await runner.perform(event, ids: ids)
            let line =
                "\(event.verb) \(Self.count(ids.count - refused.count, "download"))"
                + (event == .cancel ? " (partial files deleted)" : event == .pause ? " (partial files kept)" : "")
            guard refused.isEmpty else {
                let failures =
                    refused.prefix(5).map { "\(ItemKind.download.label($0.id)): \(CommandError($0.error).message)" }
                    + (refused.count > 5 ? ["and \(refused.count - 5) more"] : [])
                throw CommandError(line + "; " + failures.joined(separator: " · "), code: ExitCodes.failure)
            }
            return line
        case .startNext(let id):
            try await runner.startNext(id: id)
            return "\(ItemKind.download.label(id)) starts next"
        case .move(let id, let offset):
            return try await runner.move(id: id, by: offset) ? nil : "\(ItemKind.download.label(id)) is already \(offset < 0 ? "first" : "last")"
        case .pauseAll(let pause):
            let count = try await runner.setAllPaused(pause)
            return pause ? "paused \(Self.count(count, "download")); P resumes them" : "resumed \(Self.count(count, "download"))"
        case .remove(let ids, let deletingFiles):
            if ids.count == 1, let id = ids.first {
                try await runner.remove(id: id, deletingFile: deletingFiles)
                return "removed \(ItemKind.download.label(id))" + (deletingFiles ? " and deleted its file" : "")
            }
            let removed = try await runner.remove(ids: ids, deletingFiles: deletingFiles)
            return "removed \(Self.count(removed, "row"))" + (deletingFiles ? " and deleted their completed files" : "; files kept")
        case .queueEpisodes(let ids):
            let (new, skipped) = try QueuePlanning(context: context).plan(forEpisodes: ids)
            let made = try await runner.add(new)
            if ids.count == 1 {
                guard let row = made.first else {
                    guard let existing = skipped.first else { return "that episode is already in the queue (Downloads view: 1)" }
                    return existing.state == .completed
                        ? "already downloaded as \(ItemKind.download.label(existing.id ?? 0)): \(existing.destination)"
                        : "already in the queue as \(ItemKind.download.label(existing.id ?? 0)) (\(existing.state.rawValue))"
                }
                return "queued \(row.title) as \(ItemKind.download.label(row.id ?? 0))"
            }
            return "queued \(Self.count(made.count, "episode"))" + (skipped.isEmpty ? "" : "; \(skipped.count) already in the queue")
        case .queueFromPodcasts(let ids, let latest):
            var episodeIds: [Int64] = []
            for id in ids {
                // Newest first: the latest `latest`, or every one never queued.
                episodeIds += try context.store.episodeIds(podcastId: id, latest: latest, onlyNeverQueued: latest == nil)
            }
            guard !episodeIds.isEmpty else { return "nothing new to queue" }
            let (new, skipped) = try QueuePlanning(context: context).plan(forEpisodes: episodeIds)
            let made = try await runner.add(new)
            return "queued \(Self.count(made.count, "episode"))" + (skipped.isEmpty ? "" : "; \(skipped.count) already in the queue")
        case .setPlayed(let ids, let played):
            try context.store.setPlayed(episodeIds: ids, played: played)
            return "marked \(ids.count == 1 ? ItemKind.episode.label(ids[0]) : "\(ids.count) episodes") \(played ? "played" : "not played")"
        case .sync(let full):
            return try await SyncRun(context: context, transport: transport).run(full: full).line.replacingOccurrences(of: "\n", with: "; ")
        case .unsubscribe(let id):
            try context.store.removePodcast(id: id)
            return "unsubscribed; downloaded files are kept"
        case .setLimit(let value):
            await runner.setMaxConcurrent(value)
            return try saved(value, as: "simultaneous-downloads", saying: "\(Counted.of(value, "download")) at once")
        case .setPerHost(let value):
            await runner.setPerHost(value)
            return try saved(value, as: "per-host-downloads", saying: "\(Self.count(value, "download")) at once from one host")
        }
    }

    /// Keeps `value` in the config file for the next start; the line says where, or why not.
    private func saved(_ value: Int, as key: String, saying line: String) throws -> String {
        let configFile = context.paths.configFile
        do {
            try ConfigFile(path: configFile).set(key, to: String(value))
            return "\(line) (saved in \(configFile))"
        } catch {
            throw CommandError("\(line); not saved: \(error.localizedDescription)", code: ExitCodes.config)
        }
    }

    /// `n` things, in words: "1 row", "3 rows".
    package static func count(_ n: Int, _ noun: String) -> String { Counted.of(n, noun) }
}
