import Dispatch
import Foundation
import PodqCore
import PodqUI

/// What `podq download` prints.
///
/// Not on a terminal: one plain line per event (`started`, `resumed`, `completed`, `failed`,
/// `paused`), never an escape sequence. On a terminal: the same event lines, with live progress lines
/// of the running downloads redrawn below them ten times a second.
final class DownloadReporter: @unchecked Sendable {
    private let operations: [DownloadOperation]
    private let live: Bool
    private let model = DownloadsViewModel()
    private let lock = NSLock()
    private var tokens: [ObservationToken] = []
    private var started: Set<Int> = []
    private var pending: [String] = []
    private var liveLineCount = 0
    private var timer: DispatchSourceTimer?
    private var tick = 0
    private let startTime = DispatchTime.now()

    init(operations: [DownloadOperation], live: Bool) {
        self.operations = operations
        self.live = live
    }

    func begin() {
        for op in operations {
            model.track(op)
            tokens.append(op.observe(\.state, options: [.new]) { [weak self] op, change in
                guard let self, let state = change.newValue else { return }
                self.stateChanged(op, state)
            })
            tokens.append(op.observe(\.resumedAt, options: [.new]) { [weak self] op, change in
                guard let self, let offset = change.newValue ?? nil else { return }
                self.emit("resumed   #\(op.id) \(op.request.title) at \(offset) bytes")
            })
        }
        if live {
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now(), repeating: .milliseconds(100))
            timer.setEventHandler { [weak self] in self?.redraw() }
            timer.resume()
            self.timer = timer
        }
    }

    func end(interrupted: Bool) {
        timer?.cancel()
        timer = nil
        // The final states are delivered before the queue goes idle; report any still unseen.
        for op in operations { stateChanged(op, op.state) }
        tokens.forEach { $0.cancel() }
        let rows = operations.map(\.state)
        let done = rows.filter { $0 == .completed }.count
        let failed = rows.filter { if case .failed = $0 { true } else { false } }.count
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - startTime.uptimeNanoseconds) / 1e9
        var summary = "\(done) completed, \(failed) failed"
        let paused = rows.filter { $0 == .paused || $0 == .queued }.count
        if paused > 0 { summary += ", \(paused) stopped with partial files kept" }
        summary += String(format: " in %.1f s", seconds)
        if interrupted { summary = "interrupted: " + summary + "; run the same command again to resume" }
        emit(summary)
        redraw(final: true)
    }

    private func stateChanged(_ op: DownloadOperation, _ state: DownloadState) {
        let title = op.request.title
        var lines: [String] = []
        lock.withLock {
            if state != .queued, !started.contains(op.id) {
                started.insert(op.id)
                lines.append("started   #\(op.id) \(title)")
            }
        }
        switch state {
        case .completed:
            if markReported(op.id, "completed") {
                lines.append("completed #\(op.id) \(title) -> \(op.request.destination) (\(Format.bytes(op.downloadedLength)))")
            }
        case .failed(let reason):
            if markReported(op.id, "failed") { lines.append("failed    #\(op.id) \(title): \(reason)") }
        case .paused:
            if markReported(op.id, "paused") {
                lines.append("paused    #\(op.id) \(title) at \(op.downloadedLength) bytes (partial file kept)")
            }
        case .cancelled:
            if markReported(op.id, "cancelled") { lines.append("cancelled #\(op.id) \(title)") }
        case .queued, .downloading:
            break
        }
        lines.forEach(emit)
    }

    private var reported: [Int: String] = [:]

    private func markReported(_ id: Int, _ what: String) -> Bool {
        lock.withLock {
            if reported[id] == what { return false }
            reported[id] = what
            return true
        }
    }

    private func emit(_ line: String) {
        // Titles and reasons were cleaned of control characters where they were made.
        let text = line + "\n"
        if live {
            lock.withLock { pending.append(text) }
        } else {
            lock.withLock { FileHandle.standardOutput.write(Data(text.utf8)) }
        }
    }

    /// Redraws: erases the live lines, prints pending events, draws the running downloads again.
    private func redraw(final: Bool = false) {
        guard live else { return }
        let width = Self.terminalWidth()
        let rows = model.snapshot().filter { !final && $0.state == .downloading }
        lock.withLock {
            tick += 1
            var out = ""
            if liveLineCount > 0 { out += "\u{1B}[\(liveLineCount)A\r\u{1B}[J" }
            out += pending.joined()
            pending = []
            let lines = DownloadTableRenderer(tick: tick).lines(rows, width: max(20, width - 1))
            for line in lines { out += line + "\n" }
            liveLineCount = lines.count
            FileHandle.standardOutput.write(Data(out.utf8))
        }
    }

    static func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
