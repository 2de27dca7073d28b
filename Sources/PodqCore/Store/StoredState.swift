/// A download's state as the queue stores it (the `state` column): a ``DownloadState`` without a
/// failure's reason, which the row keeps in `lastError`.
///
/// Reading a row whose state is none of these is an error that says so
/// (``StoreError/unknownState(id:value:)``), never a silent guess.
public enum StoredState: String, Sendable, Hashable, Codable, CaseIterable {
    case queued, downloading, paused, cancelled, failed, completed

    /// The stored form of `state`.
    public init(_ state: DownloadState) {
        switch state {
        case .queued: self = .queued
        case .downloading: self = .downloading
        case .paused: self = .paused
        case .cancelled: self = .cancelled
        case .failed: self = .failed
        case .completed: self = .completed
        }
    }

    /// The state machine's state, with `reason` for a failure.
    public func state(reason: String = "") -> DownloadState {
        switch self {
        case .queued: .queued
        case .downloading: .downloading
        case .paused: .paused
        case .cancelled: .cancelled
        case .failed: .failed(reason: reason)
        case .completed: .completed
        }
    }

    /// The state `event` leads to through ``DownloadState/applying(_:)``, or nil when not allowed.
    public func applying(_ event: DownloadEvent) -> StoredState? {
        state().applying(event).map(StoredState.init)
    }
}

extension DownloadState {
    /// The state as stored, without a failure's reason.
    public var stored: StoredState { StoredState(self) }
}
