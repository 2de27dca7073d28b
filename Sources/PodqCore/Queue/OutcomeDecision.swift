import FoundationEssentials
import Glibc
import PodqHTTP

/// What a row becomes when its operation stops: a pure function, so every case is tested without I/O.
///
/// - completed → `completed`, with its bytes, final path and validators;
/// - paused → `paused` when the row says so (a person's pause) or the queue holds for a full disk;
///   otherwise (quit, a signal, a lowered limit) → `queued`, to resume at the next start;
/// - cancelled → `cancelled`;
/// - failed: a full disk → `paused`, and the queue holds; a temporary error with attempts left, and
///   not stopping → `queued` with a retry time (backoff, or the server's `Retry-After`); otherwise
///   → `failed` with the reason.
///
/// A row that another process moved out of `downloading` meanwhile keeps that state: the person's
/// decision stands.
public enum OutcomeDecision {
    /// How the runner stands when the operation stops.
    public enum Hold: Sendable, Equatable {
        case none
        /// Quitting: stopped downloads stay queued, failures are not retried now.
        case stopping
        /// Paused for a full disk.
        case diskFull
    }

    /// What the decision looks at.
    public struct Input: Sendable {
        /// The row now, as stored.
        public var row: DownloadRecord
        /// The operation's final state.
        public var ended: DownloadState
        public var error: DownloadError?
        public var progress: DownloadProgress
        public var validators: ResourceValidators?
        public var finalPath: String
        public var maxAttempts: Int
        public var hold: Hold
        /// Unix time.
        public var now: Double

        public init(
            row: DownloadRecord, ended: DownloadState, error: DownloadError?, progress: DownloadProgress,
            validators: ResourceValidators?, finalPath: String, maxAttempts: Int, hold: Hold, now: Double
        ) {
            self.row = row
            self.ended = ended
            self.error = error
            self.progress = progress
            self.validators = validators
            self.finalPath = finalPath
            self.maxAttempts = maxAttempts
            self.hold = hold
            self.now = now
        }
    }

    /// What happened, for the line of output and the summary.
    public enum Outcome: Sendable, Equatable {
        case completed
        case stopped
        case cancelled
        case retrying(in: Double, reason: String)
        case failed(reason: String)
        /// The disk is full: the queue holds, every download pauses.
        case diskFull(reason: String)
    }

    /// The row to save (nil: leave it as stored) and the outcome.
    public struct Decision: Sendable, Equatable {
        public var row: DownloadRecord?
        public var outcome: Outcome
    }

    /// Decides. `delay` gives the wait before retry number `attempt` (backoff with jitter, or
    /// `retryAfter` when the server sent one).
    public static func decide(_ input: Input, delay: (_ attempt: Int, _ retryAfter: Double?) -> Double) -> Decision {
        var row = input.row
        let bytes = input.progress.downloadedLength
        if let validators = input.validators { row.validators = validators }
        // Another process (or a key) moved the row on while it ran: that decision stands.
        guard input.row.state == .downloading else {
            switch input.ended {
            case .completed:
                break  // the file is in place: completed wins (cancel is ignored once committing)
            case .cancelled:
                return Decision(row: nil, outcome: .cancelled)
            default:
                if input.row.state == .paused {
                    row.bytesReceived = bytes
                    return Decision(row: row, outcome: .stopped)
                }
                return Decision(row: nil, outcome: input.row.state == .cancelled ? .cancelled : .stopped)
            }
            return completed(row, input)
        }
        switch input.ended {
        case .completed:
            return completed(row, input)
        case .cancelled:
            row.state = .cancelled
            row.bytesReceived = 0
            row.segments = nil
            return Decision(row: row, outcome: .cancelled)
        case .paused, .queued, .downloading:
            row.state = input.hold == .diskFull ? .paused : .queued
            row.bytesReceived = bytes
            return Decision(row: row, outcome: .stopped)
        case .failed(let reason):
            row.bytesReceived = bytes
            if case .diskFull = input.error {
                row.state = .paused
                row.lastError = reason
                return Decision(row: row, outcome: .diskFull(reason: reason))
            }
            if let error = input.error, error.isRetryable, row.attempts < min(input.maxAttempts, error.attemptCap ?? .max), input.hold == .none {
                let wait = delay(row.attempts, error.retryAfter)
                row.state = .queued
                row.retryAt = input.now + wait
                row.lastError = reason
                return Decision(row: row, outcome: .retrying(in: wait, reason: reason))
            }
            let message = row.attempts > 1 ? "\(reason) (after \(row.attempts) attempts)" : reason
            row.state = .failed
            row.lastError = message
            return Decision(row: row, outcome: .failed(reason: message))
        }
    }

    private static func completed(_ row: DownloadRecord, _ input: Input) -> Decision {
        var row = row
        row.state = .completed
        row.segments = nil
        row.bytesReceived = input.progress.downloadedLength
        row.bytesExpected = input.progress.expectedLength ?? input.progress.downloadedLength
        row.lastError = nil
        row.retryAt = nil
        row.completedAt = input.now
        row.destination = input.finalPath
        return Decision(row: row, outcome: .completed)
    }
}
