import Dispatch
import Foundation
import PodqCore
import PodqUI
import Synchronization

/// What `podq download` prints.
///
/// Not on a terminal: one plain line per event (`started`, `resumed`, `completed`, `failed`,
/// `retrying`, `stopped`, `cancelled`), never an escape sequence. On a terminal: the same lines, with
/// live progress lines of the running downloads redrawn below them ten times a second.
final class DownloadReporter: Sendable {
    private struct Output {
        var started: Set<Int64> = []
        var pending: [String] = []
        var liveLineCount = 0
        var timer: DispatchSourceTimer?
        var tick = 0
    }

    private let live: Bool
    private let model = DownloadsViewModel()
    /// Held while writing, so lines from the runner and the redraw never interleave.
    private let output = Mutex(Output())

    init(live: Bool) {
        self.live = live
    }

    /// Starts the live redraw (on a terminal).
    func begin() {
        guard live else { return }
        output.withLock { output in
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now(), repeating: .milliseconds(100))
            timer.setEventHandler { [weak self] in self?.redraw() }
            timer.resume()
            output.timer = timer
        }
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
        case .completed(let id, let title, let path, let bytes, let unverified):
            markStarted(id, title)
            emit("completed #\(id) \(title) -> \(path) (\(Format.bytes(bytes)))")
            if let unverified { emit("UNVERIFIED #\(id) \(title): \(unverified) (the file is kept)") }
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
        case .note(let id, let title, let text):
            emit("note      #\(id) \(title): \(text)")
        }
    }

    /// Prints a line of podq's own among the events (a wait for hooks).
    func note(_ line: String) { emit(line) }

    /// Prints the summary and erases the live lines.
    func end(_ summary: String) {
        output.withLock {
            $0.timer?.cancel()
            $0.timer = nil
        }
        emit(summary)
        redraw(final: true)
    }

    private func markStarted(_ id: Int64, _ title: String) {
        let first = output.withLock { $0.started.insert(id).inserted }
        if first { emit("started   #\(id) \(title)") }
    }

    private func emit(_ line: String) {
        let text = SafeText.terminal(line) + "\n"
        if live {
            output.withLock { $0.pending.append(text) }
        } else {
            output.withLock { _ in Console.raw(text) }
        }
    }

    /// Redraws: erases the live lines, prints pending events, draws the running downloads again.
    private func redraw(final: Bool = false) {
        guard live else { return }
        let width = Self.terminalWidth()
        let rows = final ? [] : model.snapshot().filter { $0.state == .downloading }
        output.withLock { output in
            output.tick += 1
            var out = ""
            if output.liveLineCount > 0 { out += "\u{1B}[\(output.liveLineCount)A\r\u{1B}[J" }
            out += output.pending.joined()
            output.pending = []
            let lines = DownloadTableRenderer(tick: output.tick).lines(rows, width: max(20, width - 1))
            for line in lines { out += line + "\n" }
            output.liveLineCount = lines.count
            Console.raw(out)
        }
    }

    static func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
