import Dispatch
import Foundation
import PodqCore
import PodqUI

/// What `podq download` prints.
///
/// Not on a terminal: one plain line per event (`started`, `resumed`, `completed`, `failed`,
/// `retrying`, `stopped`, `cancelled`), never an escape sequence. On a terminal: the same lines, with
/// live progress lines of the running downloads redrawn below them ten times a second.
final class DownloadReporter: @unchecked Sendable {
    private let live: Bool
    private let model = DownloadsViewModel()
    private let lock = NSLock()
    private var started: Set<Int64> = []
    private var pending: [String] = []
    private var liveLineCount = 0
    private var timer: DispatchSourceTimer?
    private var tick = 0

    init(live: Bool) {
        self.live = live
    }

    /// Starts the live redraw (on a terminal).
    func begin() {
        guard live else { return }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now(), repeating: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.redraw() }
        timer.resume()
        self.timer = timer
    }

    /// Shows a new operation's live line.
    func track(_ operation: DownloadOperation) {
        model.track(operation)
    }

    /// Prints the line for an event of the runner.
    func report(_ event: QueueRunner.Event) {
        switch event {
        case .started(let id, let title):
            markStarted(id, title)
        case .resumed(let id, let title, let offset):
            markStarted(id, title)
            emit("resumed   #\(id) \(title) at \(offset) bytes")
        case .completed(let id, let title, let path, let bytes):
            markStarted(id, title)
            emit("completed #\(id) \(title) -> \(path) (\(Format.bytes(bytes)))")
        case .failed(let id, let title, let reason):
            emit("failed    #\(id) \(title): \(reason)")
        case .retrying(let id, let title, let delay, let reason):
            emit("retrying  #\(id) \(title) in \(Format.eta(delay)): \(reason)")
        case .stopped(let id, let title, let bytes):
            emit("stopped   #\(id) \(title) at \(bytes) bytes (partial file kept)")
        case .cancelled(let id, let title):
            emit("cancelled #\(id) \(title)")
        case .diskFull(let message):
            emit("paused: \(message)")
        }
    }

    /// Prints the summary and erases the live lines.
    func end(_ summary: String) {
        timer?.cancel()
        timer = nil
        emit(summary)
        redraw(final: true)
    }

    private func markStarted(_ id: Int64, _ title: String) {
        let first = lock.withLock { started.insert(id).inserted }
        if first { emit("started   #\(id) \(title)") }
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
        let rows = final ? [] : model.snapshot().filter { $0.state == .downloading }
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
