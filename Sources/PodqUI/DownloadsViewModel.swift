import Dispatch
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import Synchronization

/// Observes ``DownloadOperation``s and hands out value snapshots of their rows.
///
/// Observers only record the new figures and set ``needsDisplay``; nothing is drawn from a callback.
/// The render loop calls ``snapshot()`` at its frame rate. Given the stored queue
/// (``update(records:estimates:)``, the TUI), the rows are every stored download in queue order, with
/// the live figures of the ones running; otherwise (`podq download`) the tracked operations.
///
/// Where its methods run: ``track(_:title:)``'s observers on the thread that delivers an operation's
/// changes (a network thread, coalesced), ``update(records:estimates:)`` on the queue runner's step,
/// ``snapshot()`` on the render loop. None touches the database; all meet behind one `Mutex`.
public final class DownloadsViewModel: Sendable {
    /// A running download as its observers last reported it: the frame reads these, never the
    /// operation (the observers are the one path from an operation to the screen).
    private struct Tracked {
        let title: String
        var tokens: [ObservationToken] = []
        var progress: DownloadProgress
        var state: DownloadState
        var segments: SegmentMap?
        var connections: Int
    }

    private struct Stored {
        var record: DownloadRecord
        var title: String
        var error: String?
    }

    private struct Rows {
        var tracked: [Int: Tracked] = [:]
        var meters: [Int: SpeedMeter] = [:]
        var order: [Int] = []
        var stored: [Stored]?
        var estimates: [Int64: Int64] = [:]
        var episodeStates: [Int64: EpisodeState] = [:]
        var episodeStatesVersion = 0
        /// The download that speaks for each episode (``episodeSpeakers(_:)``' choice), by download id:
        /// its operation's state changes the episode's at once, in the same frame as its row.
        var speaksFor: [Int: Int64] = [:]
        var dirty = true
        /// The downloads the overall gauge covers: each seen unfinished since the gauge last emptied. A
        /// row that completes stays in it (so the gauge never goes back), until nothing is unfinished.
        var gauge: Set<Int> = []
    }

    private let rows = Mutex(Rows())
    private let clock: @Sendable () -> Double

    /// - Parameter clock: monotonic seconds; tests may inject their own.
    public init(clock: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }) {
        self.clock = clock
    }

    /// Starts showing `operation`, under `title` (cleaned of control characters here). An operation
    /// with the id of one already shown (a retry) takes its place in the list.
    public func track(_ operation: DownloadOperation, title: String? = nil) {
        let id = operation.id
        let row = Tracked(
            title: SafeText.clean(title ?? operation.request.title), progress: operation.progress, state: operation.state,
            segments: nil, connections: 1)
        let replaced = rows.withLock { rows in
            if rows.tracked[id] == nil && rows.stored == nil { rows.order.append(id) }
            rows.dirty = true
            return rows.tracked.updateValue(row, forKey: id)
        }
        replaced?.tokens.forEach { $0.cancel() }
        // Each figure through its observer, delivered at once (`.initial`), then coalesced to about 20
        // a second and flushed on a final state; a frame takes the last of each.
        let progress = operation.observe(\.progress, options: [.initial, .new]) { [weak self] _, change in
            guard let self, let value = change.newValue else { return }
            let now = self.clock()
            self.rows.withLock {
                // What came over the network: a resumed prefix appearing at once is no speed.
                $0.meters[id, default: SpeedMeter()].record(bytes: value.transferred, at: now)
                $0.tracked[id]?.progress = value
                $0.dirty = true
            }
        }
        let state = operation.observe(\.state, options: [.initial, .new]) { [weak self] _, change in
            guard let self, let value = change.newValue else { return }
            self.rows.withLock {
                $0.tracked[id]?.state = value
                $0.dirty = true
                if let episode = $0.speaksFor[id], $0.episodeStates[episode] != EpisodeState(StoredState(value)) {
                    $0.episodeStates[episode] = EpisodeState(StoredState(value))
                    $0.episodeStatesVersion += 1
                }
            }
        }
        let segments = operation.observe(\.segments, options: [.initial, .new]) { [weak self] _, change in
            guard let self else { return }
            self.rows.withLock {
                $0.tracked[id]?.segments = change.newValue ?? nil
                $0.dirty = true
            }
        }
        let connections = operation.observe(\.connectionCount, options: [.initial, .new]) { [weak self] _, change in
            guard let self, let value = change.newValue else { return }
            self.rows.withLock { $0.tracked[id]?.connections = value }
        }
        rows.withLock { $0.tracked[id]?.tokens = [progress, state, segments, connections] }
    }

    /// Stops showing the download `id`.
    public func untrack(id: Int) {
        let removed = rows.withLock { rows in
            rows.order.removeAll { $0 == id }
            rows.meters[id] = nil
            rows.dirty = true
            return rows.tracked.removeValue(forKey: id)
        }
        removed?.tokens.forEach { $0.cancel() }
    }

    /// Shows the stored queue: every download in `records`' order. `estimates` are the feeds' stated
    /// lengths by download id, shown while the server has not told the real length. Operations whose
    /// outcome the store now holds stop being tracked.
    public func update(records: [DownloadRecord], estimates: [Int64: Int64] = [:]) {
        let stored = records.map { r in
            var error: String?
            if let lastError = r.lastError, !lastError.isEmpty {
                switch r.state {
                case .failed: error = lastError
                case .queued where r.retryAt != nil: error = "retrying soon after: " + lastError
                case .paused: error = "paused after: " + lastError
                default: break
                }
            }
            // Titles were cleaned when stored; cleaning again costs little and guards old rows.
            return Stored(record: r, title: SafeText.clean(r.title), error: error)
        }
        let ended: [Tracked] = rows.withLock { rows in
            let previous = rows.stored
            rows.stored = stored
            rows.estimates = estimates
            if previous?.map(\.record) != records {
                rows.dirty = true
                let speakers = Self.episodeSpeakers(records)
                rows.speaksFor = Dictionary(uniqueKeysWithValues: speakers.map { (Int($0.value.id), $0.key) })
                // A running operation's state is newer than its stored row's.
                let states = speakers.mapValues { speaker in
                    EpisodeState(rows.tracked[Int(speaker.id)].map { StoredState($0.state) } ?? speaker.state)
                }
                if states != rows.episodeStates {
                    rows.episodeStates = states
                    rows.episodeStatesVersion += 1
                }
            }
            var ended: [Tracked] = []
            for r in records {
                let id = Int(r.id)
                guard let t = rows.tracked[id], r.state != .downloading else { continue }
                if t.state != .downloading && t.state != .queued {
                    ended.append(t)
                    rows.tracked[id] = nil
                }
            }
            let known = Set(records.map { Int($0.id) })
            for (id, t) in rows.tracked where !known.contains(id) {
                ended.append(t)
                rows.tracked[id] = nil
            }
            return ended
        }
        ended.forEach { $0.tokens.forEach { $0.cancel() } }
    }

    /// The state of each episode's download, by episode id, as the stored queue says (the Episodes
    /// view's state column): made when the rows change, not on each frame.
    public var episodeStates: [Int64: EpisodeState] { rows.withLock { $0.episodeStates } }

    /// Changes each time ``episodeStates`` does.
    public var episodeStatesVersion: Int { rows.withLock { $0.episodeStatesVersion } }

    /// An episode queued again has several rows: the newest one that was not cancelled speaks for it.
    private static func episodeSpeakers(_ records: [DownloadRecord]) -> [Int64: (id: Int64, state: StoredState)] {
        var states: [Int64: (id: Int64, state: StoredState)] = [:]
        for r in records {
            let id = r.id
            guard let episode = r.episodeId else { continue }
            if let known = states[episode], known.state != .cancelled, r.state == .cancelled || known.id > id { continue }
            states[episode] = (id, r.state)
        }
        return states
    }

    /// True when something changed since the last ``snapshot()``.
    public var needsDisplay: Bool { rows.withLock { $0.dirty } }

    /// The rows now, in order; clears ``needsDisplay``.
    public func snapshot() -> [DownloadRow] {
        let now = clock()
        return rows.withLock { rows in
            rows.dirty = false
            var made: [DownloadRow]
            if let stored = rows.stored {
                made = stored.map { s in
                    let id = Int(s.record.id)
                    if let t = rows.tracked[id] { return Self.liveRow(t, id: id, now: now, stored: s, in: rows) }
                    return Self.storedRow(s, id: id, in: rows)
                }
            } else {
                made = rows.order.compactMap { id in rows.tracked[id].map { Self.liveRow($0, id: id, now: now, stored: nil, in: rows) } }
            }
            Self.markGauge(&made, &rows.gauge)
            return made
        }
    }

    /// Marks the rows the overall gauge counts: the unfinished ones, and those that completed while
    /// the gauge covered them; when none is unfinished, the gauge starts again empty.
    static func markGauge(_ made: inout [DownloadRow], _ gauge: inout Set<Int>) {
        var unfinished = false
        for i in made.indices {
            switch made[i].state {
            case .downloading, .queued, .paused:
                unfinished = true
                gauge.insert(made[i].id)
                made[i].inGauge = true
            case .completed:
                made[i].inGauge = gauge.contains(made[i].id)
            default:
                gauge.remove(made[i].id)
            }
        }
        if !unfinished {
            gauge.removeAll()
            for i in made.indices { made[i].inGauge = false }
        }
    }

    private static func liveRow(_ t: Tracked, id: Int, now: Double, stored: Stored?, in rows: Rows) -> DownloadRow {
        let progress = t.progress
        let state = t.state
        let speed = state == .downloading ? rows.meters[id]?.rate(at: now) ?? 0 : 0
        var eta: Double?
        if let expected = progress.expectedLength, speed > 0, state == .downloading {
            eta = Double(max(0, expected - progress.downloadedLength)) / speed
        }
        var error: String?
        if case .failed(let reason) = state { error = reason }
        var row = DownloadRow(
            id: id, title: stored?.title ?? t.title, state: state, fraction: progress.fractionCompleted,
            received: progress.downloadedLength, expected: progress.expectedLength,
            speed: speed, eta: eta, error: error ?? stored?.error,
            estimate: progress.expectedLength == nil ? rows.estimates[Int64(id)] : nil)
        if state == .downloading, let segments = t.segments {
            row.spans = segments.spans
            row.connections = t.connections
        }
        return row
    }

    private static func storedRow(_ s: Stored, id: Int, in rows: Rows) -> DownloadRow {
        let r = s.record
        let state = r.state.state(reason: s.error ?? "")
        let fraction: Double? =
            state == .completed
            ? 1
            : r.bytesExpected.map { $0 > 0 ? min(1, Double(r.bytesReceived) / Double($0)) : 0 }
        return DownloadRow(
            id: id, title: s.title, state: state, fraction: fraction, received: r.bytesReceived,
            expected: r.bytesExpected, speed: 0, eta: nil, error: s.error,
            estimate: r.bytesExpected == nil ? rows.estimates[Int64(id)] : nil)
    }
}
