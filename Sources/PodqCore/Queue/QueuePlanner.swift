import FoundationEssentials
import Glibc

/// Decides what the queue runner starts, stops and waits for: a pure function of the stored rows and
/// the downloads running, tested case by case like the ``DownloadState`` table.
///
/// Rules, in queue order: a `queued` row whose retry time has come starts while fewer than `limit`
/// run and fewer than `perHost` run from its host (a row held back by its host lets the rows after it
/// start); nothing starts while the runner holds (stopping, or paused by a full disk). A running
/// download whose row was cancelled, paused or removed (by a key or another process) stops; beyond
/// `limit` (lowered), the last ones in queue order are put back in line.
public enum QueuePlanner {
    /// What the plan looks at.
    public struct Input: Sendable {
        /// Every stored row, in queue order.
        public var rows: [DownloadRecord]
        /// The downloads running now, by id, with the host each counts against.
        public var running: [Int64: String]
        public var limit: Int
        public var perHost: Int
        /// Unix time.
        public var now: Double
        /// True while nothing may start (stopping, or paused by a full disk).
        public var holding: Bool

        public init(rows: [DownloadRecord], running: [Int64: String], limit: Int, perHost: Int, now: Double, holding: Bool) {
            self.rows = rows
            self.running = running
            self.limit = limit
            self.perHost = perHost
            self.now = now
            self.holding = holding
        }
    }

    /// What to stop a running download with.
    public enum Stop: Sendable, Equatable {
        /// Its row was cancelled or removed: stop it and delete its partial file.
        case cancel
        /// Its row was paused, or it is beyond the limit: stop it and keep its partial file.
        case pause
    }

    /// What to do now.
    public struct Plan: Sendable, Equatable {
        /// Rows to start, in queue order.
        public var start: [Int64] = []
        /// Running downloads to stop, in queue order.
        public var stop: [Int64: Stop] = [:]
        /// Queued rows that could start but wait because their host has `perHost` running.
        public var waitingForHost = 0
        /// Queued rows, due or not: while there are some, a headless run goes on.
        public var queued = 0
        /// Seconds until the earliest queued row that waits for its retry time is due; nil when none waits.
        public var nextDue: Double?

        public init() {}
    }

    /// The plan for `input`.
    public static func plan(_ input: Input) -> Plan {
        var plan = Plan()
        var seen: Set<Int64> = []
        var perHost: [String: Int] = [:]
        for host in input.running.values { perHost[host, default: 0] += 1 }
        var free = input.limit - input.running.count
        let cap = max(1, input.perHost)
        // Running rows beyond the limit, from the last in queue order.
        var keep = input.limit
        for row in input.rows {
            let id = row.id
            seen.insert(id)
            if input.running[id] != nil {
                switch row.state {
                case .cancelled: plan.stop[id] = .cancel
                case .paused: plan.stop[id] = .pause
                default:
                    if keep > 0 { keep -= 1 } else { plan.stop[id] = .pause }
                }
                continue
            }
            guard row.state == .queued else { continue }
            plan.queued += 1
            let due = row.retryAt ?? 0
            if due > input.now {
                plan.nextDue = min(plan.nextDue ?? .infinity, due - input.now)
                continue
            }
            guard !input.holding, free > 0 else { continue }
            let host = self.host(of: row.url)
            if perHost[host, default: 0] >= cap {
                plan.waitingForHost += 1
                continue
            }
            plan.start.append(id)
            perHost[host, default: 0] += 1
            free -= 1
        }
        for id in input.running.keys where !seen.contains(id) {
            plan.stop[id] = .cancel  // its row was removed
        }
        return plan
    }

    /// The host a download counts against for `per-host-downloads` (lowercased; "" when none).
    public static func host(of url: String) -> String {
        URL(string: url)?.host?.lowercased() ?? ""
    }
}
