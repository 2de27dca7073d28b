import PodqCore

/// What the Episodes view says of an episode (its STATE column, the state filter, the Podcasts view's
/// counts): its download's state, else `played` or `new`. A completed download that was played is
/// `played`.
public enum EpisodeState: String, Sendable, Equatable, CaseIterable {
    case new, queued, downloading, paused, cancelled, failed, completed, played

    /// What an episode says, in every list (the TUI's Episodes view, `podq episodes`, its `--json`): its
    /// download's state, except that a completed download that was played, or an episode played and never
    /// downloaded, says `played`; with neither, `new`.
    public init(download: EpisodeState?, played: Bool) {
        if download == nil || download == .completed, played {
            self = .played
        } else {
            self = download ?? .new
        }
    }

    /// The state of an episode whose download is stored in `state`.
    public init(_ state: StoredState) {
        switch state {
        case .queued: self = .queued
        case .downloading: self = .downloading
        case .paused: self = .paused
        case .cancelled: self = .cancelled
        case .failed: self = .failed
        case .completed: self = .completed
        }
    }
}
