import Dispatch
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession
import PodqUI
import Synchronization

/// What `podq download` prints.
///
/// Not on a terminal: one plain line per event (`started`, `resumed`, `completed`, `failed`,
/// `retrying`, `stopped`, `cancelled`), never an escape sequence. On a terminal: the same lines, with
/// live progress lines of the running downloads redrawn below them ten times a second. With `--json`:
/// one JSON object per line for each event, a `progress` object for each running download every
/// second, and a `summary` at the end (docs/COMMANDS.md).
final class DownloadReporter: Sendable {
    /// How events are written.
    enum Mode: Sendable {
        case lines, live, json
    }
    private struct Output {
        var started: Set<Int64> = []
        var pending: [String] = []
        var liveLineCount = 0
        var timer: DispatchSourceTimer?
        var tick = 0
    }

    private let mode: Mode
    private var live: Bool { mode == .live }
    private let model = DownloadsViewModel()
    /// Held while writing, so lines from the runner and the redraw never interleave.
    private let output = Mutex(Output())

    init(mode: Mode) {
        self.mode = mode
    }

    /// Starts the live redraw (on a terminal), or the progress objects (`--json`).
    func begin() {
        guard mode != .lines else { return }
        let json = mode == .json
        output.withLock { output in
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now(), repeating: .milliseconds(json ? 1000 : 100))
            timer.setEventHandler { [weak self] in if json { self?.progress() } else { self?.redraw() } }
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
        if mode == .json { return write(Self.json(event)) }
        switch event {
        case .started(let id, let title):
            markStarted(id, title)
        case .resumed(let id, let title, let offset):
            markStarted(id, title)
            emit("resumed   \(ItemKind.download.label(id)) \(title) at \(offset) bytes")
        case .completed(let id, let title, let path, let bytes, let unverified):
            markStarted(id, title)
            emit("completed \(ItemKind.download.label(id)) \(title) -> \(path) (\(Format.bytes(bytes)))")
            if let unverified { emit("UNVERIFIED \(ItemKind.download.label(id)) \(title): \(unverified) (the file is kept)") }
        case .failed(let id, let title, let reason):
            emit("failed    \(ItemKind.download.label(id)) \(title): \(reason)")
        case .retrying(let id, let title, let delay, let reason):
            emit("retrying  \(ItemKind.download.label(id)) \(title) in \(Format.eta(delay)): \(reason)")
        case .stopped(let id, let title, let bytes):
            emit("stopped   \(ItemKind.download.label(id)) \(title) at \(bytes) bytes (partial file kept)")
        case .cancelled(let id, let title):
            emit("cancelled \(ItemKind.download.label(id)) \(title)")
        case .diskFull(let message):
            emit("paused: \(message)")
        case .note(let id, let title, let text):
            emit("note      \(ItemKind.download.label(id)) \(title): \(text)")
        }
    }

    /// Prints a line of podq's own among the events (a wait for hooks).
    func note(_ line: String) {
        if mode == .json { return write(.object(["event": .string("note"), "text": .string(SafeText.clean(line))])) }
        emit(line)
    }

    /// Prints the summary and erases the live lines; with `--json`, `summary` as an object.
    func end(_ line: String, summary: QueueRunner.Summary? = nil, seconds: Double = 0) {
        output.withLock {
            $0.timer?.cancel()
            $0.timer = nil
        }
        if mode == .json {
            var fields: [String: JSONValue] = ["event": .string(summary == nil ? "stopped" : "summary"), "text": .string(SafeText.clean(line))]
            if let summary {
                fields["completed"] = .int(Int64(summary.completed))
                fields["failed"] = .int(Int64(summary.failed))
                fields["unverified"] = .int(Int64(summary.unverified))
                fields["interrupted"] = .bool(summary.interrupted)
                fields["diskFull"] = .bool(summary.diskFull)
                fields["milliseconds"] = .int(Int64.clamped(seconds * 1000))
            }
            return write(.object(fields))
        }
        emit(line)
        redraw(final: true)
    }

    /// One event as its JSON object: `event`, `id`, `title`, and what the event tells.
    static func json(_ event: QueueRunner.Event) -> JSONValue {
        func object(_ name: String, _ id: Int64, _ title: String, _ more: [String: JSONValue] = [:]) -> JSONValue {
            .object(["event": .string(name), "id": .int(id), "title": .string(SafeText.clean(title))].merging(more) { a, _ in a })
        }
        switch event {
        case .started(let id, let title): return object("started", id, title)
        case .resumed(let id, let title, let offset): return object("resumed", id, title, ["offset": .int(offset)])
        case .completed(let id, let title, let path, let bytes, let unverified):
            return object("completed", id, title, ["path": .string(path), "bytes": .int(bytes), "unverified": .optional(unverified)])
        case .failed(let id, let title, let reason): return object("failed", id, title, ["reason": .string(SafeText.clean(reason))])
        case .retrying(let id, let title, let delay, let reason):
            return object("retrying", id, title, ["inSeconds": .int(Int64.clamped(delay, .up)), "reason": .string(SafeText.clean(reason))])
        case .stopped(let id, let title, let bytes): return object("stopped", id, title, ["bytes": .int(bytes)])
        case .cancelled(let id, let title): return object("cancelled", id, title)
        case .diskFull(let message): return .object(["event": .string("diskFull"), "text": .string(SafeText.clean(message))])
        case .note(let id, let title, let text): return object("note", id, title, ["text": .string(SafeText.clean(text))])
        }
    }

    /// A `progress` object for each running download (`--json`, every second).
    private func progress() {
        for row in model.snapshot() where row.state == .downloading {
            write(
                .object([
                    "event": .string("progress"), "id": .int(Int64(row.id)), "title": .string(row.title), "received": .int(row.received),
                    "expected": .optional(row.expected), "bytesPerSecond": .int(Int64.clamped(row.speed)),
                ]))
        }
    }

    private func write(_ value: JSONValue) {
        let text = value.text + "\n"
        output.withLock { _ in Console.raw(text) }
    }

    private func markStarted(_ id: Int64, _ title: String) {
        guard mode != .json else { return }
        let first = output.withLock { $0.started.insert(id).inserted }
        if first { emit("started   \(ItemKind.download.label(id)) \(title)") }
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
