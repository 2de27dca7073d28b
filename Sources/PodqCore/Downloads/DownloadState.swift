/// The lifecycle of one download.
///
/// The transition function ``applying(_:)`` is pure: it says what state an event leads to, or `nil`
/// when the event is not valid in the current state (a late event from a stopped task, say), so callers
/// can ignore it instead of corrupting the state.
public enum DownloadState: Sendable, Hashable {
    /// Waiting for a free slot. Valid transitions: `start` → downloading, `pause` → paused,
    /// `cancel` → cancelled, `fail` → failed.
    case queued
    /// Bytes are being requested or written. Valid transitions: `pause` → paused, `cancel` → cancelled,
    /// `fail` → failed, `finish` → completed.
    case downloading
    /// Stopped by the user with the partial file kept. Valid transitions: `resume` → queued,
    /// `cancel` → cancelled.
    case paused
    /// Stopped by the user; the partial file is deleted. Valid transitions: `retry` → queued.
    case cancelled
    /// Stopped by an error, with a reason a person understands; the partial file is kept.
    /// Valid transitions: `retry` → queued, `cancel` → cancelled.
    case failed(reason: String)
    /// The final file is in place, complete and synced. No transitions.
    case completed

    /// The name used in JSON and plain output: `queued`, `downloading`, `paused`, `cancelled`,
    /// `failed` or `completed`.
    public var name: String {
        switch self {
        case .queued: "queued"
        case .downloading: "downloading"
        case .paused: "paused"
        case .cancelled: "cancelled"
        case .failed: "failed"
        case .completed: "completed"
        }
    }

    /// True when nothing will happen to the download unless a person asks (completed, cancelled, failed).
    public var isFinished: Bool {
        switch self {
        case .completed, .cancelled, .failed: true
        case .queued, .downloading, .paused: false
        }
    }

    /// The state `event` leads to, or `nil` when the event is not valid in this state.
    public func applying(_ event: DownloadEvent) -> DownloadState? {
        switch (self, event) {
        case (.queued, .start): .downloading
        case (.queued, .pause), (.downloading, .pause): .paused
        case (.queued, .cancel), (.downloading, .cancel), (.paused, .cancel), (.failed, .cancel): .cancelled
        case (.queued, .fail(let reason)), (.downloading, .fail(let reason)): .failed(reason: reason)
        case (.downloading, .finish): .completed
        case (.paused, .resume): .queued
        case (.failed, .retry), (.cancelled, .retry): .queued
        default: nil
        }
    }
}

/// Something that happens to a download; see ``DownloadState/applying(_:)``.
public enum DownloadEvent: Sendable, Hashable, CaseIterable {
    case start
    case pause
    case resume
    case cancel
    case fail(reason: String)
    case finish
    case retry

    /// One of each event, with a placeholder reason for `fail`: for exhaustive tests.
    public static var allCases: [DownloadEvent] {
        [.start, .pause, .resume, .cancel, .fail(reason: "reason"), .finish, .retry]
    }
}
