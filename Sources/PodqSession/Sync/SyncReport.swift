import FoundationEssentials
import Glibc
import PodqCore

extension SyncRun {
    /// What a sync did, for its line and its exit code.
    package struct Report: Sendable, Equatable {
        package var sentSubscriptions = 0
        package var sentActions = 0
        /// Changes the server refused in this sync, set aside with its reason.
        package var parked: [String] = []
        /// Changes of this sync the server did not take (it failed, or gave no receipt): they wait.
        package var leftPending = 0
        /// Every set-aside change after the sync (this one's and earlier ones').
        package var setAside = 0
        /// Set-aside changes `--full` sent again.
        package var retried = 0
        package var subscribed: [String] = []
        package var subscribeFailed: [String] = []
        package var unsubscribed: [String] = []
        package var plays = SyncStore.AppliedPlays()
        /// Episode actions of the answer podq did not apply.
        package var skipped = SkippedActions()
        /// Entries of every device's subscriptions that are not a feed.
        package var skippedFeeds = 0
        /// What failed without stopping the sync (a push the server did not take, a pull after it).
        package var failures: [String] = []

        /// True when the user should look: something failed, waits, or was set aside (exit 1).
        package var needsAttention: Bool { !failures.isEmpty || !subscribeFailed.isEmpty || leftPending > 0 || setAside > 0 }

        /// One line: what went each way, and what did not.
        package var line: String {
            var sent: [String] = []
            if sentSubscriptions > 0 { sent.append(Self.count(sentSubscriptions, "subscription change")) }
            if sentActions > 0 { sent.append(Self.count(sentActions, "episode action")) }
            var received: [String] = []
            if !subscribed.isEmpty { received.append("subscribed to " + subscribed.joined(separator: ", ")) }
            if !unsubscribed.isEmpty { received.append("unsubscribed from " + unsubscribed.joined(separator: ", ") + " (files kept)") }
            if plays.positions > 0 { received.append(Self.count(plays.positions, "position")) }
            if plays.played > 0 { received.append("\(plays.played) marked played") }
            if plays.unplayed > 0 { received.append("\(plays.unplayed) played again before the end: not played") }
            var line = "sync: sent " + (sent.isEmpty ? "nothing" : sent.joined(separator: " and "))
            line += "; received " + (received.isEmpty ? "nothing new" : received.joined(separator: "; "))
            if !skipped.isEmpty { line += "; " + skipped.line }
            if skippedFeeds > 0 { line += "; skipped \(Self.count(skippedFeeds, "listed subscription")) that name no feed" }
            if !subscribeFailed.isEmpty { line += "; could not subscribe to " + subscribeFailed.joined(separator: ", ") }
            if !parked.isEmpty { line += "; the server refused \(Self.count(parked.count, "change")), set aside: " + parked.joined(separator: "; ") }
            if leftPending > 0 { line += "; \(Self.count(leftPending, "change")) not taken, kept for the next sync" }
            if retried > 0 { line += "; \(Self.count(retried, "set-aside change")) sent again" }
            let earlier = setAside - parked.count
            if earlier > 0 { line += "; \(Self.count(earlier, "change")) set aside before" }
            if setAside > 0 { line += " (podq sync pending lists them; podq sync retry or podq sync drop)" }
            for failure in failures { line += "\n" + failure }
            return line
        }

        package static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
    }
}
